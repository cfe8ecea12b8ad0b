//! Planar joints between a point P_i of body i and a point P_j of body j (Haug 1989, §3.3; Nikravesh
//! 1988, §5.2), with `d = r_Pj − r_Pi`:
//!
//! | kind | rows, in this order |
//! |---|---|
//! | revolute | `d_x = 0`, `d_y = 0` |
//! | prismatic | `n_iᵀ d = 0` (`n_i = A_i R u'`, u' the unit axis in body i); then, unless body j is a point mass, `θ_j − θ_i − (θ_j0 − θ_i0) = 0` |
//! | fixed | `d_x = 0`, `d_y = 0`; then, unless a body is a point mass, `θ_j − θ_i − (θ_j0 − θ_i0) = 0` |
//! | distance | `(dᵀd − L²)/2 = 0` |
//!
//! When body i of a prismatic joint is a point mass (and j is rigid), its axis keeps its global
//! direction and the rotation row locks θ_j at its initial value: the constraint torque on j then has
//! no counterpart on i, which cannot take a torque. The model documentation asks for this row; a
//! model that wants j free to turn should put the rigid body in i.
//!
//! θ_i0, θ_j0 are the initial rotations of the model (0 for the ground and point masses). None of the
//! rows depends on time, so Φ_t = 0 and γ = −vᵀ (∂²φ/∂q²) v for each row.

use super::kinematics::{
    union, BodyRef, Frame, LMask, LRowMask, LVec, PointPair, Row, Slots, ALL_SLOTS, ANGLE_ROW,
    AXIS_DOT_D, FULL, NS, ROTATIONS, TI, X_ROW, Y_ROW,
};
use super::rates::{self, PairRates};
use super::resolver::{unchecked, Resolver};
use super::PlanarError;
use crate::linalg::Vector;
use crate::model::geometry::unit_axis;
use crate::model::{JointKind, JointSpec};

/// The geometry of a joint kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum JointType {
    /// Coincident points.
    Revolute,
    /// Sliding along the unit `axis` of body i (body axes); relative rotation kept at `angle0` when
    /// `Some`.
    Prismatic {
        /// Unit sliding direction in body i axes.
        axis: [f64; 2],
        /// Initial relative rotation θ_j0 − θ_i0 \[rad\]; `None` when body j is a point mass.
        angle0: Option<f64>,
    },
    /// Coincident points and, when `Some`, relative rotation kept at `angle0`.
    Fixed {
        /// Initial relative rotation \[rad\]; `None` when a body is a point mass.
        angle0: Option<f64>,
    },
    /// Constant distance `length` \[m\].
    Distance {
        /// Rod length L \[m\].
        length: f64,
    },
}

/// A joint, resolved to coordinates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Joint {
    pub name: String,
    pub kind: JointKind,
    pub bi: BodyRef,
    /// P_i relative to the centre of mass of body i, body axes (ground: global) \[m\].
    pub si: [f64; 2],
    pub bj: BodyRef,
    /// P_j relative to the centre of mass of body j, body axes (ground: global) \[m\].
    pub sj: [f64; 2],
    pub slots: Slots,
    pub geometry: JointType,
    /// Index of the joint's first row in Φ.
    pub first_row: usize,
}

impl Joint {
    /// Builds the joint of `spec` (checked by `model::validate`), its first row `first_row` of Φ,
    /// from the initial coordinates `q0` (n): the relative rotation a prismatic or fixed joint
    /// keeps, and a distance joint's length when the model gives none.
    ///
    /// # Errors
    /// Only for what the model checks refuse (an unknown body or point, an axis without a
    /// direction).
    pub(crate) fn from_spec(
        spec: &JointSpec,
        res: &Resolver<'_>,
        q0: &Vector,
        first_row: usize,
    ) -> Result<Joint, PlanarError> {
        let el = format!("joint `{}` ({})", spec.name, kind_name(spec.kind));
        let (bi, si) = res.point(&el, &spec.body_i, spec.point_i.as_deref())?;
        let (bj, sj) = res.point(&el, &spec.body_j, spec.point_j.as_deref())?;
        let angle0 = bj.frame(q0).theta - bi.frame(q0).theta;
        let geometry = match spec.kind {
            JointKind::Revolute => JointType::Revolute,
            JointKind::Prismatic => JointType::Prismatic {
                axis: unit_axis(spec.axis.unwrap_or([1.0, 0.0]))
                    .ok_or_else(|| unchecked(&el, "its axis has no direction"))?,
                angle0: (!bj.is_point_mass()).then_some(angle0),
            },
            JointKind::Fixed => JointType::Fixed {
                angle0: (!bi.is_point_mass() && !bj.is_point_mass()).then_some(angle0),
            },
            JointKind::Distance => JointType::Distance {
                length: spec.length.unwrap_or_else(|| {
                    let p = PointPair::new(bi.frame(q0), si, bj.frame(q0), sj);
                    (p.d[0] * p.d[0] + p.d[1] * p.d[1]).sqrt()
                }),
            },
        };
        Ok(Joint {
            name: spec.name.clone(),
            kind: spec.kind,
            bi,
            si,
            bj,
            sj,
            slots: Slots::pair(bi, bj),
            geometry,
            first_row,
        })
    }

    /// Number of rows.
    pub(crate) fn rows(&self) -> usize {
        match self.geometry {
            JointType::Revolute => 2,
            JointType::Prismatic { angle0, .. } => 1 + angle0.is_some() as usize,
            JointType::Fixed { angle0 } => 2 + angle0.is_some() as usize,
            JointType::Distance { .. } => 1,
        }
    }

    /// What row `r` (0-based within the joint) constrains.
    pub(crate) fn row_name(&self, r: usize) -> &'static str {
        match (self.geometry, r) {
            (JointType::Revolute | JointType::Fixed { .. }, 0) => "x",
            (JointType::Revolute | JointType::Fixed { .. }, 1) => "y",
            (JointType::Fixed { .. }, _) => "rotation",
            (JointType::Revolute, _) => "?",
            (JointType::Prismatic { .. }, 0) => "normal",
            (JointType::Prismatic { .. }, _) => "rotation",
            (JointType::Distance { .. }, _) => "length",
        }
    }

    /// The slots where the gradient of row `r` can be non-zero (see [`Joint::eval`] for the rows).
    pub(crate) fn row_mask(&self, r: usize) -> &'static LRowMask {
        match (self.geometry, r) {
            (JointType::Revolute | JointType::Fixed { .. }, 0) => &X_ROW,
            (JointType::Revolute | JointType::Fixed { .. }, 1) => &Y_ROW,
            (JointType::Prismatic { .. }, 0) | (JointType::Distance { .. }, _) => &ALL_SLOTS,
            _ => &ANGLE_ROW,
        }
    }

    /// The entries where the Hessian of some row can be non-zero: θθ for coincident points (the
    /// rotation rows are linear), row and column θ_i and θ_jθ_j for a prismatic joint's normal
    /// row, everything for a distance joint.
    pub(crate) fn hessian_mask(&self) -> &'static LMask {
        const PRISMATIC: LMask = union(&AXIS_DOT_D, &ROTATIONS);
        match self.geometry {
            JointType::Revolute | JointType::Fixed { .. } => &ROTATIONS,
            JointType::Prismatic { .. } => &PRISMATIC,
            JointType::Distance { .. } => &FULL,
        }
    }

    /// The point pair at q.
    pub(crate) fn pair(&self, q: &Vector) -> PointPair {
        PointPair::new(self.bi.frame(q), self.si, self.bj.frame(q), self.sj)
    }

    /// Evaluates the rows at q into `out` (at least [`Joint::rows`] entries); returns the number
    /// of rows.
    #[cfg(test)]
    pub(crate) fn eval(&self, q: &Vector, out: &mut [Row]) -> usize {
        self.eval_with(|b| b.frame(q), true, out)
    }

    /// Evaluates the rows into `out` (at least [`Joint::rows`] entries) with the body frames that
    /// `frame` gives (computed from q, or taken from an [`super::evaluation::Frames`]), their
    /// Hessians only with `hessian` (zero otherwise); returns the number of rows.
    pub(crate) fn eval_with(
        &self,
        frame: impl Fn(BodyRef) -> Frame,
        hessian: bool,
        out: &mut [Row],
    ) -> usize {
        let (fi, fj) = (frame(self.bi), frame(self.bj));
        let p = PointPair::new(fi, self.si, fj, self.sj);
        match self.geometry {
            JointType::Revolute => {
                out[0] = Row::component(&p, 0, hessian);
                out[1] = Row::component(&p, 1, hessian);
                2
            }
            JointType::Prismatic { axis, angle0 } => {
                out[0] = Row::body_vector_dot(&p, [-axis[1], axis[0]], hessian);
                match angle0 {
                    Some(c) => {
                        out[1] = Row::relative_angle(&fi, &fj, c);
                        2
                    }
                    None => 1,
                }
            }
            JointType::Fixed { angle0 } => {
                out[0] = Row::component(&p, 0, hessian);
                out[1] = Row::component(&p, 1, hessian);
                match angle0 {
                    Some(c) => {
                        out[2] = Row::relative_angle(&fi, &fj, c);
                        3
                    }
                    None => 2,
                }
            }
            JointType::Distance { length } => {
                out[0] = Row::half_square_distance(&p, length, hessian);
                1
            }
        }
    }
}

impl Joint {
    /// The third-derivative contractions `T[v, v, ·]` of its rows (same order as [`Joint::eval`]) for
    /// local velocities `vl`, the part of Ḧ that the Hessians do not give (see [`super::rates`]);
    /// returns the number of rows.
    pub(crate) fn eval_second_rates(&self, q: &Vector, vl: &LVec, out: &mut [LVec; 3]) -> usize {
        let p = self.pair(q);
        let r = PairRates::new(&p, vl);
        let rows = self.rows();
        out[..rows].fill([0.0; NS]); // relative-angle rows are linear in q
        match self.geometry {
            JointType::Revolute | JointType::Fixed { .. } => {
                out[0] = rates::component(&r, 0);
                out[1] = rates::component(&r, 1);
            }
            JointType::Prismatic { axis, .. } => {
                out[0] = rates::body_vector_dot(&p, &r, [-axis[1], axis[0]], vl[TI]);
            }
            JointType::Distance { .. } => out[0] = rates::half_square_distance(&p, &r),
        }
        rows
    }
}

/// Name of a joint kind as written in a model file.
pub(crate) fn kind_name(k: JointKind) -> &'static str {
    match k {
        JointKind::Revolute => "revolute",
        JointKind::Prismatic => "prismatic",
        JointKind::Fixed => "fixed",
        JointKind::Distance => "distance",
    }
}
