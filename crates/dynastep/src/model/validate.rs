//! Semantic checks of a [`Model`]: names that must refer to something, values that must be in range.
//!
//! [`check`] looks at a model that deserialized without error and returns every problem it finds, each
//! with the path of the offending value (e.g. `joints\[2\].body_j`). The file reader
//! ([`super::parse`]) turns these paths into file, line and column; models built in code can call
//! [`check`] directly.

use std::collections::BTreeMap;
use std::fmt;

use super::function::{FunctionSpec, TaggedFunction, TimeFunction};
use super::types::*;
use crate::scheme as registry;

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

/// Builds paths concisely.
fn p(segs: &[&dyn AsSeg]) -> Vec<PathSeg> {
    segs.iter().map(|s| s.seg()).collect()
}

trait AsSeg {
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
fn label(kind: &str, array: &str, index: usize, name: &str) -> String {
    if name.is_empty() {
        format!("{array}[{index}]")
    } else {
        format!("{kind} `{name}`")
    }
}

struct Checker<'m> {
    model: &'m Model,
    issues: Vec<Issue>,
    /// Body name → index of its first definition.
    bodies: BTreeMap<&'m str, usize>,
    /// Joint name → index of its first definition.
    joints: BTreeMap<&'m str, usize>,
}

impl<'m> Checker<'m> {
    fn push(&mut self, path: Vec<PathSeg>, entity: &str, message: String, hint: String) {
        self.issues.push(Issue {
            path,
            at_key: false,
            entity: Some(entity.to_string()).filter(|e| !e.is_empty()),
            message,
            hint,
        });
    }

    fn body_names(&self, with_ground: bool) -> Vec<&'m str> {
        let mut v: Vec<&str> = self.bodies.keys().copied().collect();
        if with_ground {
            v.push(GROUND);
        }
        v
    }

    /// Checks that `name` is a body (or the ground when allowed); returns the body when it is one.
    fn body_ref(
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
    fn point_ref(&mut self, path: Vec<PathSeg>, entity: &str, body: BodyRef<'m>, point: &str) {
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

    /// Checks a joint reference; returns the joint.
    fn joint_ref(&mut self, path: Vec<PathSeg>, entity: &str, name: &str) -> Option<&'m JointSpec> {
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

    fn function(&mut self, mut path: Vec<PathSeg>, entity: &str, f: &FunctionSpec) {
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

    fn finite(&mut self, path: Vec<PathSeg>, entity: &str, what: &str, values: &[f64]) {
        if values.iter().any(|v| !v.is_finite()) {
            self.push(
                path,
                entity,
                format!("{what} must be finite"),
                "write an ordinary number (not nan or inf)".into(),
            );
        }
    }

    /// Requires `v` positive and finite; `hint` says what to give.
    fn positive(&mut self, path: Vec<PathSeg>, entity: &str, what: &str, v: f64, hint: &str) {
        if !(v.is_finite() && v > 0.0) {
            self.push(
                path,
                entity,
                format!("{what} must be positive and finite, got {v}"),
                hint.to_string(),
            );
        }
    }

    fn names<'a>(
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

    fn points(&mut self, base: &[PathSeg], entity: &str, points: &BTreeMap<String, [f64; 2]>) {
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
enum BodyRef<'m> {
    Ground(&'m BTreeMap<String, [f64; 2]>),
    Body(&'m BodySpec),
}

impl<'m> BodyRef<'m> {
    fn points(self) -> &'m BTreeMap<String, [f64; 2]> {
        match self {
            BodyRef::Ground(points) => points,
            BodyRef::Body(b) => &b.points,
        }
    }
    fn label(self) -> String {
        match self {
            BodyRef::Ground(_) => "the ground".into(),
            BodyRef::Body(b) => format!("body `{}`", b.name),
        }
    }
    fn is_point_mass(self) -> bool {
        matches!(self, BodyRef::Body(b) if b.kind == BodyKind::Point)
    }
}

/// Checks a deserialized model and returns every semantic problem found (empty when the model is
/// valid): unknown or duplicate names, out-of-range values, time functions that do not compile,
/// unknown schemes and parameters, inconsistent solver times.
pub fn check(model: &Model) -> Vec<Issue> {
    let mut c = Checker {
        model,
        issues: Vec::new(),
        bodies: BTreeMap::new(),
        joints: BTreeMap::new(),
    };
    c.finite(p(&[&"gravity"]), "", "gravity", &model.gravity);
    let ground_points = &model.ground.points;
    c.points(&p(&[&"ground"]), "ground", ground_points);
    // Where the ground itself would also have a point `origin`, there is nothing more to check.

    // Bodies.
    c.bodies = c.names(
        "bodies",
        "body",
        model.bodies.iter().map(|b| b.name.as_str()),
    );
    for (i, b) in model.bodies.iter().enumerate() {
        let e = label("body", "bodies", i, &b.name);
        let at = |f: &str| p(&[&"bodies", &i, &f]);
        if b.name == GROUND {
            c.push(
                at("name"),
                &e,
                "a body may not be named `ground`".into(),
                "the ground is implicit (its points go in [ground.points]); rename the body".into(),
            );
        }
        c.positive(
            at("mass"),
            &e,
            "mass",
            b.mass,
            "give the mass in kg, e.g. `mass = 1.0`",
        );
        match (b.kind, b.inertia) {
            (BodyKind::Rigid, None) => c.push(
                at("inertia"),
                &e,
                "a rigid body needs an `inertia`".into(),
                "add `inertia = <moment of inertia about the centre of mass in kg m²>`, or set `kind = \"point\"` for a point mass".into(),
            ),
            (BodyKind::Rigid, Some(j)) => c.positive(at("inertia"), &e, "inertia", j, "give the moment of inertia about the centre of mass in kg m²"),
            (BodyKind::Point, Some(_)) => c.push(
                at("inertia"),
                &e,
                "a point mass has no inertia".into(),
                "remove `inertia`, or set `kind = \"rigid\"`".into(),
            ),
            (BodyKind::Point, None) => {}
        }
        for (f, v) in [
            ("x", b.x),
            ("y", b.y),
            ("theta", b.theta),
            ("vx", b.vx),
            ("vy", b.vy),
            ("omega", b.omega),
        ] {
            c.finite(at(f), &e, &format!("`{f}`"), &[v]);
        }
        c.finite(at("com"), &e, "`com`", &b.com);
        c.points(&p(&[&"bodies", &i]), &e, &b.points);
        if b.kind == BodyKind::Point {
            for field in ["given", "given_velocity"] {
                let list = if field == "given" {
                    &b.given
                } else {
                    &b.given_velocity
                };
                for (k, coord) in list.iter().enumerate() {
                    if *coord == Coordinate::Theta {
                        c.push(
                            p(&[&"bodies", &i, &field, &k]),
                            &e,
                            format!("`{field}` lists `theta`, but a point mass has no rotation"),
                            "a point mass has coordinates x and y only; remove `theta`".into(),
                        );
                    }
                }
            }
        }
    }

    // Joints.
    c.joints = c.names(
        "joints",
        "joint",
        model.joints.iter().map(|j| j.name.as_str()),
    );
    for (i, j) in model.joints.iter().enumerate() {
        let e = label("joint", "joints", i, &j.name);
        let at = |f: &str| p(&[&"joints", &i, &f]);
        let bi = c.body_ref(at("body_i"), &e, &j.body_i, true);
        let bj = c.body_ref(at("body_j"), &e, &j.body_j, true);
        if let Some(b) = bi {
            c.point_ref(
                at("point_i"),
                &e,
                b,
                j.point_i.as_deref().unwrap_or("origin"),
            );
        }
        if let Some(b) = bj {
            c.point_ref(
                at("point_j"),
                &e,
                b,
                j.point_j.as_deref().unwrap_or("origin"),
            );
        }
        if j.body_i == j.body_j {
            c.push(
                at("body_j"),
                &e,
                format!("joins body `{}` to itself", j.body_j),
                "body_i and body_j must be different bodies".into(),
            );
        }
        match (j.kind, j.axis) {
            (JointKind::Prismatic, Some(a)) => {
                let len = a[0].hypot(a[1]);
                if !(len.is_finite() && len > 0.0) {
                    c.push(
                        at("axis"),
                        &e,
                        format!("the prismatic axis [{}, {}] has no direction", a[0], a[1]),
                        "give a non-zero, finite direction in the frame of body i, e.g. `axis = [1.0, 0.0]`".into(),
                    );
                }
            }
            (JointKind::Prismatic, None) => {}
            (_, Some(_)) => c.push(
                at("axis"),
                &e,
                "`axis` applies to prismatic joints only".into(),
                "remove `axis`, or set `type = \"prismatic\"`".into(),
            ),
            (_, None) => {}
        }
        match (j.kind, j.length) {
            (JointKind::Distance, Some(l)) => c.positive(
                at("length"),
                &e,
                "length",
                l,
                "give the rod length in m, or leave it out to use the initial distance",
            ),
            (_, Some(_)) => c.push(
                at("length"),
                &e,
                "`length` applies to distance joints only".into(),
                "remove `length`, or set `type = \"distance\"`".into(),
            ),
            (_, None) => {}
        }
        if j.given {
            let point_mass = [bi, bj].into_iter().flatten().any(|b| b.is_point_mass());
            let holds = match j.kind {
                JointKind::Revolute => !point_mass,
                JointKind::Prismatic => true,
                JointKind::Fixed | JointKind::Distance => false,
            };
            if !holds {
                c.push(
                    at("given"),
                    &e,
                    "`given` holds the value of a revolute joint between rigid bodies or of a prismatic joint".into(),
                    "remove `given`, or mark body coordinates as given (`given = [\"theta\"]` on the body)".into(),
                );
            }
        }
    }

    // Drivers.
    c.names(
        "drivers",
        "driver",
        model.drivers.iter().map(|d| d.name.as_str()),
    );
    for (i, d) in model.drivers.iter().enumerate() {
        let e = label("driver", "drivers", i, &d.name);
        let at = |f: &str| p(&[&"drivers", &i, &f]);
        match d.kind {
            DriverKind::Joint => {
                match &d.joint {
                    None => c.push(
                        at("joint"),
                        &e,
                        "a joint driver needs `joint`".into(),
                        "add `joint = \"<name of a revolute or prismatic joint>\"`".into(),
                    ),
                    Some(name) => {
                        if let Some(j) = c.joint_ref(at("joint"), &e, name) {
                            match j.kind {
                                JointKind::Distance | JointKind::Fixed => c.push(
                                    at("joint"),
                                    &e,
                                    format!(
                                        "joint `{name}` is a {} joint, which has no value to drive",
                                        if j.kind == JointKind::Fixed { "fixed" } else { "distance" }
                                    ),
                                    "drive a revolute or prismatic joint (or give a distance joint its `length`)".into(),
                                ),
                                JointKind::Revolute => {
                                    for body in [&j.body_i, &j.body_j] {
                                        if let Some(&bi) = c.bodies.get(body.as_str()) {
                                            if model.bodies[bi].kind == BodyKind::Point {
                                                c.push(
                                                    at("joint"),
                                                    &e,
                                                    format!("revolute joint `{name}` connects point mass `{body}`, which has no rotation to drive"),
                                                    "drive a joint between rigid bodies, or use a coordinate driver".into(),
                                                );
                                            }
                                        }
                                    }
                                }
                                JointKind::Prismatic => {}
                            }
                        }
                    }
                }
                for f in ["body", "coordinate"] {
                    let given = if f == "body" {
                        d.body.is_some()
                    } else {
                        d.coordinate.is_some()
                    };
                    if given {
                        c.push(
                            at(f),
                            &e,
                            format!("`{f}` is not used by a joint driver"),
                            format!("remove `{f}`, or set `type = \"coordinate\"`"),
                        );
                    }
                }
            }
            DriverKind::Coordinate => {
                let body = match &d.body {
                    None => {
                        let hint = format!(
                            "add `body = \"<name>\"`; {}",
                            suggest("", &c.body_names(false), "known bodies")
                        );
                        c.push(
                            at("body"),
                            &e,
                            "a coordinate driver needs `body`".into(),
                            hint,
                        );
                        None
                    }
                    Some(name) => c.body_ref(at("body"), &e, name, false),
                };
                match d.coordinate {
                    None => c.push(
                        at("coordinate"),
                        &e,
                        "a coordinate driver needs `coordinate`".into(),
                        "add `coordinate = \"x\"`, `\"y\"` or `\"theta\"`".into(),
                    ),
                    Some(Coordinate::Theta) if body.is_some_and(|b| b.is_point_mass()) => c.push(
                        at("coordinate"),
                        &e,
                        format!(
                            "drives `theta`, but body `{}` is a point mass and has no rotation",
                            d.body.as_deref().unwrap_or_default()
                        ),
                        "drive `x` or `y`, or make the body rigid".into(),
                    ),
                    Some(_) => {}
                }
                if d.joint.is_some() {
                    c.push(
                        at("joint"),
                        &e,
                        "`joint` is not used by a coordinate driver".into(),
                        "remove `joint`, or set `type = \"joint\"`".into(),
                    );
                }
            }
        }
        c.function(at("function"), &e, &d.function);
    }

    // Forces.
    let force_names = model.forces.iter().map(|f| match f {
        ForceSpec::Tsda { name, .. }
        | ForceSpec::Rsda { name, .. }
        | ForceSpec::Force { name, .. }
        | ForceSpec::Torque { name, .. } => name.as_str(),
    });
    c.names("forces", "force", force_names);
    for (i, f) in model.forces.iter().enumerate() {
        let at = |f: &str| p(&[&"forces", &i, &f]);
        match f {
            ForceSpec::Tsda {
                name,
                body_i,
                point_i,
                body_j,
                point_j,
                stiffness,
                free_length,
                damping,
                actuator,
            } => {
                let e = label("force", "forces", i, name);
                let bi = c.body_ref(at("body_i"), &e, body_i, true);
                let bj = c.body_ref(at("body_j"), &e, body_j, true);
                if let Some(b) = bi {
                    c.point_ref(at("point_i"), &e, b, point_i.as_deref().unwrap_or("origin"));
                }
                if let Some(b) = bj {
                    c.point_ref(at("point_j"), &e, b, point_j.as_deref().unwrap_or("origin"));
                }
                c.finite(at("stiffness"), &e, "stiffness", &[*stiffness]);
                c.finite(at("damping"), &e, "damping", &[*damping]);
                if let Some(l) = free_length {
                    if !(l.is_finite() && *l >= 0.0) {
                        c.push(
                            at("free_length"),
                            &e,
                            format!("free_length must be non-negative and finite, got {l}"),
                            "give the unstretched length in m, or leave it out to use the initial distance".into(),
                        );
                    }
                }
                if let Some(a) = actuator {
                    c.function(at("actuator"), &e, a);
                }
            }
            ForceSpec::Rsda {
                name,
                joint,
                stiffness,
                free_angle,
                damping,
                actuator,
            } => {
                let e = label("force", "forces", i, name);
                if let Some(j) = c.joint_ref(at("joint"), &e, joint) {
                    if j.kind != JointKind::Revolute {
                        let revolute: Vec<&str> = model
                            .joints
                            .iter()
                            .filter(|j| j.kind == JointKind::Revolute)
                            .map(|j| j.name.as_str())
                            .collect();
                        c.push(
                            at("joint"),
                            &e,
                            format!(
                                "joint `{joint}` is not revolute; an rsda acts at a revolute joint"
                            ),
                            suggest(joint, &revolute, "revolute joints"),
                        );
                    }
                }
                c.finite(at("stiffness"), &e, "stiffness", &[*stiffness]);
                c.finite(at("free_angle"), &e, "free_angle", &[*free_angle]);
                c.finite(at("damping"), &e, "damping", &[*damping]);
                if let Some(a) = actuator {
                    c.function(at("actuator"), &e, a);
                }
            }
            ForceSpec::Force {
                name,
                body,
                point,
                fx,
                fy,
                frame: _,
            } => {
                let e = label("force", "forces", i, name);
                if let Some(b) = c.body_ref(at("body"), &e, body, false) {
                    c.point_ref(at("point"), &e, b, point.as_deref().unwrap_or("origin"));
                }
                if let Some(g) = fx {
                    c.function(at("fx"), &e, g);
                }
                if let Some(g) = fy {
                    c.function(at("fy"), &e, g);
                }
            }
            ForceSpec::Torque { name, body, torque } => {
                let e = label("force", "forces", i, name);
                if let Some(b) = c.body_ref(at("body"), &e, body, false) {
                    if b.is_point_mass() {
                        c.push(
                            at("body"),
                            &e,
                            format!("body `{body}` is a point mass, which cannot take a torque"),
                            "apply the torque to a rigid body, or use a force".into(),
                        );
                    }
                }
                c.function(at("torque"), &e, torque);
            }
        }
    }

    // Markers.
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
        if let Some(b) = c.body_ref(at("body"), &e, &m.body, true) {
            c.point_ref(at("point"), &e, b, m.point.as_deref().unwrap_or("origin"));
        }
    }

    if let Some(spec) = &model.equations {
        check_equations(&mut c, model, spec);
    }
    check_solver(&mut c, &model.solver);
    c.issues
}

/// The `[equations]` table's own checks ([`super::equations::EquationSpec::check`]), located below
/// `equations`, and the planar elements it may not be mixed with.
fn check_equations(c: &mut Checker<'_>, model: &Model, spec: &super::equations::EquationSpec) {
    use super::equations::PathItem;
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

fn check_solver(c: &mut Checker<'_>, s: &SolverSpec) {
    let e = "solver";
    let at = |f: &str| p(&[&"solver", &f]);
    let scheme_name = s.scheme.as_deref().unwrap_or("generalized-alpha");
    match registry::find(scheme_name) {
        None => {
            let known: Vec<&str> = registry::REGISTRY.iter().map(|s| s.name).collect();
            c.push(
                at("scheme"),
                e,
                format!("unknown scheme `{scheme_name}`"),
                suggest(scheme_name, &known, "known schemes"),
            );
        }
        Some(info) => {
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
            if all_known {
                if let Err(registry::SchemeError::OutOfRange {
                    param,
                    value,
                    reason,
                    ..
                }) = registry::build(scheme_name, &s.params)
                {
                    c.push(
                        p(&[&"solver", &"params", &param]),
                        e,
                        format!("parameter `{param}` = {value} is out of range"),
                        reason,
                    );
                }
            }
        }
    }
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
        if !t_end.is_finite() {
            c.finite(at("t_end"), e, "t_end", &[t_end]);
        } else if t_start.is_finite() && t_end <= t_start {
            c.push(
                at("t_end"),
                e,
                format!("t_end = {t_end} is not after t_start = {t_start}"),
                "set t_end later than t_start (which defaults to 0)".into(),
            );
        }
    }
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
    let n = &s.newton;
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
    let k = &s.constraints;
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
