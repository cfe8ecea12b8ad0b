//! A spatial run as a scene: each body's shape and its pose at chosen rows of the history, the
//! joints with their points and axes fixed in the bodies, spring–dampers, markers and ground
//! points. The 3-D player ([`crate::player3d`]) and the glTF export ([`crate::gltf_export`])
//! draw from it.
//!
//! Joint points and axes are put into the bodies exactly as the spatial system builds them: a
//! joint's `at` and `axis` (global, at the initial configuration of the model file) go into each
//! body's axes through the initial pose the file gives; `frame_i`/`frame_j` and named points
//! are already in body axes.

use dynastep::model::inventory::ModelKind;
use dynastep::model::spatial::{SpatialBodyKind, SpatialJointKind, SpatialJointSpec, SpatialSpec};
use dynastep::model::{ForceSpec, GROUND};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

use crate::run_folder::RunFolder;
use crate::shape::{self, inertia_box, BodyShape};
use crate::PlotError;

/// A point or direction fixed in a body (`None`: the ground, global axes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attachment {
    /// Index into [`SpatialScene::bodies`], or `None` for the ground.
    pub body: Option<usize>,
    /// Coordinates in the body's axes \[m\] (a point from its centroid, or a unit direction).
    pub local: [f64; 3],
}

/// A body of the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneBody {
    /// The body's name.
    pub name: String,
    /// A rigid body (false: a point mass, which keeps the identity orientation).
    pub rigid: bool,
    /// The shape drawn.
    pub shape: BodyShape,
    /// The pose at each kept row: centroid (x, y, z) \[m\] and Euler parameters (e0, e1, e2, e3).
    pub poses: Vec<[f64; 7]>,
}

/// A joint of the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneJoint {
    /// The joint's name.
    pub name: String,
    /// Its kind.
    pub kind: SpatialJointKind,
    /// Its point on the body that moves (body j, or body i when j is the ground).
    pub at: Attachment,
    /// Its point on the other body (the other end of a distance joint).
    pub other: Attachment,
    /// The axes drawn, unit directions fixed in a body: the joint axis (revolute, cylindrical,
    /// prismatic, planar), or the two cross axes (universal); none for the others.
    pub axes: Vec<Attachment>,
}

/// A spatial run's scene (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct SpatialScene {
    /// The history rows kept.
    pub rows: Vec<usize>,
    /// Their times \[s\].
    pub t: Vec<f64>,
    /// The bodies, in file order.
    pub bodies: Vec<SceneBody>,
    /// The joints, in file order.
    pub joints: Vec<SceneJoint>,
    /// Spring–dampers (TSDA): name and the two ends.
    pub springs: Vec<(String, [Attachment; 2])>,
    /// Markers: name and point.
    pub markers: Vec<(String, Attachment)>,
    /// The ground's named points \[m\].
    pub ground: Vec<[f64; 3]>,
    /// The unit vector up: against gravity, or +z without gravity.
    pub up: [f64; 3],
}

/// The `[spatial]` table of the run's model, or why there is none: no `model.json`, or a planar
/// or equation-based model. `what` names the command for the message (e.g. "the glTF export").
///
/// # Errors
/// [`PlotError::Data`] with a sentence that says what to do instead.
pub fn spatial_spec<'a>(run: &'a RunFolder, what: &str) -> Result<&'a SpatialSpec, PlotError> {
    let model = run.model.as_ref().ok_or_else(|| {
        PlotError::Data(format!(
            "{} has no model.json, which {what} needs to know the bodies; run the model again with `dynastep run` (it writes model.json)",
            run.dir.display()
        ))
    })?;
    let kind = match model.kind() {
        ModelKind::Spatial => {
            return model.spatial.as_ref().ok_or_else(|| {
                PlotError::Data("model.json is spatial but has no [spatial] table".into())
            })
        }
        ModelKind::Planar => "a planar model",
        ModelKind::Equations => "an equation-based model (no bodies)",
    };
    Err(PlotError::Data(format!(
        "{} holds {kind}, and {what} takes spatial runs only",
        run.dir.display()
    )))
}

/// The initial pose of a body of `spec` as the spatial system builds it: position and rotation
/// (identity for a point mass or an invalid orientation, which the model checks refuse).
fn initial_pose(spec: &SpatialSpec, body: Option<usize>) -> (Vector3<f64>, Matrix3<f64>) {
    let Some(b) = body.map(|b| &spec.bodies[b]) else {
        return (Vector3::zeros(), Matrix3::identity());
    };
    let a = match b.kind {
        SpatialBodyKind::Rigid => b
            .orientation
            .rotation()
            .unwrap_or_else(|_| Matrix3::identity()),
        SpatialBodyKind::Point => Matrix3::identity(),
    };
    (Vector3::from(b.position), a)
}

/// Resolves names of a spatial model to scene attachments.
struct Names<'a> {
    spec: &'a SpatialSpec,
}

impl Names<'_> {
    fn body(&self, name: &str) -> Option<usize> {
        (name != GROUND)
            .then(|| self.spec.bodies.iter().position(|b| b.name == name))
            .flatten()
    }

    /// A named point of a body (`origin` or none: the centroid; on the ground, global).
    fn point(&self, body: &str, point: Option<&str>) -> Attachment {
        let b = self.body(body);
        let name = point.unwrap_or("origin");
        let found = match b {
            Some(i) => self.spec.bodies[i].points.get(name),
            None => self.spec.ground.get(name),
        };
        Attachment {
            body: b,
            local: found.copied().unwrap_or([0.0; 3]),
        }
    }

    /// A global vector `v` at the initial configuration, fixed into `body`'s axes (unit).
    fn direction(&self, body: Option<usize>, v: [f64; 3]) -> Attachment {
        let (_, a) = initial_pose(self.spec, body);
        let local = a.transpose()
            * Vector3::from(v)
                .try_normalize(0.0)
                .unwrap_or_else(Vector3::z);
        Attachment {
            body,
            local: local.into(),
        }
    }

    fn joint(&self, j: &SpatialJointSpec) -> SceneJoint {
        let (bi, bj) = (self.body(&j.body_i), self.body(&j.body_j));
        let (pi, pj) = match j.at {
            Some(at) => {
                let local = |b: Option<usize>| {
                    let (r, a) = initial_pose(self.spec, b);
                    Attachment {
                        body: b,
                        local: (a.transpose() * (Vector3::from(at) - r)).into(),
                    }
                };
                (local(bi), local(bj))
            }
            None => (
                self.point(&j.body_i, j.point_i.as_deref()),
                self.point(&j.body_j, j.point_j.as_deref()),
            ),
        };
        let unit = |v: [f64; 3]| {
            Vector3::from(v)
                .try_normalize(0.0)
                .unwrap_or_else(Vector3::z)
                .into()
        };
        // The joint axis on each side, and a universal joint's cross axis on body j.
        let (hi, hj, cross_j) = match (j.frame_i, j.frame_j) {
            (Some(fi), Some(fj)) => {
                let on = |body, f: [f64; 3]| Attachment {
                    body,
                    local: unit(f),
                };
                (on(bi, fi.axis), on(bj, fj.axis), on(bj, fj.axis))
            }
            _ => {
                let h = j.axis.unwrap_or([0.0, 0.0, 1.0]);
                let cross = j.axis_j.unwrap_or([1.0, 0.0, 0.0]);
                (
                    self.direction(bi, h),
                    self.direction(bj, h),
                    self.direction(bj, cross),
                )
            }
        };
        let moving_j = bj.is_some();
        let (at, other, h) = if moving_j { (pj, pi, hj) } else { (pi, pj, hi) };
        let axes = match j.kind {
            SpatialJointKind::Revolute
            | SpatialJointKind::Cylindrical
            | SpatialJointKind::Prismatic
            | SpatialJointKind::Planar => vec![h],
            SpatialJointKind::Universal => vec![hi, cross_j],
            _ => Vec::new(),
        };
        SceneJoint {
            name: j.name.clone(),
            kind: j.kind,
            at,
            other,
            axes,
        }
    }
}

/// The size of a point mass's sphere, as a fraction of the scene's extent.
const POINT_MASS_RATIO: f64 = 0.025;

impl SpatialScene {
    /// The scene of `run` at the history rows `rows` (indices into its history, increasing).
    ///
    /// # Errors
    /// [`PlotError::Data`] for a run that is not spatial (see [`spatial_spec`]) or whose history
    /// lacks a body's pose columns (`NAME.x`, …, `NAME.e3`).
    pub fn read(run: &RunFolder, rows: &[usize], what: &str) -> Result<Self, PlotError> {
        // A beam's nodes are bodies like the others: each drawn as the box of its lumped mass and
        // inertia, a segment of the beam as long as the length it carries.
        let expanded = spatial_spec(run, what)?.with_beam_nodes();
        let spec = &*expanded;
        let names = Names { spec };
        let mut bodies = Vec::with_capacity(spec.bodies.len());
        for b in &spec.bodies {
            let rigid = b.kind == SpatialBodyKind::Rigid;
            let shape = match (b.shape.as_ref(), rigid, b.inertia_matrix()) {
                (Some(spec), _, _) => shape::from_spec(spec),
                (None, true, Ok(j)) => inertia_box(b.mass, &j),
                (None, true, Err(_)) => inertia_box(0.0, &Matrix3::zeros()),
                // Sized with the scene (`size_point_masses`).
                (None, false, _) => BodyShape::Sphere { radius: 0.0 },
            };
            bodies.push(SceneBody {
                name: b.name.clone(),
                rigid,
                shape,
                poses: poses(run, &b.name, rigid, rows)?,
            });
        }
        let joints: Vec<SceneJoint> = spec.joints.iter().map(|j| names.joint(j)).collect();
        let springs = spec
            .forces
            .iter()
            .filter_map(|f| match f {
                ForceSpec::Tsda {
                    name,
                    body_i,
                    point_i,
                    body_j,
                    point_j,
                    ..
                } => Some((
                    name.clone(),
                    [
                        names.point(body_i, point_i.as_deref()),
                        names.point(body_j, point_j.as_deref()),
                    ],
                )),
                _ => None,
            })
            .collect();
        let markers = spec
            .markers
            .iter()
            .map(|m| (m.name.clone(), names.point(&m.body, m.point.as_deref())))
            .collect();
        let g = Vector3::from(spec.gravity);
        let up = (-g).try_normalize(0.0).unwrap_or_else(Vector3::z).into();
        let t = run.table.t();
        let mut scene = SpatialScene {
            rows: rows.to_vec(),
            t: rows.iter().map(|&k| t[k]).collect(),
            bodies,
            joints,
            springs,
            markers,
            ground: spec.ground.values().copied().collect(),
            up,
        };
        scene.size_point_masses();
        Ok(scene)
    }

    /// Gives every point mass without a shape of its own a sphere of [`POINT_MASS_RATIO`] times
    /// the scene's extent.
    fn size_point_masses(&mut self) {
        let (lo, hi) = self.centroid_box();
        let extent = (hi - lo).norm();
        let largest = self
            .bodies
            .iter()
            .map(|b| b.shape.radius())
            .fold(0.0, f64::max);
        let extent = if extent > 0.0 && extent.is_finite() {
            extent
        } else if largest > 0.0 {
            4.0 * largest
        } else {
            1.0
        };
        for b in self
            .bodies
            .iter_mut()
            .filter(|b| b.shape == BodyShape::Sphere { radius: 0.0 })
        {
            b.shape = BodyShape::Sphere {
                radius: POINT_MASS_RATIO * extent,
            };
        }
    }

    /// The box of every finite centroid at every kept row, the ground points and the joint points
    /// on the ground.
    fn centroid_box(&self) -> (Vector3<f64>, Vector3<f64>) {
        let mut lo = Vector3::repeat(f64::INFINITY);
        let mut hi = Vector3::repeat(f64::NEG_INFINITY);
        let mut add = |p: Vector3<f64>| {
            if p.iter().all(|x| x.is_finite()) {
                lo = lo.inf(&p);
                hi = hi.sup(&p);
            }
        };
        for b in &self.bodies {
            for p in &b.poses {
                add(Vector3::new(p[0], p[1], p[2]));
            }
        }
        for g in &self.ground {
            add(Vector3::from(*g));
        }
        for j in &self.joints {
            for a in [j.at, j.other].iter().filter(|a| a.body.is_none()) {
                add(Vector3::from(a.local));
            }
        }
        if lo.x > hi.x {
            return (Vector3::zeros(), Vector3::zeros());
        }
        (lo, hi)
    }

    /// The sphere that holds the whole scene over every kept row: centre and radius \[m\] (at
    /// least 1e-3 m).
    pub fn bounds(&self) -> ([f64; 3], f64) {
        let (lo, hi) = self.centroid_box();
        let centre = 0.5 * (lo + hi);
        let largest = self
            .bodies
            .iter()
            .map(|b| b.shape.radius())
            .fold(0.0, f64::max);
        let radius = (0.5 * (hi - lo).norm() + largest).max(1e-3);
        (centre.into(), radius)
    }

    /// The number of leading kept rows that can be animated or exported: finite times, each later
    /// than the one before, and finite poses of every body.
    pub fn usable_rows(&self) -> usize {
        let ok = |k: usize| {
            self.t[k].is_finite()
                && (k == 0 || self.t[k] > self.t[k - 1])
                && self
                    .bodies
                    .iter()
                    .all(|b| b.poses[k].iter().all(|x| x.is_finite()))
        };
        (0..self.t.len()).take_while(|&k| ok(k)).count()
    }

    /// The rotation of body `b` at kept row `k` as a unit quaternion (the Euler parameters
    /// normalized; the identity for a point mass or non-finite parameters).
    pub fn rotation(&self, b: usize, k: usize) -> UnitQuaternion<f64> {
        let p = self.bodies[b].poses[k];
        let q = nalgebra::Quaternion::new(p[3], p[4], p[5], p[6]);
        if q.coords.iter().all(|x| x.is_finite()) && q.norm() > 0.0 {
            UnitQuaternion::from_quaternion(q)
        } else {
            UnitQuaternion::identity()
        }
    }
}

/// The poses of body `name` at `rows`: its centroid and Euler parameters from the history
/// (a point mass: (1, 0, 0, 0)).
fn poses(
    run: &RunFolder,
    name: &str,
    rigid: bool,
    rows: &[usize],
) -> Result<Vec<[f64; 7]>, PlotError> {
    let keys: &[&str] = if rigid {
        &["x", "y", "z", "e0", "e1", "e2", "e3"]
    } else {
        &["x", "y", "z"]
    };
    let columns: Vec<&[f64]> = keys
        .iter()
        .map(|k| {
            run.table.column(&format!("{name}.{k}")).ok_or_else(|| {
                PlotError::Data(format!(
                    "{}/history.csv has no column {name}.{k} for body `{name}` of model.json; if the run selected its columns ([solver] output_columns), run it again with the bodies' columns among them",
                    run.dir.display()
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(rows
        .iter()
        .map(|&k| {
            let mut p = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
            for (slot, c) in p.iter_mut().zip(&columns) {
                *slot = c[k];
            }
            p
        })
        .collect())
}
