//! The `[equations]` table of an equation-based model, located below `equations`, and the
//! planar elements it may not be mixed with.

use super::super::types::*;
use super::checker::{p, Checker};
use super::PathSeg;

/// The `[equations]` table's own checks ([`crate::model::equations::EquationSpec::check`]), located below
/// `equations`, and the planar elements it may not be mixed with.
pub(super) fn check(
    c: &mut Checker<'_>,
    model: &Model,
    spec: &super::super::equations::EquationSpec,
) {
    use super::super::equations::PathItem;
    for issue in spec.check() {
        let mut path = vec![PathSeg::Key("equations".into())];
        path.extend(issue.path.into_iter().map(|s| match s {
            PathItem::Key(k) => PathSeg::Key(k),
            PathItem::Index(i) => PathSeg::Index(i),
        }));
        c.push(path, "[equations]", issue.message, issue.hint);
    }
    let planar = [
        ("bodies", model.bodies.len()),
        ("joints", model.joints.len()),
        ("drivers", model.drivers.len()),
        ("forces", model.forces.len()),
        ("markers", model.markers.len()),
    ];
    for (what, count) in planar {
        if count > 0 {
            c.push(
                p(&[&what]),
                "[equations]",
                format!("an equation-based model cannot also have {what}"),
                "write everything as equations, or model the mechanism with bodies and joints"
                    .into(),
            );
        }
    }
}
