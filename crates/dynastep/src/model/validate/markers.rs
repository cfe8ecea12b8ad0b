//! The rules of `[[markers]]`: a point that exists, a name that does not collide with a body's
//! columns in the time history, and no angle sequence (spatial markers only).

use super::super::types::*;
use super::checker::{label, p, Checker};

/// Checks every marker.
pub(super) fn check(c: &mut Checker<'_>, model: &Model) {
    c.names(
        "markers",
        "marker",
        model.markers.iter().map(|m| m.name.as_str()),
    );
    for (i, m) in model.markers.iter().enumerate() {
        let e = label("marker", "markers", i, &m.name);
        let at = |f: &str| p(&[&"markers", &i, &f]);
        if model.bodies.iter().any(|b| b.name == m.name) {
            c.push(
                at("name"),
                &e,
                format!("marker `{}` has the name of a body; their columns `{0}.x`, `{0}.y`, … in the time history would collide", m.name),
                format!("rename the marker (e.g. `{}_marker`) or the body", m.name),
            );
        }
        if m.angles.is_some() {
            c.push(
                at("angles"),
                &e,
                "a planar marker has no angle sequence: its angle is its body's θ".into(),
                "remove `angles` (it is for markers under [spatial])".into(),
            );
        }
        if let Some(b) = c.body_ref(at("body"), &e, &m.body, true) {
            c.point_ref(at("point"), &e, b, m.point.as_deref().unwrap_or("origin"));
        }
    }
}
