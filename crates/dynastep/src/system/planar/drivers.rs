//! Driving constraints `g(q) − f(t) = 0`, one row each (Haug 1989, §3.5; Nikravesh 1988, §5.4):
//!
//! | driver | g(q) |
//! |---|---|
//! | revolute joint | `θ_j − θ_i` (the ground has θ = 0) \[rad\] |
//! | prismatic joint | `u_iᵀ (r_Pj − r_Pi)`, u_i = A_i u' the unit axis of body i \[m\] |
//! | coordinate x / y | the body-frame origin `x_cm − (A com)_x` / `y_cm − (A com)_y` \[m\] |
//! | coordinate θ | `θ` \[rad\] |
//!
//! Since f enters additively, `Φ_t = −ḟ`, `Φ_qt = 0`, `Φ_tt = −f̈` and `γ = −vᵀ g_qq v + f̈`.

use super::joints::{Joint, JointType};
use super::kinematics::{
    perp, BodyRef, Frame, LMask, LRowMask, LVec, PointPair, Row, Slots, ALL_SLOTS, ANGLE_ROW,
    AXIS_DOT_D, NONE, NS, ROTATIONS, TI, X_ROW, Y_ROW,
};
use super::rates::{self, PairRates};
use super::resolver::{compile, find_joint, unchecked, Resolver};
use super::PlanarError;
use crate::linalg::Vector;
use crate::model::function::TimeFunction;
use crate::model::{Coordinate, DriverKind, DriverSpec, JointSpec};

/// What a driver prescribes, resolved to coordinates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DriverType {
    /// θ_j − θ_i of a revolute joint.
    Revolute { bi: BodyRef, bj: BodyRef },
    /// Displacement along the unit axis (body i axes) of a prismatic joint.
    Prismatic {
        bi: BodyRef,
        si: [f64; 2],
        bj: BodyRef,
        sj: [f64; 2],
        axis: [f64; 2],
    },
    /// Coordinate k (0: x, 1: y) of a body frame's origin; `com` in body axes \[m\].
    Origin {
        body: BodyRef,
        com: [f64; 2],
        k: usize,
    },
    /// The angle θ of a rigid body.
    Angle { body: BodyRef },
}

impl DriverType {
    /// The slots of the bodies the driven quantity depends on.
    fn slots(&self) -> Slots {
        match self {
            DriverType::Revolute { bi, bj } | DriverType::Prismatic { bi, bj, .. } => {
                Slots::pair(*bi, *bj)
            }
            DriverType::Origin { body, .. } | DriverType::Angle { body } => Slots::single(*body),
        }
    }

    /// The value of joint `j` as a driven quantity: θ_j − θ_i of a revolute joint between rigid bodies,
    /// or the displacement along the axis of a prismatic joint; `None` for other joints (or a
    /// revolute joint with a point mass, which has no rotation).
    pub(crate) fn joint_value(j: &Joint) -> Option<DriverType> {
        match j.geometry {
            JointType::Revolute if !(j.bi.is_point_mass() || j.bj.is_point_mass()) => {
                Some(DriverType::Revolute { bi: j.bi, bj: j.bj })
            }
            JointType::Prismatic { axis, .. } => Some(DriverType::Prismatic {
                bi: j.bi,
                si: j.si,
                bj: j.bj,
                sj: j.sj,
                axis,
            }),
            _ => None,
        }
    }
}

/// A driver, resolved to coordinates.
#[derive(Debug, Clone)]
pub(crate) struct Driver {
    pub name: String,
    pub geometry: DriverType,
    pub slots: Slots,
    pub function: TimeFunction,
    /// Its row in Φ.
    pub row: usize,
}

impl Driver {
    /// Builds the driver of `spec` (checked by `model::validate`) on the already built `joints`,
    /// its row `row` of Φ.
    ///
    /// # Errors
    /// Only for what the model checks refuse (an unknown joint or body, a joint without a value to
    /// drive, a coordinate the body does not have) and a time function that does not compile.
    pub(crate) fn from_spec(
        spec: &DriverSpec,
        res: &Resolver<'_>,
        joints: &[Joint],
        row: usize,
    ) -> Result<Driver, PlanarError> {
        let el = format!("driver `{}`", spec.name);
        let geometry = match spec.kind {
            DriverKind::Joint => {
                let name = spec.joint.as_deref().unwrap_or_default();
                DriverType::joint_value(find_joint(joints, &el, name)?)
                    .ok_or_else(|| unchecked(&el, "its joint has no value to drive"))?
            }
            DriverKind::Coordinate => {
                let name = spec.body.as_deref().unwrap_or_default();
                let (body, k) = res.body(&el, name)?;
                let k = k.ok_or_else(|| unchecked(&el, "the ground has no coordinates"))?;
                let com = res.bodies[k].com();
                match spec.coordinate {
                    Some(Coordinate::X) => DriverType::Origin { body, com, k: 0 },
                    Some(Coordinate::Y) => DriverType::Origin { body, com, k: 1 },
                    Some(Coordinate::Theta) if !body.is_point_mass() => DriverType::Angle { body },
                    _ => return Err(unchecked(&el, "no coordinate of the body to drive")),
                }
            }
        };
        Ok(Driver {
            name: spec.name.clone(),
            slots: geometry.slots(),
            geometry,
            function: compile(&format!("{el}, function"), &spec.function)?,
            row,
        })
    }

    /// The value of the `given` joint `spec` held at its initial value during assembly: a driver
    /// with a constant function, at row `row` of the assembly equations.
    ///
    /// # Errors
    /// Only for what the model checks refuse (a joint without a value to hold).
    pub(crate) fn held_joint(
        spec: &JointSpec,
        joints: &[Joint],
        q0: &Vector,
        row: usize,
    ) -> Result<Driver, PlanarError> {
        let el = format!("joint `{}`", spec.name);
        let geometry = DriverType::joint_value(find_joint(joints, &el, &spec.name)?)
            .ok_or_else(|| unchecked(&el, "`given` on a joint without a value to hold"))?;
        let mut held = Driver {
            name: spec.name.clone(),
            slots: geometry.slots(),
            geometry,
            function: TimeFunction::Constant(0.0),
            row,
        };
        held.function = TimeFunction::Constant(held.eval(q0).phi);
        Ok(held)
    }

    /// The third-derivative contraction `T[v, v, ·]` of g for local velocities `vl` (see
    /// [`super::rates`]); zero for the linear drivers (revolute angle, coordinate θ).
    pub(crate) fn eval_second_rates(&self, q: &Vector, vl: &LVec) -> LVec {
        match &self.geometry {
            DriverType::Revolute { .. } => [0.0; NS],
            DriverType::Prismatic {
                bi,
                si,
                bj,
                sj,
                axis,
            } => {
                let p = PointPair::new(bi.frame(q), *si, bj.frame(q), *sj);
                rates::body_vector_dot(&p, &PairRates::new(&p, vl), *axis, vl[TI])
            }
            DriverType::Origin { body, com, k } => {
                rates::frame_origin(body.frame(q).rot(*com), *k, vl[TI])
            }
            DriverType::Angle { .. } => [0.0; NS],
        }
    }

    /// The slots where the gradient of g can be non-zero.
    pub(crate) fn row_mask(&self) -> &'static LRowMask {
        match &self.geometry {
            DriverType::Revolute { .. } => &ANGLE_ROW,
            DriverType::Prismatic { .. } => &ALL_SLOTS,
            DriverType::Origin { k: 0, .. } => &X_ROW,
            DriverType::Origin { .. } => &Y_ROW,
            DriverType::Angle { .. } => &ANGLE_ROW,
        }
    }

    /// The entries where the Hessian of g can be non-zero: none for the linear drivers (relative
    /// angle, coordinate θ), θθ for a body-frame x or y, row and column θ_i and θ_jθ_j for a
    /// prismatic joint's travel.
    pub(crate) fn hessian_mask(&self) -> &'static LMask {
        match &self.geometry {
            DriverType::Revolute { .. } => &NONE,
            DriverType::Prismatic { .. } => &AXIS_DOT_D,
            DriverType::Origin { .. } => &ROTATIONS,
            DriverType::Angle { .. } => &NONE,
        }
    }

    /// g(q) with gradient and Hessian (without the −f(t)).
    pub(crate) fn eval(&self, q: &Vector) -> Row {
        self.eval_with(|b| b.frame(q), true)
    }

    /// g with gradient and, with `hessian`, Hessian (zero otherwise; without the −f(t)) for the
    /// body frames that `frame` gives (computed from q, or taken from an
    /// [`super::evaluation::Frames`]).
    pub(crate) fn eval_with(&self, frame: impl Fn(BodyRef) -> Frame, hessian: bool) -> Row {
        match &self.geometry {
            DriverType::Revolute { bi, bj } => Row::relative_angle(&frame(*bi), &frame(*bj), 0.0),
            DriverType::Prismatic {
                bi,
                si,
                bj,
                sj,
                axis,
            } => Row::body_vector_dot(
                &PointPair::new(frame(*bi), *si, frame(*bj), *sj),
                *axis,
                hessian,
            ),
            DriverType::Origin { body, com, k } => {
                let (f, k) = (frame(*body), *k);
                let a = f.rot(*com);
                // x_o = x_cm − (A com)_x; ∂(A com)/∂θ = R A com, ∂² = −A com.
                let mut r = Row::ZERO;
                r.phi = f.r[k] - a[k];
                r.grad[k] = 1.0;
                r.grad[TI] = -perp(a)[k];
                r.hess[TI][TI] = a[k];
                r
            }
            DriverType::Angle { body } => {
                let mut r = Row::ZERO;
                r.phi = frame(*body).theta;
                r.grad[TI] = 1.0;
                r
            }
        }
    }
}
