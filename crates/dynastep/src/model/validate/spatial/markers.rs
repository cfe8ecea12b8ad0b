//! The rules of a spatial marker: its name, angle sequence and point.

use super::*;

/// One marker: a name no body has, a known angle sequence, a point of a known body.
pub(super) fn marker(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    names: &Names<'_>,
    i: usize,
    mk: &MarkerSpec,
) {
    let e = label("marker", "spatial.markers", i, &mk.name);
    if s.bodies.iter().any(|b| b.name == mk.name) {
        c.push(
            at(&[&"markers", &i, &"name"]),
            &e,
            format!("marker `{}` has the name of a body; their columns `{0}.x`, `{0}.y`, … in the time history would collide", mk.name),
            format!("rename the marker (e.g. `{}_marker`) or the body", mk.name),
        );
    }
    if let Some(seq) = mk.angles.as_deref().filter(|s| sequence_axes(s).is_none()) {
        c.push(
            at(&[&"markers", &i, &"angles"]),
            &e,
            not_a_sequence(seq),
            "e.g. `angles = \"zxz\"`".into(),
        );
    }
    if let Some(b) = body_ref(c, names, at(&[&"markers", &i, &"body"]), &e, &mk.body) {
        point_ref(
            c,
            s,
            b,
            at(&[&"markers", &i, &"point"]),
            &e,
            mk.point.as_deref(),
        );
    }
}
