//! The `[equations]` table of an equation-based model, located below `equations`, and the
//! planar elements it may not be mixed with. The expressions are also compiled and differentiated
//! once (`system::equations::EquationSystem::new`), so that a model the file reader accepts builds.

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
    let issues = spec.check();
    let clean = issues.is_empty();
    for issue in issues {
        let mut path = vec![PathSeg::Key("equations".into())];
        path.extend(issue.path.into_iter().map(|s| match s {
            PathItem::Key(k) => PathSeg::Key(k),
            PathItem::Index(i) => PathSeg::Index(i),
        }));
        c.push(path, "[equations]", issue.message, issue.hint);
    }
    // What the table's own checks cannot see (exmex's full grammar, a function without a
    // derivative where one is needed) shows when the system is compiled: the one rule of a model
    // that is checked by building it.
    if clean {
        if let Err(reason) = crate::system::equations::EquationSystem::new(spec) {
            c.push(
                p(&[&"equations"]),
                "[equations]",
                reason,
                "see the expression syntax in docs/model-format.md".into(),
            );
        }
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
    if model.gravity != [0.0, 0.0] {
        c.push(
            p(&[&"gravity"]),
            "[equations]",
            "an equation-based model does not apply the top-level `gravity`".into(),
            "write the weight into `forces` (e.g. `\"-m*g\"`) and, for the energy balance, into `potential`; then remove `gravity`".into(),
        );
    }
}
