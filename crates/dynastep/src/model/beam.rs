//! The `[[spatial.beams]]` table: a flexible beam of three-node geometrically exact elements
//! (Reissner 1981, Simo 1985), evaluated at MBDyn's two finite-volume points (Ghiringhelli,
//! Masarati & Mantegazza, AIAA J 38(1):131–138, 2000).
//!
//! A beam generates its own nodes. Along a line, a polyline or an arc, `elements` three-node
//! elements give 2·elements + 1 nodes (per polyline segment), named `<beam>.0`, `<beam>.1`, …; each
//! is a spatial rigid body whose frame is the section frame (x along the beam, y the section's
//! second axis, z the third) and whose mass and inertia are the beam's lumped on it, as MBDyn's
//! benchmark decks lump them: node k carries the length ℓ_k half-way to its neighbours, mass
//! m·ℓ_k and inertia (J₁ℓ_k, J₂ℓ_k + m ℓ_k³/12, J₃ℓ_k + m ℓ_k³/12) in section axes. Joints,
//! drivers, loads and markers name the nodes like any body: [`SpatialSpec::with_beam_nodes`] lists
//! them after the file's bodies.
//!
//! [`SpatialSpec::with_beam_nodes`]: super::spatial::SpatialSpec::with_beam_nodes

// Doc strings become JSON Schema descriptions: units in brackets, not escaped for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

use nalgebra::{Matrix3, Rotation3, Unit, Vector3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::spatial::{OrientationSpec, SpatialBodyKind, SpatialBodySpec};

/// Most elements a beam may have (per polyline segment).
pub const MAX_BEAM_ELEMENTS: usize = 10_000;

/// A flexible beam: its reference line, section law, mass and mesh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BeamSpec {
    /// Unique name; the nodes are `<name>.0` … `<name>.<2·elements>`.
    pub name: String,
    /// Number of three-node elements (per segment of a polyline); at least 1.
    pub elements: usize,
    /// A straight reference line from one point to another [m].
    #[serde(default)]
    pub line: Option<BeamLineSpec>,
    /// A polyline through these points [m]: `elements` elements on each segment.
    #[serde(default)]
    pub polyline: Option<Vec<[f64; 3]>>,
    /// A circular arc.
    #[serde(default)]
    pub arc: Option<BeamArcSpec>,
    /// The section's second axis (y) in global axes at the start [-]; made perpendicular to the
    /// beam at every node. Default: the arc's axis, or the global axis least aligned with a
    /// straight beam's first segment.
    #[serde(default)]
    pub section_y: Option<[f64; 3]>,
    /// Diagonal section stiffness (EA, GA_y, GA_z, GJ, EI_y, EI_z) [N, N, N, N m², N m², N m²];
    /// or give `stiffness_matrix`.
    #[serde(default)]
    pub stiffness: Option<[f64; 6]>,
    /// Full symmetric positive definite section stiffness, rows, relating (force, moment) in
    /// section axes to (ν_x, γ_y, γ_z, κ_x, κ_y, κ_z) [SI].
    #[serde(default)]
    pub stiffness_matrix: Option<[[f64; 6]; 6]>,
    /// Mass per unit length [kg/m]; positive.
    pub mass_per_length: f64,
    /// Rotary inertia per unit length (J₁ about the beam axis, J₂, J₃ about the section axes)
    /// [kg m]; non-negative, each at most the sum of the other two.
    pub inertia_per_length: [f64; 3],
    /// Stiffness-proportional viscous damping factor β: the section law is C (ε + β ε̇) [s];
    /// default 0.
    #[serde(default)]
    pub damping: f64,
    /// Initial velocity of node 0 [m/s], global axes; default 0. With `angular_velocity`, the
    /// beam starts in the rigid motion v_k = velocity + ω × (x_k − x_0).
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Initial angular velocity ω of every node [rad/s], global axes; default 0.
    #[serde(default)]
    pub angular_velocity: [f64; 3],
}

/// A straight beam's reference line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BeamLineSpec {
    /// First end (node 0) [m].
    pub from: [f64; 3],
    /// Second end (the last node) [m].
    pub to: [f64; 3],
}

/// A circular arc: `start` turned about the line through `center` along `axis` by `angle`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BeamArcSpec {
    /// Centre of the circle [m].
    pub center: [f64; 3],
    /// First end (node 0) [m]; its radius vector must be perpendicular to `axis`.
    pub start: [f64; 3],
    /// The circle's axis [-] (need not be unit).
    pub axis: [f64; 3],
    /// Angle swept, right-handed about `axis` [rad]; not zero, at most 2π in magnitude.
    pub angle: f64,
}

/// A generated node: position [m], section frame (columns x along the beam, y, z) and the length
/// it carries [m].
#[derive(Debug, Clone, PartialEq)]
pub struct BeamNode {
    /// Global position [m].
    pub position: Vector3<f64>,
    /// Section frame → global.
    pub frame: Matrix3<f64>,
    /// The length of beam lumped on the node [m].
    pub length: f64,
}

/// What is wrong with a beam's specification: the field at fault and the message.
pub type BeamFault = (&'static str, String);

/// Points of the reference line at the nodes, the unit tangents there, and each node's arc-length
/// position [m].
type Sampled = (Vec<Vector3<f64>>, Vec<Vector3<f64>>, Vec<f64>);

impl BeamSpec {
    /// The name of node `k`.
    pub fn node_name(&self, k: usize) -> String {
        format!("{}.{k}", self.name)
    }

    /// The number of nodes the beam generates, 2 · elements · segments + 1, when the element count
    /// and the kind of geometry say it (whatever the geometry's values); `None` otherwise.
    pub fn node_count(&self) -> Option<usize> {
        if self.elements == 0 || self.elements > MAX_BEAM_ELEMENTS {
            return None;
        }
        let segments = match (&self.line, &self.polyline, &self.arc) {
            (Some(_), None, None) | (None, None, Some(_)) => 1,
            (None, Some(p), None) if p.len() >= 2 => p.len() - 1,
            _ => return None,
        };
        Some(2 * self.elements * segments + 1)
    }

    /// The section stiffness (6 × 6), or what is wrong with it: exactly one of `stiffness`,
    /// `stiffness_matrix`, finite, symmetric to 1e-9 relative and positive definite.
    ///
    /// # Errors
    /// [`BeamFault`].
    pub fn stiffness_matrix(&self) -> Result<[[f64; 6]; 6], BeamFault> {
        let c = match (self.stiffness, self.stiffness_matrix) {
            (Some(_), Some(_)) => {
                return Err((
                    "stiffness_matrix",
                    "give `stiffness` or `stiffness_matrix`, not both".into(),
                ))
            }
            (None, None) => return Err((
                "stiffness",
                "a beam needs `stiffness = [EA, GA_y, GA_z, GJ, EI_y, EI_z]` or `stiffness_matrix`"
                    .into(),
            )),
            (Some(d), None) => {
                std::array::from_fn(|i| std::array::from_fn(|j| if i == j { d[i] } else { 0.0 }))
            }
            (None, Some(c)) => c,
        };
        let field = if self.stiffness.is_some() {
            "stiffness"
        } else {
            "stiffness_matrix"
        };
        let m = nalgebra::Matrix6::from_fn(|i, j| c[i][j]);
        if m.iter().any(|x| !x.is_finite()) {
            return Err((field, "the section stiffness must be finite".into()));
        }
        if (m - m.transpose()).norm() > 1e-9 * m.norm() {
            return Err((
                field,
                "the section stiffness matrix is not symmetric".into(),
            ));
        }
        if m.cholesky().is_none() {
            return Err((
                field,
                "the section stiffness is not positive definite (every diagonal entry must be positive)"
                    .into(),
            ));
        }
        Ok(c)
    }

    /// The nodes, in order along the beam, or what is wrong with the geometry.
    ///
    /// # Errors
    /// [`BeamFault`]: no or two geometries, too few or too many elements, a degenerate line,
    /// segment or arc, or a `section_y` along the beam.
    pub fn nodes(&self) -> Result<Vec<BeamNode>, BeamFault> {
        if self.elements == 0 || self.elements > MAX_BEAM_ELEMENTS {
            return Err((
                "elements",
                format!(
                    "a beam needs 1 to {MAX_BEAM_ELEMENTS} elements, not {}",
                    self.elements
                ),
            ));
        }
        let given = [
            self.line.is_some(),
            self.polyline.is_some(),
            self.arc.is_some(),
        ];
        let (points, tangents, s) = match given {
            [true, false, false] => {
                let l = self.line.as_ref().expect("checked");
                self.polyline_nodes("line", &[l.from, l.to])?
            }
            [false, true, false] => {
                self.polyline_nodes("polyline", self.polyline.as_ref().expect("checked"))?
            }
            [false, false, true] => self.arc_nodes(self.arc.as_ref().expect("checked"))?,
            _ => {
                return Err((
                    "line",
                    "give exactly one of `line`, `polyline` and `arc`".into(),
                ))
            }
        };
        let y0 = self.default_section_y(&tangents[0])?;
        let last = s.len() - 1;
        let mut nodes = Vec::with_capacity(s.len());
        for k in 0..s.len() {
            let t = tangents[k];
            let y = y0 - t * t.dot(&y0);
            if y.norm() < 1e-6 {
                return Err((
                    "section_y",
                    format!(
                        "`section_y` is along the beam at node {k}; give a direction across it"
                    ),
                ));
            }
            let y = y.normalize();
            let frame = Matrix3::from_columns(&[t, y, t.cross(&y)]);
            let before = if k == 0 { 0.0 } else { s[k] - s[k - 1] };
            let after = if k == last { 0.0 } else { s[k + 1] - s[k] };
            nodes.push(BeamNode {
                position: points[k],
                frame,
                length: 0.5 * (before + after),
            });
        }
        Ok(nodes)
    }

    /// The given `section_y`, or the default of the field's documentation.
    fn default_section_y(&self, t0: &Vector3<f64>) -> Result<Vector3<f64>, BeamFault> {
        if let Some(y) = self.section_y {
            let y = Vector3::from(y);
            if !(y.norm() > 1e-12 && y.norm().is_finite()) {
                return Err((
                    "section_y",
                    "`section_y` has zero length or is not finite".into(),
                ));
            }
            return Ok(y.normalize());
        }
        if let Some(arc) = &self.arc {
            return Ok(Vector3::from(arc.axis).normalize());
        }
        let k = t0.iamin();
        Ok(Vector3::ith(k, 1.0))
    }

    /// Nodes along straight segments: `elements` elements per segment.
    fn polyline_nodes(
        &self,
        field: &'static str,
        points: &[[f64; 3]],
    ) -> Result<Sampled, BeamFault> {
        if points.len() < 2 || points.iter().flatten().any(|x| !x.is_finite()) {
            return Err((
                field,
                format!("a `{field}` needs at least two finite points"),
            ));
        }
        let per = 2 * self.elements;
        let (mut xs, mut ts, mut s): Sampled = (Vec::new(), Vec::new(), Vec::new());
        let mut s0 = 0.0;
        for (i, w) in points.windows(2).enumerate() {
            let (a, b) = (Vector3::from(w[0]), Vector3::from(w[1]));
            let d = b - a;
            if d.norm() < 1e-9 * (1.0 + a.norm()) {
                return Err((
                    field,
                    format!("segment {i} of the `{field}` has zero length"),
                ));
            }
            let t = d.normalize();
            if let Some(prev) = ts.last() {
                if t.dot(prev) < -0.5 {
                    return Err((field, format!("the `{field}` turns by more than 120° at point {i}; split the beam there")));
                }
                // The corner node takes the mean direction of its two segments.
                let k = ts.len() - 1;
                ts[k] = (ts[k] + t).normalize();
            }
            let first = if i == 0 { 0 } else { 1 };
            for j in first..=per {
                let u = j as f64 / per as f64;
                xs.push(a + d * u);
                ts.push(t);
                s.push(s0 + d.norm() * u);
            }
            s0 += d.norm();
        }
        Ok((xs, ts, s))
    }

    /// Nodes equally spaced along an arc.
    fn arc_nodes(&self, arc: &BeamArcSpec) -> Result<Sampled, BeamFault> {
        let (c, p0, axis) = (
            Vector3::from(arc.center),
            Vector3::from(arc.start),
            Vector3::from(arc.axis),
        );
        let finite = [c, p0, axis]
            .iter()
            .all(|v| v.iter().all(|x| x.is_finite()))
            && arc.angle.is_finite();
        if !finite || axis.norm() < 1e-12 {
            return Err((
                "arc",
                "the arc needs a finite centre, start, non-zero axis and angle".into(),
            ));
        }
        let n = axis.normalize();
        let rv = p0 - c;
        let radius = rv.norm();
        if radius < 1e-9 * (1.0 + c.norm()) {
            return Err(("arc", "the arc's start coincides with its centre".into()));
        }
        if rv.dot(&n).abs() > 1e-9 * radius {
            return Err((
                "arc",
                "the arc's start − centre is not perpendicular to its axis".into(),
            ));
        }
        if arc.angle == 0.0 || arc.angle.abs() > 2.0 * std::f64::consts::PI + 1e-12 {
            return Err((
                "arc",
                format!(
                    "the arc's angle {} rad must be non-zero and at most 2π in magnitude",
                    arc.angle
                ),
            ));
        }
        let per = 2 * self.elements;
        let (mut xs, mut ts, mut s) = (Vec::new(), Vec::new(), Vec::new());
        for j in 0..=per {
            let phi = arc.angle * j as f64 / per as f64;
            let rot = Rotation3::from_axis_angle(&Unit::new_unchecked(n), phi);
            let r = rot * rv;
            xs.push(c + r);
            ts.push(n.cross(&r).normalize() * arc.angle.signum());
            s.push(radius * phi.abs());
        }
        Ok((xs, ts, s))
    }

    /// The nodes as spatial rigid bodies (see the module documentation), or what is wrong with
    /// the geometry.
    ///
    /// # Errors
    /// [`BeamFault`], from [`BeamSpec::nodes`].
    pub fn node_bodies(&self) -> Result<Vec<SpatialBodySpec>, BeamFault> {
        let [j1, j2, j3] = self.inertia_per_length;
        let m = self.mass_per_length;
        let nodes = self.nodes()?;
        let x0 = nodes[0].position;
        let omega = Vector3::from(self.angular_velocity);
        Ok(nodes
            .into_iter()
            .enumerate()
            .map(|(k, node)| {
                let l = node.length;
                let bending = m * l * l * l / 12.0;
                let f = node.frame;
                SpatialBodySpec {
                    name: self.node_name(k),
                    kind: SpatialBodyKind::Rigid,
                    mass: m * l,
                    inertia: Some([j1 * l, j2 * l + bending, j3 * l + bending]),
                    inertia_tensor: None,
                    position: node.position.into(),
                    orientation: OrientationSpec {
                        matrix: Some(std::array::from_fn(|r| std::array::from_fn(|c| f[(r, c)]))),
                        ..OrientationSpec::default()
                    },
                    velocity: (Vector3::from(self.velocity) + omega.cross(&(node.position - x0)))
                        .into(),
                    angular_velocity: self.angular_velocity,
                    angular_velocity_axes: Default::default(),
                    points: Default::default(),
                    shape: None,
                }
            })
            .collect())
    }
}
