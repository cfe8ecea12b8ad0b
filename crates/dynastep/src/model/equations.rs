//! Equation-based models: M(q) q̈ = Q(q, q̇, t) with optional constraints Φ(q, t) = 0, written
//! directly as expressions in a few named generalized coordinates (the `[equations]` table).
//!
//! ```toml
//! [equations]
//! coordinates = ["theta"]
//! mass = [["m*L^2"]]
//! forces = ["-m*g*L*sin(theta)"]
//! potential = "-m*g*L*cos(theta)"
//!
//! [equations.parameters]
//! m = 1.0
//! L = 1.0
//! g = 9.81
//!
//! [equations.initial]
//! theta = 1.5707963267948966
//! ```
//!
//! An expression may use the coordinates, their rates `<coordinate>_dot`, the time `t`, the
//! parameters, the functions and constants of time-function expressions ([`super::function`]), the
//! operators `+ - * / ^` and numbers such as `1e-3`. Q must contain every generalized force,
//! including the velocity-dependent inertia terms of a configuration-dependent mass matrix
//! (−Ṁ q̇ + ½ ∂(q̇ᵀ M q̇)/∂q) and the conservative forces (−∂V/∂q). The derivatives the integrators
//! need are derived symbolically by exmex ([`crate::system::equations`]). An expression may also be
//! written as a bare number.
//!
//! This module holds the file's data and the checks that point at the expression and the character
//! at fault; [`crate::system::equations::EquationSystem`] compiles it.

// Units are written in brackets, as in the other model types; the doc strings become the JSON Schema.
#![allow(rustdoc::broken_intra_doc_links)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::jet::{number_len, CONSTANTS, FUNCTIONS};

/// Longest expression accepted, in characters.
pub const MAX_LEN: usize = 100_000;
/// Most distinct names one expression may use.
pub const MAX_NAMES: usize = 64;

/// The `[equations]` table (see the module documentation).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EquationSpec {
    /// Names of the n generalized coordinates [m or rad]; their rates are `<name>_dot`.
    pub coordinates: Vec<String>,
    /// Named constants the expressions may use, in SI units.
    #[serde(default)]
    pub parameters: BTreeMap<String, f64>,
    /// The symmetric, positive definite mass matrix M(q), n rows of n expressions [kg, kg m, kg m²].
    pub mass: Vec<Vec<Expression>>,
    /// The generalized forces Q(q, q̇, t), n expressions [N or N m].
    pub forces: Vec<Expression>,
    /// The constraints Φ(q, t) = 0, m expressions (none for an ODE).
    #[serde(default)]
    pub constraints: Vec<Expression>,
    /// The potential energy V(q, t) of the conservative forces included in Q [J], for the energy
    /// balance; 0 when absent.
    #[serde(default)]
    pub potential: Option<Expression>,
    /// Initial values by name: a coordinate or a `<coordinate>_dot`; those not given are 0.
    #[serde(default)]
    pub initial: BTreeMap<String, f64>,
}

/// An expression, or a bare number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Expression {
    /// A constant.
    Number(f64),
    /// A formula (see the module documentation).
    Text(String),
}

impl Expression {
    /// The formula as text (a number in Rust's shortest round-trip form).
    pub fn text(&self) -> String {
        match self {
            Expression::Number(x) => format!("{x:?}"),
            Expression::Text(s) => s.clone(),
        }
    }
}

/// A problem found in an `[equations]` table: where (a path below `equations`) and what.
#[derive(Debug, Clone, PartialEq)]
pub struct EquationIssue {
    /// Keys and indices below `equations`, e.g. `["forces", "1"]`.
    pub path: Vec<PathItem>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

/// A step of an [`EquationIssue`]'s path.
#[derive(Debug, Clone, PartialEq)]
pub enum PathItem {
    /// A key.
    Key(String),
    /// An array index.
    Index(usize),
}

impl EquationSpec {
    /// The names an expression may use as variables: coordinates, their rates, `t`, parameters.
    pub fn variable_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.coordinates.clone();
        v.extend(self.coordinates.iter().map(|c| format!("{c}_dot")));
        v.push("t".into());
        v.extend(self.parameters.keys().cloned());
        v
    }

    /// Every expression with its path, in the order M (row-major), Q, Φ, V.
    pub fn expressions(&self) -> Vec<(Vec<PathItem>, &Expression)> {
        let key = |k: &str| PathItem::Key(k.into());
        let mut out = Vec::new();
        for (i, row) in self.mass.iter().enumerate() {
            for (j, e) in row.iter().enumerate() {
                out.push((vec![key("mass"), PathItem::Index(i), PathItem::Index(j)], e));
            }
        }
        for (i, e) in self.forces.iter().enumerate() {
            out.push((vec![key("forces"), PathItem::Index(i)], e));
        }
        for (i, e) in self.constraints.iter().enumerate() {
            out.push((vec![key("constraints"), PathItem::Index(i)], e));
        }
        if let Some(e) = &self.potential {
            out.push((vec![key("potential")], e));
        }
        out
    }

    /// Every problem of the table: names (unique identifiers, no clash with functions, constants,
    /// `t` or a rate), shapes (M n × n, Q n entries), finite parameters and initial values, and each
    /// expression's names and parentheses, with the character at fault.
    pub fn check(&self) -> Vec<EquationIssue> {
        let mut issues = Vec::new();
        let key = |k: &str| vec![PathItem::Key(k.into())];
        let n = self.coordinates.len();
        if n == 0 {
            issues.push(issue(
                key("coordinates"),
                "no coordinates".into(),
                "name at least one generalized coordinate, e.g. coordinates = [\"theta\"]".into(),
            ));
        }
        let mut seen: Vec<&str> = Vec::new();
        let names = self
            .coordinates
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    vec![PathItem::Key("coordinates".into()), PathItem::Index(i)],
                    c,
                )
            })
            .chain(self.parameters.keys().map(|p| {
                (
                    vec![PathItem::Key("parameters".into()), PathItem::Key(p.clone())],
                    p,
                )
            }));
        for (path, name) in names {
            if let Some(reason) = bad_name(name, &self.coordinates) {
                issues.push(issue(
                    path,
                    format!("the name `{name}` {reason}"),
                    "choose another name (letters, digits and _, starting with a letter)".into(),
                ));
            } else if seen.contains(&name.as_str()) {
                issues.push(issue(
                    path,
                    format!("`{name}` is defined more than once"),
                    "coordinates and parameters share one set of names; rename one".into(),
                ));
            }
            seen.push(name);
        }
        for (p, x) in &self.parameters {
            if !x.is_finite() {
                issues.push(issue(
                    vec![PathItem::Key("parameters".into()), PathItem::Key(p.clone())],
                    format!("parameter `{p}` = {x} is not finite"),
                    "give a finite number".into(),
                ));
            }
        }
        self.check_shapes(n, &mut issues);
        self.check_initial(&mut issues);
        let variables = self.variable_names();
        for (path, e) in self.expressions() {
            if let Err((message, hint)) = check_expression(&e.text(), &variables) {
                issues.push(issue(path, message, hint));
            }
        }
        issues
    }

    fn check_shapes(&self, n: usize, issues: &mut Vec<EquationIssue>) {
        let key = |k: &str| vec![PathItem::Key(k.into())];
        if self.mass.len() != n {
            issues.push(issue(
                key("mass"),
                format!(
                    "the mass matrix has {} rows for {n} coordinates",
                    self.mass.len()
                ),
                "write one row of n expressions per coordinate".into(),
            ));
        }
        for (i, row) in self.mass.iter().enumerate() {
            if row.len() != n {
                issues.push(issue(
                    vec![PathItem::Key("mass".into()), PathItem::Index(i)],
                    format!(
                        "row {i} of the mass matrix has {} entries for {n} coordinates",
                        row.len()
                    ),
                    "write n expressions per row (0 where M has no entry)".into(),
                ));
            }
        }
        if self.forces.len() != n {
            issues.push(issue(
                key("forces"),
                format!(
                    "{} generalized forces for {n} coordinates",
                    self.forces.len()
                ),
                "write one expression of Q per coordinate (0 where there is none)".into(),
            ));
        }
    }

    fn check_initial(&self, issues: &mut Vec<EquationIssue>) {
        let known: Vec<String> = self
            .coordinates
            .iter()
            .cloned()
            .chain(self.coordinates.iter().map(|c| format!("{c}_dot")))
            .collect();
        for (k, x) in &self.initial {
            let path = vec![PathItem::Key("initial".into()), PathItem::Key(k.clone())];
            if !known.contains(k) {
                let list: Vec<&str> = known.iter().map(String::as_str).collect();
                issues.push(issue(
                    path,
                    format!("`{k}` is neither a coordinate nor a coordinate rate"),
                    super::validate::suggest(k, &list, "coordinates and rates"),
                ));
            } else if !x.is_finite() {
                issues.push(issue(
                    path,
                    format!("`{k}` = {x} is not finite"),
                    "give a finite number".into(),
                ));
            }
        }
    }
}

fn issue(path: Vec<PathItem>, message: String, hint: String) -> EquationIssue {
    EquationIssue {
        path,
        message,
        hint,
    }
}

/// Why `name` cannot name a coordinate or parameter, if it cannot.
fn bad_name(name: &str, coordinates: &[String]) -> Option<String> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_alphabetic());
    if !first_ok || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Some("is not an identifier".into());
    }
    if name == "t" {
        return Some("is the time".into());
    }
    if FUNCTIONS.contains(&name) || CONSTANTS.contains(&name) {
        return Some("is a function or constant of the expressions".into());
    }
    if let Some(c) = name.strip_suffix("_dot") {
        if coordinates.iter().any(|x| x == c) {
            return Some(format!("is the rate of the coordinate `{c}`"));
        }
    }
    None
}

/// Checks one expression: length, balanced parentheses and known names, each problem with its
/// character (1-based). Returns (message, hint).
pub fn check_expression(expr: &str, variables: &[String]) -> Result<(), (String, String)> {
    let shown = abbreviate(expr);
    check_size(expr)?;
    let mut depth = 0i64;
    let mut distinct: Vec<&str> = Vec::new();
    let mut i = 0;
    let mut char_no = 0;
    while let Some(c) = expr[i..].chars().next() {
        char_no += 1;
        if c.is_ascii_digit() || c == '.' {
            let l = number_len(&expr[i..]).max(1);
            char_no += expr[i..i + l].chars().count() - 1;
            i += l;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let (name, called) = known_name(&expr[i..], variables, char_no, &shown)?;
            if !called && !distinct.contains(&name) {
                distinct.push(name);
            }
            char_no += name.chars().count() - 1;
            i += name.len();
            continue;
        }
        check_symbol(c, &mut depth, char_no, &shown)?;
        i += c.len_utf8();
    }
    if depth > 0 {
        return Err((
            format!("{depth} parenthesis(es) left open at the end of `{shown}`"),
            "close every `(`".into(),
        ));
    }
    if distinct.len() > MAX_NAMES {
        return Err((
            format!(
                "the expression uses {} names, more than {MAX_NAMES}",
                distinct.len()
            ),
            "split it".into(),
        ));
    }
    Ok(())
}

/// An expression of at most `MAX_LEN` characters, not blank.
fn check_size(expr: &str) -> Result<(), (String, String)> {
    let len = expr.chars().count();
    if len > MAX_LEN {
        return Err((
            format!("the expression has {len} characters, more than {MAX_LEN}"),
            "split it with parameters or simplify it".into(),
        ));
    }
    if expr.trim().is_empty() {
        return Err((
            "the expression is empty".into(),
            "write 0 for a zero entry".into(),
        ));
    }
    Ok(())
}

/// The name at the start of `rest` (character `char_no` of `shown`) and whether it is called: a
/// known function when called, else a constant or one of `variables`.
fn known_name<'e>(
    rest: &'e str,
    variables: &[String],
    char_no: usize,
    shown: &str,
) -> Result<(&'e str, bool), (String, String)> {
    let l = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..l];
    let called = rest[l..].trim_start().starts_with('(');
    let known = if called {
        FUNCTIONS.contains(&name)
    } else {
        CONSTANTS.contains(&name) || variables.iter().any(|v| v == name)
    };
    if !known {
        let what = if called { "function" } else { "name" };
        let list: Vec<&str> = if called {
            FUNCTIONS.to_vec()
        } else {
            variables.iter().map(String::as_str).collect()
        };
        return Err((
            format!("unknown {what} `{name}` at character {char_no} of `{shown}`"),
            super::validate::suggest(name, &list, if called { "functions" } else { "names" }),
        ));
    }
    Ok((name, called))
}

/// A parenthesis (tracked in `depth`), an operator, a comma or a blank at character `char_no` of
/// `shown`; anything else is an error.
fn check_symbol(
    c: char,
    depth: &mut i64,
    char_no: usize,
    shown: &str,
) -> Result<(), (String, String)> {
    match c {
        '(' => *depth += 1,
        ')' => {
            *depth -= 1;
            if *depth < 0 {
                return Err((
                    format!("unmatched `)` at character {char_no} of `{shown}`"),
                    "remove it or open a parenthesis before it".into(),
                ));
            }
        }
        '+' | '-' | '*' | '/' | '^' | ',' | ' ' | '\t' => {}
        _ => {
            return Err((
                format!("unexpected character `{c}` at character {char_no} of `{shown}`"),
                "expressions use + - * / ^, parentheses, numbers, names and function calls".into(),
            ))
        }
    }
    Ok(())
}

/// The first 80 characters of a long expression.
fn abbreviate(expr: &str) -> String {
    match expr.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &expr[..i]),
        None => expr.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vec<String> {
        vec!["theta".into(), "theta_dot".into(), "t".into(), "m".into()]
    }

    #[test]
    fn names_and_characters_are_pointed_at() {
        let (m, _) = check_expression("m*sin(thetadot)", &vars()).unwrap_err();
        assert_eq!(
            m,
            "unknown name `thetadot` at character 7 of `m*sin(thetadot)`"
        );
        let (m, _) = check_expression("m*sine(theta)", &vars()).unwrap_err();
        assert!(
            m.starts_with("unknown function `sine` at character 3"),
            "{m}"
        );
        let (m, _) = check_expression("2.5e-3*theta)", &vars()).unwrap_err();
        assert!(m.starts_with("unmatched `)` at character 13"), "{m}");
        let (m, _) = check_expression("m*(theta", &vars()).unwrap_err();
        assert!(m.contains("left open"), "{m}");
        let (m, _) = check_expression("m # theta", &vars()).unwrap_err();
        assert!(m.contains("`#` at character 3"), "{m}");
        assert!(check_expression("-m*9.81*sin(theta) + 1e-3*theta_dot^2*PI", &vars()).is_ok());
    }

    #[test]
    fn clashing_names_are_refused() {
        let spec = EquationSpec {
            coordinates: vec!["x".into(), "sin".into(), "x".into()],
            parameters: [("x_dot".to_string(), 1.0), ("e".to_string(), 2.0)]
                .into_iter()
                .collect(),
            mass: vec![],
            forces: vec![],
            ..Default::default()
        };
        let messages: Vec<String> = spec.check().into_iter().map(|i| i.message).collect();
        let text = messages.join("\n");
        for want in [
            "`sin` is a function",
            "`x` is defined more than once",
            "`x_dot` is the rate of the coordinate `x`",
            "`e` is a function or constant",
            "0 rows for 3 coordinates",
            "0 generalized forces",
        ] {
            assert!(text.contains(want), "missing {want}: {text}");
        }
    }
}
