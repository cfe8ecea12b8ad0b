//! Semantic checks of a [`Model`]: names that must refer to something, values that must be in range.
//!
//! [`check`] looks at a model that deserialized without error and returns every problem it finds, each
//! with the path of the offending value (e.g. `joints\[2\].body_j`). The file reader
//! ([`super::parse`]) turns these paths into file, line and column; models built in code can call
//! [`check`] directly, and the assembler ([`crate::system::planar::PlanarSystem::new`]) calls
//! [`check_elements`] before it builds anything: every rule of a model lives here, once.
//!
//! One file per kind of entry: `bodies.rs`, `joints.rs`, `drivers.rs`, `forces.rs`, `markers.rs`,
//! `equations.rs`, `solver.rs`; `checker.rs` holds the shared lookups and value checks. A new kind
//! of element adds a file and a line in [`check_elements`].

mod bodies;
mod checker;
mod drivers;
mod equations;
mod forces;
mod joints;
mod markers;
mod solver;
pub use checker::positive_problem;
pub use solver::{span_problem, DEFAULT_FORMULATION};
mod spatial;

use std::collections::BTreeMap;
use std::fmt;

use self::checker::{p, Checker};
use super::types::*;

/// One step of a path into the model document: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSeg {
    /// A key of a table (a field name, or a name in a map such as `points` or `params`).
    Key(String),
    /// An element of an array (0-based).
    Index(usize),
}

/// Writes a path as `joints\[2\].body_j`.
pub fn path_string(path: &[PathSeg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                let bare = !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if bare {
                    s.push_str(k);
                } else {
                    s.push_str(&format!("{k:?}"));
                }
            }
            PathSeg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// A semantic problem in a model.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    /// Where the offending value is (or would be, for a missing field) in the model document.
    pub path: Vec<PathSeg>,
    /// Whether the key at `path` is at fault rather than its value (e.g. an unknown parameter name).
    pub at_key: bool,
    /// The entity concerned, e.g. ``joint `B` ``.
    pub entity: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", path_string(&self.path))?;
        if let Some(e) = &self.entity {
            write!(f, "{e}: ")?;
        }
        write!(f, "{}", self.message)?;
        if !self.hint.is_empty() {
            write!(f, " (help: {})", self.hint)?;
        }
        Ok(())
    }
}

/// Levenshtein distance between two strings, counted in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// A hint naming the valid choices, closest to `wanted` first, led by "did you mean `x`?" when one is
/// within edit distance 2 (and closer than the length of `wanted`, so that `a` does not suggest `b`).
///
/// `what` names the choices in the plural, e.g. "known bodies". An empty `known` gives "there are no
/// {what}".
pub fn suggest(wanted: &str, known: &[&str], what: &str) -> String {
    if known.is_empty() {
        return format!("there are no {what}");
    }
    let mut ranked: Vec<(usize, &str)> = known
        .iter()
        .map(|k| (edit_distance(wanted, k), *k))
        .collect();
    ranked.sort();
    ranked.dedup();
    const SHOWN: usize = 20;
    let mut list = ranked
        .iter()
        .take(SHOWN)
        .map(|(_, k)| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if ranked.len() > SHOWN {
        list.push_str(&format!(" and {} more", ranked.len() - SHOWN));
    }
    let (d, best) = ranked[0];
    if d <= 2 && d < wanted.chars().count() {
        format!("did you mean `{best}`? {what}: {list}")
    } else {
        format!("{what}: {list}")
    }
}

/// Checks a deserialized model and returns every semantic problem found (empty when the model is
/// valid): unknown or duplicate names, out-of-range values, time functions that do not compile,
/// geometry that cannot be built (see [`check_elements`]), unknown schemes and parameters,
/// inconsistent solver times.
pub fn check(model: &Model) -> Vec<Issue> {
    let mut c = checker(model);
    elements(&mut c, model);
    if let Some(spec) = &model.equations {
        equations::check(&mut c, model, spec);
    }
    solver::check(&mut c, &model.solver, false);
    c.issues
}

/// The rules of `[solver]` alone, the same [`check`] applies to a file, on settings merged from a
/// model and run options (`analysis::simulation::RunOptions::overlay`): what a run checks before
/// it starts, so that every run setting has one rule wherever it comes from.
pub fn check_solver(solver: &SolverSpec) -> Vec<Issue> {
    let model = Model::default();
    let mut c = checker(&model);
    solver::check(&mut c, solver, true);
    c.issues
}

/// The checks of what the model describes, without its `[solver]` settings: gravity, the ground's
/// points, bodies, joints, drivers, forces and markers (not the `[equations]` table, which its
/// own system checks). Empty when the assembler can build every element.
pub fn check_elements(model: &Model) -> Vec<Issue> {
    let mut c = checker(model);
    elements(&mut c, model);
    c.issues
}

fn checker(model: &Model) -> Checker<'_> {
    Checker {
        model,
        issues: Vec::new(),
        bodies: BTreeMap::new(),
        joints: BTreeMap::new(),
    }
}

/// Gravity, the ground and every element, in file order of the kinds.
fn elements<'m>(c: &mut Checker<'m>, model: &'m Model) {
    if let Some(spec) = &model.spatial {
        spatial::check(c, model, spec);
        return;
    }
    c.finite(p(&[&"gravity"]), "", "gravity", &model.gravity);
    c.points(&p(&[&"ground"]), "ground", &model.ground.points);
    bodies::check(c, model);
    joints::check(c, model);
    drivers::check(c, model);
    forces::check(c, model);
    markers::check(c, model);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("crank", "crnk"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        let h = suggest("crnk", &["rod", "crank", "slider"], "known bodies");
        assert!(h.starts_with("did you mean `crank`?"), "{h}");
        assert!(h.find("`crank`, `rod`").is_some(), "{h}");
        let h = suggest("a", &["b"], "known joints");
        assert!(!h.contains("did you mean"), "{h}");
        assert_eq!(
            suggest("a", &[], "known joints"),
            "there are no known joints"
        );
    }

    #[test]
    fn path_strings() {
        let path = vec![
            PathSeg::Key("joints".into()),
            PathSeg::Index(2),
            PathSeg::Key("body_j".into()),
        ];
        assert_eq!(path_string(&path), "joints[2].body_j");
        assert_eq!(path_string(&[PathSeg::Key("a.b".into())]), "\"a.b\"");
    }
}
