//! The rules of `[solver]`: a known scheme with known, in-range parameters, and consistent step,
//! time and tolerance settings.

use super::super::settings::{
    rtol_too_small, ConstraintSettings, NewtonSettings, AUTO_SCHEME, MIN_RTOL,
};
use super::super::types::*;
use super::checker::{p, Checker};
use super::{suggest, Issue};
use crate::scheme as registry;

/// Checks the solver settings, one function per table: the scheme and its parameters, the times,
/// `formulation`, `[solver.step]`, `[solver.newton]` and `[solver.constraints]`, in that order.
///
/// With `run`, the settings are those of a run about to start (the model's with the run options
/// over them): a missing formulation is then the default one, which must serve the scheme. A file
/// alone may leave it to the run options.
pub(super) fn check(c: &mut Checker<'_>, s: &SolverSpec, run: bool) {
    let scheme_name = s.scheme.as_deref().unwrap_or("generalized-alpha");
    scheme(c, s, scheme_name);
    times(c, s);
    formulation(c, s, scheme_name, run);
    step(c, s);
    newton(c, &s.newton);
    constraints(c, &s.constraints);
}

/// `[solver] scheme` and `[solver.params]`: a registered scheme, its own parameters, in range;
/// or `auto` (the stiffness switch), without parameters or a formulation, which it chooses.
fn scheme(c: &mut Checker<'_>, s: &SolverSpec, scheme_name: &str) {
    if scheme_name == AUTO_SCHEME {
        auto_scheme(c, s);
        return;
    }
    let Some(info) = registry::find(scheme_name) else {
        let known: Vec<&str> = registry::REGISTRY.iter().map(|s| s.name).collect();
        c.push(
            p(&[&"solver", &"scheme"]),
            "solver",
            format!("unknown scheme `{scheme_name}`"),
            suggest(scheme_name, &known, "known schemes"),
        );
        return;
    };
    if scheme_params_known(c, s, info) {
        if let Err(registry::SchemeError::OutOfRange {
            param,
            value,
            reason,
            ..
        }) = registry::build(scheme_name, &s.params)
        {
            c.push(
                p(&[&"solver", &"params", &param]),
                "solver",
                format!("parameter `{param}` = {value} is out of range"),
                reason,
            );
        }
    }
}

/// `scheme = "auto"`: the switch chooses the scheme's parameters and the formulation, so the
/// table gives neither.
fn auto_scheme(c: &mut Checker<'_>, s: &SolverSpec) {
    const WHY: &str = "scheme = \"auto\" (the stiffness switch) chooses the scheme, its parameters and the formulation";
    if let Some(name) = s.params.keys().next() {
        c.push(
            p(&[&"solver", &"params", name]),
            "solver",
            format!("{WHY}: it takes no parameters"),
            "remove [solver.params], or name a scheme".into(),
        );
    }
    if s.formulation.is_some() {
        c.push(
            p(&[&"solver", &"formulation"]),
            "solver",
            format!("{WHY}: it takes no formulation"),
            "remove `formulation`, or name a scheme".into(),
        );
    }
}

/// `[solver.params]`: every name is a parameter of the scheme, every value finite; whether all are.
fn scheme_params_known(c: &mut Checker<'_>, s: &SolverSpec, info: &registry::SchemeInfo) -> bool {
    let e = "solver";
    let known: Vec<&str> = info.params.iter().map(|p| p.name).collect();
    let mut all_known = true;
    for (name, v) in &s.params {
        let path = p(&[&"solver", &"params", name]);
        if !known.contains(&name.as_str()) {
            all_known = false;
            c.issues.push(Issue {
                path,
                at_key: true,
                entity: Some(e.into()),
                message: format!("scheme `{}` has no parameter `{name}`", info.name),
                hint: suggest(name, &known, &format!("parameters of `{}`", info.name)),
            });
        } else if !v.is_finite() {
            all_known = false;
            c.finite(path, e, &format!("parameter `{name}`"), &[*v]);
        }
    }
    all_known
}

/// `dt`, `t_start`, `t_end` and `output_interval`: a positive step, t_end after t_start.
fn times(c: &mut Checker<'_>, s: &SolverSpec) {
    let e = "solver";
    let at = |f: &str| p(&[&"solver", &f]);
    if let Some(dt) = s.dt {
        c.positive(
            at("dt"),
            e,
            "dt",
            dt,
            "give the step size in s, e.g. `dt = 1e-3`",
        );
    }
    let t_start = s.t_start.unwrap_or(0.0);
    if s.t_start.is_some() {
        c.finite(at("t_start"), e, "t_start", &[t_start]);
    }
    if let Some(t_end) = s.t_end {
        // Finite and within 1e100 s first: beyond it the floating-point spacing of the times
        // exceeds any output interval, which was blamed instead.
        let before = c.issues.len();
        c.finite(at("t_end"), e, "t_end", &[t_end]);
        let problem = span_problem(t_start, t_end).filter(|_| t_start.is_finite());
        if let Some(problem) = problem.filter(|_| c.issues.len() == before) {
            c.push(
                at("t_end"),
                e,
                problem,
                match s.t_start {
                    Some(t0) => format!("set t_end later than t_start = {t0}"),
                    None => "set t_end later than t_start (which defaults to 0)".into(),
                },
            );
        }
    }
    output_columns(c, s);
    if let Some(h) = s.output_interval {
        if !(h.is_finite() && h >= 0.0) {
            c.push(
                at("output_interval"),
                e,
                format!("output_interval must be non-negative and finite, got {h}"),
                "give the output interval in s, or 0 to write every step".into(),
            );
        }
    }
}

/// `output_columns`: at least one pattern, each a glob pattern. Whether each matches a column is
/// known once the model is built (`analysis::simulation`).
fn output_columns(c: &mut Checker<'_>, s: &SolverSpec) {
    let Some(patterns) = &s.output_columns else {
        return;
    };
    if patterns.is_empty() {
        c.push(
            p(&[&"solver", &"output_columns"]),
            "solver",
            "output_columns is empty".into(),
            "give the columns to write, e.g. `output_columns = [\"midspan.*\"]`, or leave it out \
             to write every column"
                .into(),
        );
    }
    for (i, pattern) in patterns.iter().enumerate() {
        if let Err(e) = glob::Pattern::new(pattern) {
            c.push(
                p(&[&"solver", &"output_columns", &i]),
                "solver",
                format!(
                    "output_columns: `{pattern}` is not a glob pattern: {}",
                    e.msg
                ),
                "`*` matches any run of characters, `?` any one, `[abc]` one of a set, e.g. \
                 `\"beam.10.*\"`"
                    .into(),
            );
        }
    }
}

/// Why [`t_start`, `t_end`] \[s\] cannot be a run's span, or `None`: both finite, t_end after
/// t_start. The one rule for the span, applied to model files here and to the settings a library
/// caller builds by `analysis::dynamic::check_settings`.
pub fn span_problem(t_start: f64, t_end: f64) -> Option<String> {
    if !(t_start.is_finite() && t_end.is_finite()) {
        Some(format!(
            "the span [{t_start}, {t_end}] s of the run must be finite"
        ))
    } else if t_end <= t_start {
        Some(format!("t_end = {t_end} is not after t_start = {t_start}"))
    } else {
        None
    }
}

/// `[solver.newton]`: at least one iteration, positive tolerances, fractions in range.
fn newton(c: &mut Checker<'_>, n: &NewtonSettings) {
    let e = "solver";
    let at_n = |f: &str| p(&[&"solver", &"newton", &f]);
    if n.max_iterations == 0 {
        c.push(
            at_n("max_iterations"),
            e,
            "max_iterations must be at least 1".into(),
            "the default is 25".into(),
        );
    }
    c.positive(
        at_n("position_tol"),
        e,
        "position_tol",
        n.position_tol,
        "give a positive tolerance (default 1e-10)",
    );
    c.positive(
        at_n("residual_tol"),
        e,
        "residual_tol",
        n.residual_tol,
        "give a positive tolerance (default 1e-8)",
    );
    if !(n.max_contraction > 0.0 && n.max_contraction < 1.0) {
        c.push(
            at_n("max_contraction"),
            e,
            format!(
                "max_contraction must lie between 0 and 1 (a contraction rate), got {}",
                n.max_contraction
            ),
            "the default is 0.03".into(),
        );
    }
    if !(n.max_step_change.is_finite() && n.max_step_change >= 0.0) {
        c.push(
            at_n("max_step_change"),
            e,
            format!(
                "max_step_change must be a non-negative fraction, got {}",
                n.max_step_change
            ),
            "the default is 0.2 (refresh the matrix when h changes by more than 20 %)".into(),
        );
    }
}

/// `[solver.constraints]`: positive Baumgarte gains, repartition ratio and hybrid tolerance.
fn constraints(c: &mut Checker<'_>, k: &ConstraintSettings) {
    let e = "solver";
    let at_k = |f: &str| p(&[&"solver", &"constraints", &f]);
    for (name, value, hint) in [
        (
            "alpha",
            k.alpha,
            "give Baumgarte's alpha in 1/s (default 10)",
        ),
        ("beta", k.beta, "give Baumgarte's beta in 1/s (default 10)"),
        (
            "repartition_ratio",
            k.repartition_ratio,
            "give a fraction such as 0.1 (the default)",
        ),
    ] {
        c.positive(at_k(name), e, name, value, hint);
    }
    if let Some(tol) = k.tolerance {
        c.positive(
            at_k("tolerance"),
            e,
            "tolerance",
            tol,
            "give the hybrid algorithm's constraint tolerance in m and rad, e.g. 1e-8",
        );
    }
}

/// The formulation a run uses when `[solver] formulation` is not given.
pub const DEFAULT_FORMULATION: &str = "index3";

/// `[solver] formulation`: a registered name that the scheme works with. Without one, for a run
/// (`run`), the default ([`DEFAULT_FORMULATION`]) must serve the scheme; the issue then points at
/// the scheme.
fn formulation(c: &mut Checker<'_>, s: &SolverSpec, scheme_name: &str, run: bool) {
    if scheme_name == AUTO_SCHEME {
        return; // `auto_scheme` refuses a formulation.
    }
    let (name, at) = match s.formulation.as_deref() {
        Some(name) => (name, p(&[&"solver", &"formulation"])),
        None if run => (DEFAULT_FORMULATION, p(&[&"solver", &"scheme"])),
        None => return,
    };
    let Some(info) = crate::catalog::find(name) else {
        let known: Vec<&str> = crate::catalog::FORMULATIONS
            .iter()
            .map(|f| f.name)
            .collect();
        c.push(
            at,
            "solver",
            format!("unknown formulation `{name}`"),
            suggest(name, &known, "known formulations"),
        );
        return;
    };
    if let Some(scheme) = registry::find(scheme_name) {
        if let Err(why) = crate::catalog::compatible(scheme, info) {
            let hint = if s.formulation.is_some() {
                "pick a formulation the scheme lists (`dynastep schemes`), or another scheme"
            } else {
                "the default formulation is index3: choose one the scheme lists (`dynastep schemes`), e.g. \"projection\", or \"direct\" for a model without constraints (`formulation` in [solver], --formulation on the command line)"
            };
            c.push(at, "solver", why.to_string(), hint.into());
        }
    }
}

/// Largest `[solver.step] max_halvings`: a step in 2²⁰ parts is already far below any step a
/// fixed-step run is meant to take.
const MAX_HALVINGS: u32 = 20;

/// `[solver.step]`: positive, finite tolerances and step bounds, rtol ≥ 100 ε, h_min ≤ h_max, at most
/// [`MAX_HALVINGS`] halvings, at least one iteration before a halving.
fn step(c: &mut Checker<'_>, s: &SolverSpec) {
    let at = |f: &str| p(&[&"solver", &"step", &f]);
    let st = &s.step;
    let hints = [
        ("rtol", st.rtol, "give a relative tolerance such as `rtol = 1e-6`"),
        ("atol", st.atol, "give an absolute tolerance in the coordinates' units, e.g. `atol = 1e-8` (default: rtol)"),
        ("h_min", st.h_min, "give the smallest step in s, e.g. `h_min = 1e-12` (default: 1e-14 of the span)"),
        ("h_max", st.h_max, "give the largest step in s (default: the span)"),
    ];
    for (name, value, hint) in hints {
        if let Some(v) = value {
            c.positive(at(name), "solver", name, v, hint);
        }
    }
    if let Some(rtol) = st.rtol.filter(|&r| r > 0.0 && r < MIN_RTOL) {
        c.push(
            at("rtol"),
            "solver",
            rtol_too_small(rtol),
            format!("give rtol ≥ {MIN_RTOL:.1e} (e.g. `rtol = 1e-12`)"),
        );
    }
    if let Some(k) = st.max_halvings.filter(|&k| k > MAX_HALVINGS) {
        c.push(
            at("max_halvings"),
            "solver",
            format!("max_halvings = {k} would split a failing step into 2^{k} parts"),
            format!("give at most {MAX_HALVINGS} (default 4; 0 stops the run at a failing step)"),
        );
    }
    if st.halve_after_iterations == Some(0) {
        c.push(
            at("halve_after_iterations"),
            "solver",
            "halve_after_iterations must be at least 1".into(),
            "give the Newton iterations a point may take before its step is halved, e.g. 8 (the default)".into(),
        );
    }
    if let (Some(lo), Some(hi)) = (st.h_min, st.h_max) {
        if lo > hi && lo.is_finite() && hi > 0.0 {
            c.push(
                at("h_min"),
                "solver",
                format!("h_min = {lo} exceeds h_max = {hi}"),
                "make h_min smaller than h_max".into(),
            );
        }
    }
}
