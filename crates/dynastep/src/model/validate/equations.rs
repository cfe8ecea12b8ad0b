//! The `[equations]` table of an equation-based model, located below `equations`, and the
//! planar elements it may not be mixed with. The expressions are also compiled and differentiated
//! once ([`crate::model::expressions::CompiledEquations`]), so that a model the file reader accepts builds.

use super::super::expressions::{CompiledEquations, EquationError};
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
        match CompiledEquations::new(spec) {
            Err(EquationError(reason)) => c.push(
                p(&[&"equations"]),
                "[equations]",
                reason,
                "see the expression syntax in docs/model-format.md".into(),
            ),
            Ok(compiled) => mass_at_start(c, &compiled),
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

/// M(q₀) at the initial coordinates must be symmetric and positive definite: a negative or
/// indefinite mass gives negative kinetic energy and an ill-posed run that still completes.
fn mass_at_start(c: &mut Checker<'_>, compiled: &CompiledEquations) {
    let x0 = compiled.initial_state(0.0);
    let n = x0.q.len();
    let mut m = crate::linalg::Matrix::zeros(n, n);
    compiled.mass_matrix(&x0.q, &mut m);
    let size = m.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
    let at = p(&[&"equations", &"mass"]);
    let asymmetry = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| (m[(i, j)] - m[(j, i)]).abs())
        .fold(0.0_f64, f64::max);
    if !(size.is_finite() && asymmetry <= 1e-12 * size) {
        c.push(
            at,
            "[equations]",
            format!("M(q₀) at the initial coordinates is not symmetric (largest |M_ij − M_ji| = {asymmetry:.3e}) or not finite"),
            "write M so that entry [i][j] equals entry [j][i]".into(),
        );
        return;
    }
    // With constraints M may be singular (a point mass with a zero rotary inertia, as long as the
    // constraints fix that direction); it must never have a negative eigenvalue.
    let lowest = m.symmetric_eigenvalues().min();
    let constrained = compiled.constraint_count() > 0;
    let floor = if constrained {
        -1e-12 * size
    } else {
        1e-14 * size
    };
    if lowest.is_nan() || lowest <= floor || size == 0.0 {
        let what = if constrained {
            "positive semi-definite"
        } else {
            "positive definite"
        };
        c.push(
            at,
            "[equations]",
            format!("M(q₀) at the initial coordinates is not {what} (smallest eigenvalue {lowest:.3e}): the kinetic energy ½ q̇ᵀMq̇ could be negative{}", if constrained { "" } else { " or zero" }),
            "every coordinate needs positive inertia (a positive diagonal, each leading minor positive); check signs and units".into(),
        );
    }
}
