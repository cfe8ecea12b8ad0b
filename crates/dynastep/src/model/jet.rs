//! Second-order forward-mode automatic differentiation in one variable: a [`Jet`] carries a value
//! and its first two derivatives with respect to time, (f, ḟ, f̈), and every operation applies the
//! chain rule (Griewank & Walther 2008, *Evaluating Derivatives*, 2nd ed., SIAM, ch. 13: univariate
//! Taylor propagation to degree 2).
//!
//! An `expression` time function is parsed once by the exmex crate with [`JetOps`] as its operators
//! and evaluated at `t = (t, 1, 0)`: one evaluation gives f, ḟ and f̈ exactly (to rounding), with
//! work proportional to the length of the formula. Symbolic differentiation, which exmex also
//! offers, grows the formula at every derivative and overflowed the stack on a 100-term Fourier
//! series.
//!
//! For a function g of one argument u: `g(u)˙ = g′(u) u̇` and `g(u)¨ = g″(u) u̇² + g′(u) ü`.
//! Piecewise-constant functions (floor, round, ceil, trunc, signum) have zero derivatives, and abs,
//! min and max take the derivatives of the branch they select.

use std::str::FromStr;

use exmex::{BinOp, MakeOperators, MatchLiteral, Operator};

/// A value with its first and second time derivatives (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Jet {
    /// f.
    pub v: f64,
    /// ḟ.
    pub d1: f64,
    /// f̈.
    pub d2: f64,
}

impl Jet {
    /// A constant: both derivatives zero.
    pub fn constant(v: f64) -> Self {
        Jet {
            v,
            d1: 0.0,
            d2: 0.0,
        }
    }

    /// The independent variable t: ṫ = 1, ẗ = 0.
    pub fn variable(t: f64) -> Self {
        Jet {
            v: t,
            d1: 1.0,
            d2: 0.0,
        }
    }

    /// g(self) given g, g′ and g″ at self.v.
    fn chain(self, g: f64, g1: f64, g2: f64) -> Self {
        Jet {
            v: g,
            d1: g1 * self.d1,
            // Skip g″ u̇² when u̇ = 0, so that an infinite g″ at a constant argument does not give NaN.
            d2: if self.d1 == 0.0 {
                g1 * self.d2
            } else {
                g2 * self.d1 * self.d1 + g1 * self.d2
            },
        }
    }

    fn add(self, o: Jet) -> Jet {
        Jet {
            v: self.v + o.v,
            d1: self.d1 + o.d1,
            d2: self.d2 + o.d2,
        }
    }

    fn sub(self, o: Jet) -> Jet {
        self.add(o.neg())
    }

    fn neg(self) -> Jet {
        Jet {
            v: -self.v,
            d1: -self.d1,
            d2: -self.d2,
        }
    }

    fn mul(self, o: Jet) -> Jet {
        Jet {
            v: self.v * o.v,
            d1: self.d1 * o.v + self.v * o.d1,
            d2: self.d2 * o.v + 2.0 * self.d1 * o.d1 + self.v * o.d2,
        }
    }

    fn div(self, o: Jet) -> Jet {
        let v = self.v / o.v;
        let d1 = (self.d1 - v * o.d1) / o.v;
        Jet {
            v,
            d1,
            d2: (self.d2 - 2.0 * d1 * o.d1 - v * o.d2) / o.v,
        }
    }

    /// self^o: the power rule for a constant exponent (any base, as `f64::powf`), else
    /// exp(o ln self).
    fn pow(self, o: Jet) -> Jet {
        if o.d1 == 0.0 && o.d2 == 0.0 {
            let n = o.v;
            if self.d1 == 0.0 && self.d2 == 0.0 {
                return Jet::constant(self.v.powf(n));
            }
            return self.chain(
                self.v.powf(n),
                n * self.v.powf(n - 1.0),
                n * (n - 1.0) * self.v.powf(n - 2.0),
            );
        }
        o.mul(self.ln()).exp()
    }

    fn atan2(self, x: Jet) -> Jet {
        // d/dt atan2(y, x) = (x ẏ − y ẋ)/r², r² = x² + y²; the x′y′ terms of the next derivative cancel.
        let y = self;
        let r2 = x.v * x.v + y.v * y.v;
        let n = x.v * y.d1 - y.v * x.d1;
        let n1 = x.v * y.d2 - y.v * x.d2;
        let r2_1 = 2.0 * (x.v * x.d1 + y.v * y.d1);
        Jet {
            v: y.v.atan2(x.v),
            d1: n / r2,
            d2: (n1 * r2 - n * r2_1) / (r2 * r2),
        }
    }

    fn sin(self) -> Jet {
        let (s, c) = self.v.sin_cos();
        self.chain(s, c, -s)
    }

    fn cos(self) -> Jet {
        let (s, c) = self.v.sin_cos();
        self.chain(c, -s, -c)
    }

    fn tan(self) -> Jet {
        let t = self.v.tan();
        let sec2 = 1.0 + t * t;
        self.chain(t, sec2, 2.0 * t * sec2)
    }

    fn exp(self) -> Jet {
        let e = self.v.exp();
        self.chain(e, e, e)
    }

    fn ln(self) -> Jet {
        let x = self.v;
        self.chain(x.ln(), 1.0 / x, -1.0 / (x * x))
    }

    fn sqrt(self) -> Jet {
        let r = self.v.sqrt();
        self.chain(r, 0.5 / r, -0.25 / (r * self.v))
    }

    fn scaled_ln(self, base: f64) -> Jet {
        let l = base.ln();
        let x = self.v;
        self.chain(x.ln() / l, 1.0 / (x * l), -1.0 / (x * x * l))
    }

    fn flat(self, g: f64) -> Jet {
        Jet::constant(g)
    }
}

impl FromStr for Jet {
    type Err = std::num::ParseFloatError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse::<f64>().map(Jet::constant)
    }
}

fn bin(repr: &str, prio: i64, commutative: bool, apply: fn(Jet, Jet) -> Jet) -> Operator<'_, Jet> {
    Operator::make_bin(
        repr,
        BinOp {
            apply,
            prio,
            is_commutative: commutative,
        },
    )
}

/// Numeric literals with an optional decimal exponent: `2`, `0.5`, `.5`, `1e-3`, `2.5E+4`. (exmex's
/// default matcher stops before the exponent and reads `1e-3` as 1·e − 3, with e Euler's number.)
#[derive(Debug, Clone)]
pub struct Literal;

/// Length in bytes of the number at the start of `text` (0 if none).
pub(crate) fn number_len(text: &str) -> usize {
    let b = text.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = digits(0);
    let whole = i > 0;
    if i < b.len() && b[i] == b'.' {
        let j = digits(i + 1);
        if !whole && j == i + 1 {
            return 0;
        }
        i = j;
    } else if !whole {
        return 0;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let k = digits(j);
        if k > j {
            i = k;
        }
    }
    i
}

impl MatchLiteral for Literal {
    fn is_literal(text: &str) -> Option<&str> {
        match number_len(text) {
            0 => None,
            n => Some(&text[..n]),
        }
    }
}

/// The names of the functions an expression may call, for error messages.
pub const FUNCTIONS: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "exp", "ln", "log", "log2", "log10", "sqrt", "cbrt", "abs", "signum", "floor",
    "round", "ceil", "trunc", "fract", "min", "max",
];

/// The named constants an expression may use.
pub const CONSTANTS: &[&str] = &["PI", "π", "E", "e", "TAU", "τ"];

/// The operators and functions of an expression on jets: those of exmex's floating-point
/// expressions (same names and priorities), with their derivatives.
#[derive(Debug, Clone)]
pub struct JetOps;

impl MakeOperators<Jet> for JetOps {
    fn make<'a>() -> Vec<Operator<'a, Jet>> {
        let mut ops = arithmetic();
        ops.extend(trigonometric_and_hyperbolic());
        ops.extend(rounding_exponential_and_logarithmic());
        ops.extend(constants());
        ops
    }
}

/// `^ * / + -` (binary, and unary `+ -`), `atan2`, `min`, `max`, `abs` and `signum`.
fn arithmetic<'a>() -> Vec<Operator<'a, Jet>> {
    let unary = Operator::make_unary;
    vec![
        bin("^", 4, false, Jet::pow),
        bin("*", 2, true, Jet::mul),
        bin("/", 3, false, Jet::div),
        Operator::make_bin_unary(
            "+",
            BinOp {
                apply: Jet::add,
                prio: 0,
                is_commutative: true,
            },
            |a| a,
        ),
        Operator::make_bin_unary(
            "-",
            BinOp {
                apply: Jet::sub,
                prio: 1,
                is_commutative: false,
            },
            Jet::neg,
        ),
        bin("atan2", 0, false, Jet::atan2),
        bin("min", 0, false, |a, b| if b.v < a.v { b } else { a }),
        bin("max", 0, false, |a, b| if b.v > a.v { b } else { a }),
        unary("abs", |a| if a.v < 0.0 { a.neg() } else { a }),
        unary("signum", |a| a.flat(a.v.signum())),
    ]
}

/// The trigonometric and hyperbolic functions and their inverses.
fn trigonometric_and_hyperbolic<'a>() -> Vec<Operator<'a, Jet>> {
    let unary = Operator::make_unary;
    vec![
        unary("sin", Jet::sin),
        unary("cos", Jet::cos),
        unary("tan", Jet::tan),
        unary("asin", |a| {
            let r = 1.0 - a.v * a.v;
            a.chain(a.v.asin(), 1.0 / r.sqrt(), a.v / (r * r.sqrt()))
        }),
        unary("acos", |a| {
            let r = 1.0 - a.v * a.v;
            a.chain(a.v.acos(), -1.0 / r.sqrt(), -a.v / (r * r.sqrt()))
        }),
        unary("atan", |a| {
            let r = 1.0 + a.v * a.v;
            a.chain(a.v.atan(), 1.0 / r, -2.0 * a.v / (r * r))
        }),
        unary("sinh", |a| a.chain(a.v.sinh(), a.v.cosh(), a.v.sinh())),
        unary("cosh", |a| a.chain(a.v.cosh(), a.v.sinh(), a.v.cosh())),
        unary("tanh", |a| {
            let t = a.v.tanh();
            let s = 1.0 - t * t;
            a.chain(t, s, -2.0 * t * s)
        }),
        unary("asinh", |a| {
            let r = a.v * a.v + 1.0;
            a.chain(a.v.asinh(), 1.0 / r.sqrt(), -a.v / (r * r.sqrt()))
        }),
        unary("acosh", |a| {
            let r = a.v * a.v - 1.0;
            a.chain(a.v.acosh(), 1.0 / r.sqrt(), -a.v / (r * r.sqrt()))
        }),
        unary("atanh", |a| {
            let r = 1.0 - a.v * a.v;
            a.chain(a.v.atanh(), 1.0 / r, 2.0 * a.v / (r * r))
        }),
    ]
}

/// Rounding (`floor`, `round`, `ceil`, `trunc`, `fract`), `exp`, roots and logarithms.
fn rounding_exponential_and_logarithmic<'a>() -> Vec<Operator<'a, Jet>> {
    let unary = Operator::make_unary;
    vec![
        unary("floor", |a| a.flat(a.v.floor())),
        unary("round", |a| a.flat(a.v.round())),
        unary("ceil", |a| a.flat(a.v.ceil())),
        unary("trunc", |a| a.flat(a.v.trunc())),
        unary("fract", |a| Jet {
            v: a.v.fract(),
            ..a
        }),
        unary("exp", Jet::exp),
        unary("sqrt", Jet::sqrt),
        unary("cbrt", |a| {
            let c = a.v.cbrt();
            a.chain(c, 1.0 / (3.0 * c * c), -2.0 / (9.0 * c * c * c * c * c))
        }),
        unary("ln", Jet::ln),
        unary("log", Jet::ln),
        unary("log2", |a| a.scaled_ln(2.0)),
        unary("log10", |a| a.scaled_ln(10.0)),
    ]
}

/// The constants π (`PI`, `π`), e (`E`, `e`) and τ (`TAU`, `τ`).
fn constants<'a>() -> Vec<Operator<'a, Jet>> {
    use std::f64::consts::{E, PI, TAU};
    vec![
        Operator::make_constant("PI", Jet::constant(PI)),
        Operator::make_constant("π", Jet::constant(PI)),
        Operator::make_constant("E", Jet::constant(E)),
        Operator::make_constant("e", Jet::constant(E)),
        Operator::make_constant("TAU", Jet::constant(TAU)),
        Operator::make_constant("τ", Jet::constant(TAU)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every unary function's jet against central differences of its value.
    #[test]
    fn every_function_differentiates_like_finite_differences() {
        let ops = JetOps::make();
        let t = 0.37;
        // The argument u(t) = 0.3 + 0.5 t + 0.2 t² keeps every function's domain (acosh: shifted).
        for op in &ops {
            let Some(unary) = op.unary().ok() else {
                continue;
            };
            let name = op.repr();
            let shift = if name == "acosh" { 1.5 } else { 0.0 };
            let u = |t: f64| Jet {
                v: shift + 0.3 + 0.5 * t + 0.2 * t * t,
                d1: 0.5 + 0.4 * t,
                d2: 0.4,
            };
            let f = |t: f64| unary(u(t));
            let h = 1e-4;
            let (j, jp, jm) = (f(t), f(t + h), f(t - h));
            let d1 = (jp.v - jm.v) / (2.0 * h);
            let d2 = (jp.v - 2.0 * j.v + jm.v) / (h * h);
            assert!(
                (j.d1 - d1).abs() < 1e-6 * (1.0 + d1.abs()),
                "{name}: ḟ {} vs {d1}",
                j.d1
            );
            assert!(
                (j.d2 - d2).abs() < 1e-5 * (1.0 + d2.abs()),
                "{name}: f̈ {} vs {d2}",
                j.d2
            );
        }
    }

    #[test]
    fn literals_include_their_exponent() {
        for (text, n) in [
            ("2*t", 1),
            ("0.5)", 3),
            (".5", 2),
            ("1e-3*t", 4),
            ("2.5E+4", 6),
        ] {
            assert_eq!(number_len(text), n, "{text}");
        }
        assert_eq!(number_len("e"), 0);
        assert_eq!(number_len("."), 0);
        // `2e` is 2 followed by Euler's number's name, not an exponent.
        assert_eq!(number_len("2e"), 1);
    }

    #[test]
    fn binary_operations_follow_the_product_and_quotient_rules() {
        let (a, b) = (
            Jet {
                v: 1.3,
                d1: 0.4,
                d2: -0.2,
            },
            Jet {
                v: 0.7,
                d1: -0.3,
                d2: 0.5,
            },
        );
        // Along t: a(t) ≈ 1.3 + 0.4 t − 0.1 t², b(t) ≈ 0.7 − 0.3 t + 0.25 t²; differentiate the
        // combination numerically at t = 0.
        let at = |t: f64| 1.3 + 0.4 * t - 0.1 * t * t;
        let bt = |t: f64| 0.7 - 0.3 * t + 0.25 * t * t;
        type Reference = fn(f64, f64) -> f64;
        let cases: [(&str, Jet, Reference); 4] = [
            ("mul", a.mul(b), |x, y| x * y),
            ("div", a.div(b), |x, y| x / y),
            ("pow", a.pow(b), f64::powf),
            ("atan2", a.atan2(b), f64::atan2),
        ];
        let h = 1e-4;
        for (name, j, g) in cases {
            let f = |t: f64| g(at(t), bt(t));
            let d1 = (f(h) - f(-h)) / (2.0 * h);
            let d2 = (f(h) - 2.0 * f(0.0) + f(-h)) / (h * h);
            assert!((j.v - f(0.0)).abs() < 1e-15, "{name}");
            assert!((j.d1 - d1).abs() < 1e-7, "{name}: {} vs {d1}", j.d1);
            assert!((j.d2 - d2).abs() < 1e-5, "{name}: {} vs {d2}", j.d2);
        }
        // A constant integer power of a negative base, as powf.
        let c = Jet::variable(-2.0).pow(Jet::constant(3.0));
        assert_eq!((c.v, c.d1, c.d2), (-8.0, 12.0, -12.0));
    }
}
