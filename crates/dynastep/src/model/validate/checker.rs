//! The validator's working state and its shared checks: name lookups with suggestions, finite and
//! positive values, points, time functions. Each element's own rules are in the file of its kind.

use std::collections::BTreeMap;

use super::super::function::{FunctionSpec, TaggedFunction, TimeFunction};
use super::super::types::*;
use super::{suggest, Issue, PathSeg};

/// Builds paths concisely.
pub(super) fn p(segs: &[&dyn AsSeg]) -> Vec<PathSeg> {
    segs.iter().map(|s| s.seg()).collect()
}

pub(super) trait AsSeg {
    fn seg(&self) -> PathSeg;
}
impl AsSeg for &str {
    fn seg(&self) -> PathSeg {
        PathSeg::Key((*self).to_string())
    }
}
impl AsSeg for String {
    fn seg(&self) -> PathSeg {
        PathSeg::Key(self.clone())
    }
}
impl AsSeg for usize {
    fn seg(&self) -> PathSeg {
        PathSeg::Index(*self)
    }
}

/// The entity label used in messages, e.g. ``joint `B` `` or `joints\[3\]` for an unnamed one.
pub(super) fn label(kind: &str, array: &str, index: usize, name: &str) -> String {
    if name.is_empty() {
        format!("{array}[{index}]")
    } else {
        format!("{kind} `{name}`")
    }
}

/// Why `what` = `v` is not a positive, finite value, or `None`: the one wording of the rule, for
/// model files (`Checker::positive`) and for the settings a library caller builds (a step size in
/// `analysis::dynamic::check_settings`).
pub fn positive_problem(what: &str, v: f64) -> Option<String> {
    (!(v.is_finite() && v > 0.0)).then(|| format!("{what} must be positive and finite, got {v}"))
}

pub(super) struct Checker<'m> {
    pub(super) model: &'m Model,
    pub(super) issues: Vec<Issue>,
    /// Body name → index of its first definition.
    pub(super) bodies: BTreeMap<&'m str, usize>,
    /// Joint name → index of its first definition.
    pub(super) joints: BTreeMap<&'m str, usize>,
}

impl<'m> Checker<'m> {
    pub(super) fn push(&mut self, path: Vec<PathSeg>, entity: &str, message: String, hint: String) {
        self.issues.push(Issue {
            path,
            at_key: false,
            entity: Some(entity.to_string()).filter(|e| !e.is_empty()),
            message,
            hint,
        });
    }

    pub(super) fn body_names(&self, with_ground: bool) -> Vec<&'m str> {
        let mut v: Vec<&str> = self.bodies.keys().copied().collect();
        if with_ground {
            v.push(GROUND);
        }
        v
    }

    /// Checks that `name` is a body (or the ground when allowed); returns the body when it is one.
    pub(super) fn body_ref(
        &mut self,
        path: Vec<PathSeg>,
        entity: &str,
        name: &str,
        ground_ok: bool,
    ) -> Option<BodyRef<'m>> {
        if name == GROUND {
            if ground_ok {
                return Some(BodyRef::Ground(&self.model.ground.points));
            }
            self.push(
                path,
                entity,
                "cannot act on the ground, which does not move".into(),
                suggest(name, &self.body_names(false), "moving bodies"),
            );
            return None;
        }
        match self.bodies.get(name) {
            Some(&i) => Some(BodyRef::Body(&self.model.bodies[i])),
            None => {
                let hint = suggest(name, &self.body_names(ground_ok), "known bodies");
                self.push(path, entity, format!("unknown body `{name}`"), hint);
                None
            }
        }
    }

    /// Checks that `point` (default `origin`) exists on `body`.
    pub(super) fn point_ref(
        &mut self,
        path: Vec<PathSeg>,
        entity: &str,
        body: BodyRef<'m>,
        point: &str,
    ) {
        if point == "origin" {
            return;
        }
        let points = body.points();
        if points.contains_key(point) {
            return;
        }
        let mut known: Vec<&str> = points.keys().map(String::as_str).collect();
        if !known.contains(&"origin") {
            known.push("origin");
        }
        let hint = suggest(point, &known, &format!("points of {}", body.label()));
        self.push(
            path,
            entity,
            format!("{} has no point `{point}`", body.label()),
            hint,
        );
    }

    /// Whether `name` is a point mass of the model (false for the ground and unknown names).
    pub(super) fn is_point_mass(&self, name: &str) -> bool {
        self.bodies
            .get(name)
            .is_some_and(|&b| self.model.bodies[b].kind == BodyKind::Point)
    }

    /// Checks a joint reference; returns the joint.
    pub(super) fn joint_ref(
        &mut self,
        path: Vec<PathSeg>,
        entity: &str,
        name: &str,
    ) -> Option<&'m JointSpec> {
        match self.joints.get(name) {
            Some(&i) => Some(&self.model.joints[i]),
            None => {
                let known: Vec<&str> = self.joints.keys().copied().collect();
                let hint = suggest(name, &known, "known joints");
                self.push(path, entity, format!("unknown joint `{name}`"), hint);
                None
            }
        }
    }

    pub(super) fn function(&mut self, mut path: Vec<PathSeg>, entity: &str, f: &FunctionSpec) {
        if let Err(e) = TimeFunction::new(f) {
            // Point at the field at fault.
            let field = match f {
                FunctionSpec::Tagged(TaggedFunction::Expression { .. }) => Some("expr"),
                FunctionSpec::Tagged(TaggedFunction::SmoothStep { .. }) => Some("t1"),
                FunctionSpec::Tagged(TaggedFunction::Table { .. }) => Some("points"),
                _ => None,
            };
            path.extend(field.map(|f| PathSeg::Key(f.into())));
            self.push(
                path,
                entity,
                format!("invalid time function: {e}"),
                "see the time-function forms in docs/model-format.md".into(),
            );
        }
    }

    /// Refuses the `given` fields that only the other kind of model reads (`kind` is "planar"
    /// or "spatial", the kind that reads them); `path` gives each field's path.
    pub(super) fn other_kind_fields(
        &mut self,
        path: impl Fn(&str) -> Vec<PathSeg>,
        entity: &str,
        kind: &str,
        given: &[(&str, bool)],
        hint: &str,
    ) {
        for (field, _) in given.iter().filter(|(_, g)| *g) {
            self.push(
                path(field),
                entity,
                format!("`{field}` is read only in {kind} models"),
                format!("remove `{field}`; {hint}"),
            );
        }
    }

    /// The time functions that are given among `fields` (name, function), each checked by
    /// [`Checker::function`] at `path(name)`: the components of a force or torque.
    pub(super) fn optional_functions(
        &mut self,
        path: impl Fn(&str) -> Vec<PathSeg>,
        entity: &str,
        fields: &[(&str, &Option<FunctionSpec>)],
    ) {
        for (field, f) in fields {
            if let Some(f) = f {
                self.function(path(field), entity, f);
            }
        }
    }

    /// A spring's free length, when given: non-negative and finite (planar and spatial TSDAs).
    pub(super) fn free_length(&mut self, path: Vec<PathSeg>, entity: &str, l: Option<f64>) {
        if let Some(l) = l {
            if !(l.is_finite() && l >= 0.0) {
                self.push(
                    path,
                    entity,
                    format!("free_length must be non-negative and finite, got {l}"),
                    "give the unstretched length in m, or leave it out to use the initial distance"
                        .into(),
                );
            }
        }
    }

    /// Requires every entry of `values` finite and at most `geometry::ABSURD`
    /// (1e100) in size: no mechanism reaches it, and beyond it the arithmetic of the assembly fails.
    pub(super) fn finite(&mut self, path: Vec<PathSeg>, entity: &str, what: &str, values: &[f64]) {
        if values.iter().any(|v| !v.is_finite()) {
            self.push(
                path,
                entity,
                format!("{what} must be finite"),
                "write an ordinary number (not nan or inf)".into(),
            );
        } else if let Some(v) = values
            .iter()
            .find(|v| v.abs() > super::super::geometry::ABSURD)
        {
            // Lengths, points and gravity this large leave nothing for the arithmetic: the
            // assembly's SVD looped on a joint point at 9e307 m.
            let value = if values.len() == 1 {
                format!("{what} is {v:e}")
            } else {
                format!("{what} has a component of {v:e}")
            };
            self.push(
                path,
                entity,
                format!("{value}, beyond 1e100 in size"),
                "write it in SI units (m, m/s², s, …); no mechanism spans 1e100".into(),
            );
        }
    }

    /// Requires `v` positive, finite and at most `geometry::ABSURD` (1e100); `hint` says what to
    /// give.
    pub(super) fn positive(
        &mut self,
        path: Vec<PathSeg>,
        entity: &str,
        what: &str,
        v: f64,
        hint: &str,
    ) {
        if let Some(problem) = positive_problem(what, v) {
            self.push(path, entity, problem, hint.to_string());
        } else if v > super::super::geometry::ABSURD {
            // A mass or inertia of 1e308 overflowed the iteration matrix, and the run then
            // advised a smaller step.
            self.push(
                path,
                entity,
                format!("{what} is {v:e}, beyond 1e100 in size"),
                format!("{hint} (SI units; no mechanism needs 1e100)"),
            );
        }
    }

    pub(super) fn names<'a>(
        &mut self,
        array: &str,
        kind: &str,
        names: impl Iterator<Item = &'a str>,
    ) -> BTreeMap<&'a str, usize> {
        let mut seen = BTreeMap::new();
        for (i, name) in names.enumerate() {
            let path = p(&[&array, &i, &"name"]);
            if name.is_empty() {
                self.push(
                    path,
                    &format!("{array}[{i}]"),
                    format!("the {kind} name is empty"),
                    format!("give each {kind} a unique, non-empty name"),
                );
                continue;
            }
            if let Some(&first) = seen.get(name) {
                self.push(
                    path,
                    &label(kind, array, i, name),
                    format!("duplicate {kind} name `{name}` (also {array}[{first}])"),
                    format!("rename one of them: {kind} names must be unique"),
                );
            } else {
                seen.insert(name, i);
            }
        }
        seen
    }

    pub(super) fn points(
        &mut self,
        base: &[PathSeg],
        entity: &str,
        points: &BTreeMap<String, [f64; 2]>,
    ) {
        for (name, xy) in points {
            let mut path = base.to_vec();
            path.push(PathSeg::Key("points".into()));
            path.push(PathSeg::Key(name.clone()));
            self.finite(path.clone(), entity, &format!("point `{name}`"), xy);
            if name == "origin" && *xy != [0.0, 0.0] {
                self.push(
                    path,
                    entity,
                    "point `origin` is always the frame origin [0, 0]".into(),
                    "use another name for this point".into(),
                );
            }
        }
    }
}

#[derive(Clone, Copy)]
pub(super) enum BodyRef<'m> {
    Ground(&'m BTreeMap<String, [f64; 2]>),
    Body(&'m BodySpec),
}

impl<'m> BodyRef<'m> {
    pub(super) fn points(self) -> &'m BTreeMap<String, [f64; 2]> {
        match self {
            BodyRef::Ground(points) => points,
            BodyRef::Body(b) => &b.points,
        }
    }
    pub(super) fn label(self) -> String {
        match self {
            BodyRef::Ground(_) => "the ground".into(),
            BodyRef::Body(b) => format!("body `{}`", b.name),
        }
    }
    pub(super) fn is_point_mass(self) -> bool {
        matches!(self, BodyRef::Body(b) if b.kind == BodyKind::Point)
    }
}

impl BodyRef<'_> {
    /// The initial global position \[m\] of the body's point `point` (`origin` included), or
    /// `None` when it has no such point.
    pub(super) fn initial_position(self, point: &str) -> Option<[f64; 2]> {
        let local = match point {
            "origin" => Some([0.0, 0.0]),
            _ => self.points().get(point).copied(),
        }?;
        Some(match self {
            BodyRef::Ground(_) => local,
            BodyRef::Body(b) => b.initial_position(local),
        })
    }
}
