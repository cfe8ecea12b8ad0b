//! Time functions f(t) for drivers and applied loads, with their first and second time derivatives
//! (drivers need Φ_t and Φ_tt).
//!
//! In a model file a function is either a bare number (a constant) or a table with a `type` field:
//!
//! | `type` | fields | value |
//! |---|---|---|
//! | `constant` | `value` | value |
//! | `harmonic` | `amplitude`, `omega` [rad/s], `phase` [rad] = 0, `offset` = 0 | offset + amplitude · sin(omega t + phase) |
//! | `ramp` | `slope` [1/s], `start` [s] = 0, `initial` = 0 | initial + slope · max(t − start, 0) |
//! | `smooth_step` | `t0`, `t1` [s], `v0`, `v1` | v0 before t0, v1 after t1, a cubic with zero end slopes between (Adams' STEP) |
//! | `table` | `points` = [[t, value], …], t strictly increasing | linear interpolation, held constant outside |
//! | `expression` | `expr`, a formula in `t` (e.g. `"0.1*sin(2*t)"`) | parsed by the exmex crate, evaluated with its derivatives by automatic differentiation ([`super::jet`]) |
//!
//! An expression is limited to [`MAX_EXPRESSION_LEN`] characters and [`MAX_NESTING`] levels of
//! parentheses, so that no formula can exhaust the stack or the patience of the parser; a
//! 100-term Fourier series takes about 6000 characters and 2 levels.

// Units are written in brackets, `[kg]`, as the style guide asks; these doc strings also become the
// JSON Schema descriptions, so they are not escaped for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::jet::{number_len, Jet, JetOps, Literal, CONSTANTS, FUNCTIONS};

/// Longest expression accepted, in characters.
pub const MAX_EXPRESSION_LEN: usize = 100_000;

/// Deepest nesting of parentheses accepted in an expression.
pub const MAX_NESTING: usize = 64;

/// The expression as shown in messages: the first 80 characters of a long one.
fn abbreviate(expr: &str) -> String {
    match expr.char_indices().nth(80) {
        Some((i, _)) => format!("{}… ({} characters)", &expr[..i], expr.chars().count()),
        None => expr.to_string(),
    }
}

/// Checks what the parser would handle badly or explain in its own terms: the length, the nesting
/// of parentheses, and every name (the variable `t`, the functions of [`FUNCTIONS`], the constants
/// of [`CONSTANTS`]).
fn check_expression(expr: &str) -> Result<(), FunctionError> {
    let len = expr.chars().count();
    if len > MAX_EXPRESSION_LEN {
        return Err(FunctionError::Invalid(format!(
            "{len} characters, more than the limit of {MAX_EXPRESSION_LEN}; use a `table` function for long data"
        )));
    }
    let (mut depth, mut deepest) = (0usize, 0usize);
    for c in expr.chars() {
        match c {
            '(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_NESTING {
        return Err(FunctionError::Invalid(format!(
            "parentheses nested {deepest} deep, more than the limit of {MAX_NESTING}; simplify the formula"
        )));
    }
    let mut i = 0;
    while let Some(c) = expr[i..].chars().next() {
        if c.is_ascii_digit() || c == '.' {
            // A number, with its exponent (1e-3, 2.5E+4): not a name.
            i += number_len(&expr[i..]).max(1);
        } else if c.is_alphabetic() || c == '_' {
            let rest = &expr[i..];
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let called = rest[len..].trim_start().starts_with('(');
            check_name(&rest[..len], called)?;
            i += len;
        } else {
            i += c.len_utf8();
        }
    }
    Ok(())
}

/// Refuses a name that is neither `t`, a function nor a constant, listing what is available.
fn check_name(name: &str, called: bool) -> Result<(), FunctionError> {
    let known = name == "t" || FUNCTIONS.contains(&name) || CONSTANTS.contains(&name);
    if known {
        return Ok(());
    }
    let what = if called { "function" } else { "variable" };
    Err(FunctionError::Invalid(format!(
        "unknown {what} `{name}`; the variable is `t` (time in s), the functions are {}, the constants {}",
        FUNCTIONS.join(", "),
        CONSTANTS.join(", ")
    )))
}

/// A scalar function of time, as written in a model file (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FunctionSpec {
    /// A bare number: a constant.
    Constant(f64),
    /// A tagged table.
    Tagged(TaggedFunction),
}

/// The tagged forms of [`FunctionSpec`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TaggedFunction {
    /// f(t) = value.
    Constant {
        /// The value.
        value: f64,
    },
    /// f(t) = offset + amplitude · sin(omega t + phase).
    Harmonic {
        /// Amplitude (unit of the driven quantity).
        amplitude: f64,
        /// Angular frequency [rad/s].
        omega: f64,
        /// Phase [rad].
        #[serde(default)]
        phase: f64,
        /// Constant offset.
        #[serde(default)]
        offset: f64,
    },
    /// f(t) = initial + slope · max(t − start, 0).
    Ramp {
        /// Slope [unit/s].
        slope: f64,
        /// Time the ramp starts [s].
        #[serde(default)]
        start: f64,
        /// Value before the start.
        #[serde(default)]
        initial: f64,
    },
    /// Cubic blend from v0 at t0 to v1 at t1 with zero slope at both ends.
    SmoothStep {
        /// Start of the transition [s].
        t0: f64,
        /// End of the transition [s]; must exceed t0.
        t1: f64,
        /// Value up to t0.
        v0: f64,
        /// Value from t1 on.
        v1: f64,
    },
    /// Piecewise-linear interpolation of `[t, value]` pairs; constant outside the table.
    Table {
        /// The pairs `[t, value]`, t strictly increasing, at least one pair.
        points: Vec<[f64; 2]>,
    },
    /// A formula in the variable `t` [s].
    Expression {
        /// The formula, e.g. `"0.1*sin(2*t)"`; functions: sin, cos, tan, exp, ln, sqrt, abs, atan2(y, x), min, max, …; constants PI, E, TAU; at most 100 000 characters and 64 nested parentheses
        expr: String,
    },
}

/// Why a function specification cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FunctionError {
    /// The expression does not parse or uses a variable other than `t`.
    #[error("expression `{expr}`: {reason}")]
    Expression {
        /// The formula as written.
        expr: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A parameter is out of range.
    #[error("{0}")]
    Invalid(String),
}

/// A compiled time function: value, first and second derivative at any t.
#[derive(Debug, Clone)]
pub enum TimeFunction {
    /// See [`TaggedFunction::Constant`].
    Constant(f64),
    /// See [`TaggedFunction::Harmonic`].
    Harmonic {
        /// Amplitude.
        amplitude: f64,
        /// Angular frequency [rad/s].
        omega: f64,
        /// Phase [rad].
        phase: f64,
        /// Offset.
        offset: f64,
    },
    /// See [`TaggedFunction::Ramp`].
    Ramp {
        /// Slope.
        slope: f64,
        /// Start time [s].
        start: f64,
        /// Initial value.
        initial: f64,
    },
    /// See [`TaggedFunction::SmoothStep`].
    SmoothStep {
        /// Start [s].
        t0: f64,
        /// End [s].
        t1: f64,
        /// Initial value.
        v0: f64,
        /// Final value.
        v1: f64,
    },
    /// See [`TaggedFunction::Table`].
    Table {
        /// Sample times, strictly increasing.
        t: Vec<f64>,
        /// Values at the sample times.
        v: Vec<f64>,
    },
    /// See [`TaggedFunction::Expression`]; evaluated on jets, which carry the derivatives.
    Expression(Box<exmex::FlatEx<Jet, JetOps, Literal>>),
}

impl TimeFunction {
    /// Compiles a specification.
    ///
    /// # Errors
    /// [`FunctionError`] when an expression does not parse or uses a variable other than `t`, when a
    /// smooth step has t1 ≤ t0, or when a table is empty or its times do not strictly increase.
    pub fn new(spec: &FunctionSpec) -> Result<Self, FunctionError> {
        use TaggedFunction as T;
        Ok(match spec {
            FunctionSpec::Constant(c) => TimeFunction::Constant(*c),
            FunctionSpec::Tagged(T::Constant { value }) => TimeFunction::Constant(*value),
            &FunctionSpec::Tagged(T::Harmonic {
                amplitude,
                omega,
                phase,
                offset,
            }) => TimeFunction::Harmonic {
                amplitude,
                omega,
                phase,
                offset,
            },
            &FunctionSpec::Tagged(T::Ramp {
                slope,
                start,
                initial,
            }) => TimeFunction::Ramp {
                slope,
                start,
                initial,
            },
            &FunctionSpec::Tagged(T::SmoothStep { t0, t1, v0, v1 }) => {
                if t1.partial_cmp(&t0) != Some(std::cmp::Ordering::Greater) {
                    return Err(FunctionError::Invalid(format!(
                        "smooth_step needs t1 > t0 (got t0 = {t0}, t1 = {t1}); swap or widen the interval"
                    )));
                }
                TimeFunction::SmoothStep { t0, t1, v0, v1 }
            }
            FunctionSpec::Tagged(T::Table { points }) => {
                if points.is_empty() {
                    return Err(FunctionError::Invalid(
                        "table needs at least one [t, value] pair".into(),
                    ));
                }
                for w in points.windows(2) {
                    if w[1][0].partial_cmp(&w[0][0]) != Some(std::cmp::Ordering::Greater) {
                        return Err(FunctionError::Invalid(format!(
                            "table times must strictly increase, but {} follows {}",
                            w[1][0], w[0][0]
                        )));
                    }
                }
                TimeFunction::Table {
                    t: points.iter().map(|p| p[0]).collect(),
                    v: points.iter().map(|p| p[1]).collect(),
                }
            }
            FunctionSpec::Tagged(T::Expression { expr }) => Self::expression(expr)?,
        })
    }

    fn expression(expr: &str) -> Result<Self, FunctionError> {
        use exmex::Express;
        let err = |reason: String| FunctionError::Expression {
            expr: abbreviate(expr),
            reason,
        };
        check_expression(expr).map_err(|e| err(e.to_string()))?;
        let f = exmex::FlatEx::<Jet, JetOps, Literal>::parse(
            &super::unary_minus::bind_unary_minus(expr),
        )
        .map_err(|e| err(format!("cannot parse it ({e})")))?;
        if f.var_names().is_empty() {
            let value = f.eval(&[]).map_err(|e| err(e.to_string()))?.v;
            return Ok(TimeFunction::Constant(value));
        }
        let this = TimeFunction::Expression(Box::new(f));
        let v = this.value(0.0);
        if !v.is_finite() {
            return Err(err(format!("evaluates to {v} at t = 0")));
        }
        Ok(this)
    }

    /// Appends the times where f, ḟ or f̈ jump (the kinks and ends of ramps, smooth steps and tables)
    /// to `out` \[s\]. An adaptive run lands a step on each, so that no step straddles a jump.
    pub fn breakpoints(&self, out: &mut Vec<f64>) {
        match self {
            TimeFunction::Ramp { start, .. } => out.push(*start),
            TimeFunction::SmoothStep { t0, t1, .. } => out.extend([*t0, *t1]),
            TimeFunction::Table { t, .. } => out.extend_from_slice(t),
            TimeFunction::Constant(_)
            | TimeFunction::Harmonic { .. }
            | TimeFunction::Expression(_) => {}
        }
    }

    /// f(t).
    pub fn value(&self, t: f64) -> f64 {
        self.eval(t).0
    }

    /// (f, ḟ, f̈) at t. Kinks of ramps and tables give the one-sided derivative from the right.
    pub fn eval(&self, t: f64) -> (f64, f64, f64) {
        match self {
            TimeFunction::Constant(c) => (*c, 0.0, 0.0),
            &TimeFunction::Harmonic {
                amplitude,
                omega,
                phase,
                offset,
            } => {
                let (s, c) = (omega * t + phase).sin_cos();
                (
                    offset + amplitude * s,
                    amplitude * omega * c,
                    -amplitude * omega * omega * s,
                )
            }
            &TimeFunction::Ramp {
                slope,
                start,
                initial,
            } => {
                if t < start {
                    (initial, 0.0, 0.0)
                } else {
                    (initial + slope * (t - start), slope, 0.0)
                }
            }
            &TimeFunction::SmoothStep { t0, t1, v0, v1 } => {
                if t <= t0 {
                    (v0, 0.0, 0.0)
                } else if t >= t1 {
                    (v1, 0.0, 0.0)
                } else {
                    let d = t1 - t0;
                    let s = (t - t0) / d;
                    let dv = v1 - v0;
                    (
                        v0 + dv * s * s * (3.0 - 2.0 * s),
                        dv * 6.0 * s * (1.0 - s) / d,
                        dv * (6.0 - 12.0 * s) / (d * d),
                    )
                }
            }
            TimeFunction::Table { t: ts, v } => {
                let k = ts.partition_point(|&x| x <= t);
                if k == 0 {
                    (v[0], 0.0, 0.0)
                } else if k == ts.len() {
                    (v[k - 1], 0.0, 0.0)
                } else {
                    let slope = (v[k] - v[k - 1]) / (ts[k] - ts[k - 1]);
                    (v[k - 1] + slope * (t - ts[k - 1]), slope, 0.0)
                }
            }
            TimeFunction::Expression(f) => {
                use exmex::Express;
                match f.eval(&[Jet::variable(t)]) {
                    Ok(j) => (j.v, j.d1, j.d2),
                    Err(_) => (f64::NAN, f64::NAN, f64::NAN),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tagged(t: TaggedFunction) -> TimeFunction {
        TimeFunction::new(&FunctionSpec::Tagged(t)).unwrap()
    }

    /// Derivatives checked against central finite differences of the value.
    fn check_derivatives(f: &TimeFunction, t: f64) {
        let h = 1e-5;
        let (v, d1, d2) = f.eval(t);
        let (vp, d1p, _) = f.eval(t + h);
        let (vm, d1m, _) = f.eval(t - h);
        assert!(
            ((vp - vm) / (2.0 * h) - d1).abs() < 1e-6 * (1.0 + d1.abs()),
            "d1 at {t}"
        );
        assert!(
            ((d1p - d1m) / (2.0 * h) - d2).abs() < 1e-5 * (1.0 + d2.abs()),
            "d2 at {t}"
        );
        assert!(v.is_finite());
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let fs = [
            tagged(TaggedFunction::Harmonic {
                amplitude: 0.3,
                omega: 2.0,
                phase: 0.4,
                offset: 1.0,
            }),
            tagged(TaggedFunction::SmoothStep {
                t0: 0.5,
                t1: 1.5,
                v0: 1.0,
                v1: -2.0,
            }),
            tagged(TaggedFunction::Ramp {
                slope: 2.0,
                start: 0.5,
                initial: 1.0,
            }),
            tagged(TaggedFunction::Table {
                points: vec![[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]],
            }),
            tagged(TaggedFunction::Expression {
                expr: "0.1*sin(2*t) + t^2".into(),
            }),
        ];
        for f in &fs {
            for t in [0.2, 0.9, 1.2, 2.0, 4.0] {
                check_derivatives(f, t);
            }
        }
    }

    #[test]
    fn expression_values_and_errors() {
        let f = tagged(TaggedFunction::Expression {
            expr: "0.1*sin(2*t)".into(),
        });
        assert!((f.value(0.3) - 0.1 * (0.6f64).sin()).abs() < 1e-15);
        let (_, d1, d2) = f.eval(0.3);
        assert!((d1 - 0.2 * (0.6f64).cos()).abs() < 1e-14);
        assert!((d2 + 0.4 * (0.6f64).sin()).abs() < 1e-14);
        let bad = TimeFunction::new(&FunctionSpec::Tagged(TaggedFunction::Expression {
            expr: "sin(x)".into(),
        }));
        assert!(matches!(bad, Err(FunctionError::Expression { .. })));
        let bad = TimeFunction::new(&FunctionSpec::Tagged(TaggedFunction::Expression {
            expr: "sin(t".into(),
        }));
        assert!(bad.is_err());
        let c = tagged(TaggedFunction::Expression { expr: "2*3".into() });
        assert_eq!(c.eval(1.0), (6.0, 0.0, 0.0));
    }

    fn expression(expr: &str) -> Result<TimeFunction, FunctionError> {
        TimeFunction::new(&FunctionSpec::Tagged(TaggedFunction::Expression {
            expr: expr.into(),
        }))
    }

    #[test]
    fn a_100_term_fourier_series_is_exact_with_its_derivatives() {
        // f = Σ a_k sin(k ω t + φ_k), a_k = 0.01/k, ω = 2π, φ_k = 0.1 k: about 6000 characters.
        let w = std::f64::consts::TAU;
        let terms: Vec<String> = (1..=100)
            .map(|k| {
                format!(
                    "{:e}*sin({k}*{w:e}*t + {:e})",
                    0.01 / k as f64,
                    0.1 * k as f64
                )
            })
            .collect();
        let f = expression(&terms.join(" + ")).expect("compiles");
        let t = 0.123;
        let mut exact = (0.0, 0.0, 0.0);
        for k in 1..=100 {
            let (a, kw, phi) = (0.01 / k as f64, k as f64 * w, 0.1 * k as f64);
            let (s, c) = (kw * t + phi).sin_cos();
            exact.0 += a * s;
            exact.1 += a * kw * c;
            exact.2 -= a * kw * kw * s;
        }
        let (v, d1, d2) = f.eval(t);
        assert!((v - exact.0).abs() < 1e-14, "{v} vs {}", exact.0);
        assert!((d1 - exact.1).abs() < 1e-12, "{d1} vs {}", exact.1);
        assert!((d2 - exact.2).abs() < 1e-9, "{d2} vs {}", exact.2);
    }

    #[test]
    fn long_and_deep_expressions_compile_or_are_refused_by_name() {
        let sum = |n: usize| vec!["sin(t)"; n].join(" + ");
        let f = expression(&sum(1000)).expect("a 1000-term sum compiles");
        assert!((f.value(0.5) - 1000.0 * 0.5f64.sin()).abs() < 1e-9);
        // 10 000 terms: 80 000 characters, under the length limit.
        let f = expression(&sum(10_000)).expect("a 10 000-term sum compiles");
        assert!((f.eval(0.5).1 - 1e4 * 0.5f64.cos()).abs() < 1e-7);
        let nested = |n: usize| format!("{}t{}", "sin(".repeat(n), ")".repeat(n));
        let f = expression(&nested(50)).expect("sin nested 50 deep compiles");
        assert!(f.value(0.3).is_finite());
        let e = expression(&nested(5000)).expect_err("too deep");
        assert!(e.to_string().contains("nested 5000 deep"), "{e}");
        let tower = format!("{}t", "1.0001^".repeat(40));
        let f = expression(&tower).expect("a power tower of depth 40 compiles");
        assert!(f.value(1.0).is_finite());
        let e = expression(&"t+".repeat(60_000)).expect_err("too long");
        assert!(e.to_string().contains("more than the limit"), "{e}");
    }

    #[test]
    fn unknown_names_are_named_with_what_is_available() {
        let e = expression("2*sine(t)")
            .expect_err("no function sine")
            .to_string();
        assert!(
            e.contains("unknown function `sine`") && e.contains("sin, cos"),
            "{e}"
        );
        let e = expression("x*t").expect_err("no variable x").to_string();
        assert!(
            e.contains("unknown variable `x`") && e.contains("`t`"),
            "{e}"
        );
        // Exponents of numbers are not names.
        let f = expression("1e-3*t + 2.5E+2 + PI").expect("compiles");
        assert!((f.value(2.0) - (2e-3 + 250.0 + std::f64::consts::PI)).abs() < 1e-12);
        let f = expression("atan2(t, 2) + max(t, 1)").expect("two-argument functions");
        assert!((f.value(0.5) - (0.5f64.atan2(2.0) + 1.0)).abs() < 1e-15);
    }

    #[test]
    fn smooth_step_and_table_values() {
        let s = tagged(TaggedFunction::SmoothStep {
            t0: 0.0,
            t1: 2.0,
            v0: 1.0,
            v1: 3.0,
        });
        assert_eq!(s.value(-1.0), 1.0);
        assert_eq!(s.value(1.0), 2.0);
        assert_eq!(s.value(5.0), 3.0);
        let t = tagged(TaggedFunction::Table {
            points: vec![[0.0, 0.0], [1.0, 2.0]],
        });
        assert_eq!(t.value(0.25), 0.5);
        assert_eq!(t.value(7.0), 2.0);
        assert!(
            TimeFunction::new(&FunctionSpec::Tagged(TaggedFunction::Table {
                points: vec![[1.0, 0.0], [1.0, 2.0]]
            }))
            .is_err()
        );
    }
}
