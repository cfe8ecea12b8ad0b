//! Applied forces in centroidal coordinates, each with analytic ∂Q/∂q and ∂Q/∂v (Haug 1989, §6.1.3
//! and §6.2 (TSDA, RSDA); Nikravesh 1988, §8.3):
//!
//! - **gravity** `Q = m g` at the centre of mass; potential `−m gᵀ r_cm`.
//! - **TSDA** between P_i and P_j: `d = r_Pj − r_Pi`, `l = |d|`, `l̇ = ∇lᵀ v`, tension
//!   `f = k (l − l₀) + c l̇ + f_a(t)` (positive pulls the points together), `Q = −f ∇l`;
//!   `∂Q/∂q = −∇l (k ∇l + c ∇²l v)ᵀ − f ∇²l`, `∂Q/∂v = −c ∇l ∇lᵀ`, with `ψ = dᵀd / 2`,
//!   `∇l = ∇ψ / l` and `∇²l = (∇²ψ − ∇l ∇lᵀ) / l`.
//!   Potential `½ k (l − l₀)²`; the damper and actuator are non-conservative.
//! - **RSDA** at a revolute joint: `θ_r = θ_j − θ_i`, torque on j `τ = −k (θ_r − θ₀) − c θ̇_r + τ_a(t)`,
//!   `−τ` on i; potential `½ k (θ_r − θ₀)²`.
//! - **applied force** F at P: `Q = (F_x, F_y, a × F)` with `a = A s'_P`; a
//!   body-frame force `F = A F'` rotates with the body, so `∂(F_x, F_y)/∂θ = R F` (the moment
//!   `a × F = s' × F'` is then constant); a global force has `∂(a × F)/∂θ = −aᵀ F`. The axes of a
//!   point mass are the global axes.
//! - **applied torque** τ(t) on a rigid body.

use super::body::Body;
use super::joints::Joint;
use super::kinematics::{
    cross, dot, ldot, lmul, perp, BodyRef, LMat, LVec, PointPair, Row, Slots, NS, TI, TJ,
};
use super::resolver::{compile, find_joint, unchecked, Resolver};
use super::PlanarError;
use crate::linalg::{Sink, Vector};
use crate::model::function::{FunctionSpec, TimeFunction};
use crate::model::{Axes, ForceSpec};
use crate::system::force_elements::ForceElement;

/// Lengths below this \[m\] are replaced by it when a TSDA's direction is computed, so that Q stays finite
/// when its points meet (the direction is then arbitrary).
pub(crate) const MIN_LENGTH: f64 = 1e-12;

/// The law of a force element, resolved to coordinates.
#[derive(Debug, Clone)]
pub(crate) enum ForceType {
    /// Weight `m g` \[N\] of the body in slots i.
    Gravity { col: usize, weight: [f64; 2] },
    /// Translational spring–damper–actuator.
    Tsda {
        bi: BodyRef,
        si: [f64; 2],
        bj: BodyRef,
        sj: [f64; 2],
        stiffness: f64,
        free_length: f64,
        damping: f64,
        actuator: Option<TimeFunction>,
    },
    /// Rotational spring–damper–actuator.
    Rsda {
        bi: BodyRef,
        bj: BodyRef,
        stiffness: f64,
        free_angle: f64,
        damping: f64,
        actuator: Option<TimeFunction>,
    },
    /// Force at point `s` (relative to the centre of mass, body axes) of the body in slots i.
    Load {
        body: BodyRef,
        s: [f64; 2],
        fx: TimeFunction,
        fy: TimeFunction,
        body_frame: bool,
    },
    /// Torque on the rigid body in slots i.
    Torque { torque: TimeFunction },
}

impl ForceType {
    /// Appends the breakpoints of the element's time functions to `out`.
    pub(crate) fn breakpoints(&self, out: &mut Vec<f64>) {
        match self {
            ForceType::Gravity { .. } => {}
            ForceType::Tsda { actuator, .. } | ForceType::Rsda { actuator, .. } => {
                if let Some(f) = actuator {
                    f.breakpoints(out);
                }
            }
            ForceType::Load { fx, fy, .. } => {
                fx.breakpoints(out);
                fy.breakpoints(out);
            }
            ForceType::Torque { torque } => torque.breakpoints(out),
        }
    }
}

/// A planar force element: its slots and its law. It implements the [`ForceElement`] interface
/// that planar and spatial systems share.
#[derive(Debug, Clone)]
pub(crate) struct PlanarForce {
    pub slots: Slots,
    pub law: ForceType,
}

impl PlanarForce {
    /// The weight m g of every body, g (2) \[m/s²\], each with the label messages name it by;
    /// none when g = 0.
    pub(crate) fn gravity(bodies: &[Body], g: [f64; 2]) -> Vec<(String, PlanarForce)> {
        if g == [0.0, 0.0] {
            return Vec::new();
        }
        bodies
            .iter()
            .map(|b| {
                let weight = PlanarForce {
                    slots: Slots::single(b.body_ref()),
                    law: ForceType::Gravity {
                        col: b.first_coordinate(),
                        weight: [b.mass() * g[0], b.mass() * g[1]],
                    },
                };
                (format!("gravity on body `{}`", b.name()), weight)
            })
            .collect()
    }

    /// Builds the force element of `spec` (checked by `model::validate`) on the already built
    /// `joints`, from the initial coordinates `q0` (n), with the label messages name it by: a
    /// TSDA's free length defaults to the initial distance of its points.
    ///
    /// # Errors
    /// Only for what the model checks refuse (an unknown body, point or joint) and a time function
    /// that does not compile.
    pub(crate) fn from_spec(
        spec: &ForceSpec,
        res: &Resolver<'_>,
        joints: &[Joint],
        q0: &Vector,
    ) -> Result<(String, PlanarForce), PlanarError> {
        let el = spec.label();
        let (slots, law) = match spec {
            ForceSpec::Tsda { .. } => tsda_from_spec(&el, spec, res, q0)?,
            ForceSpec::Rsda { .. } => rsda_from_spec(&el, spec, joints)?,
            ForceSpec::Force { .. } => load_from_spec(&el, spec, res)?,
            ForceSpec::Torque { body, torque, .. } => {
                let (b, _) = res.body(&el, body)?;
                if !matches!(b, BodyRef::Rigid { .. }) {
                    return Err(unchecked(&el, "a torque needs a moving rigid body"));
                }
                let torque = torque
                    .as_ref()
                    .ok_or_else(|| unchecked(&el, "a planar torque without `torque`"))?;
                let law = ForceType::Torque {
                    torque: compile(&format!("{el}, torque"), torque)?,
                };
                (Slots::single(b), law)
            }
        };
        Ok((el, PlanarForce { slots, law }))
    }
}

/// Compiles the optional time function `what` of element `el`.
fn optional(
    el: &str,
    what: &str,
    f: &Option<FunctionSpec>,
) -> Result<Option<TimeFunction>, PlanarError> {
    f.as_ref()
        .map(|s| compile(&format!("{el}, {what}"), s))
        .transpose()
}

/// The slots and law of a TSDA `spec`; its free length defaults to the points' distance at `q0`.
fn tsda_from_spec(
    el: &str,
    spec: &ForceSpec,
    res: &Resolver<'_>,
    q0: &Vector,
) -> Result<(Slots, ForceType), PlanarError> {
    let ForceSpec::Tsda {
        body_i,
        point_i,
        body_j,
        point_j,
        stiffness,
        free_length,
        damping,
        actuator,
        ..
    } = spec
    else {
        return Err(unchecked(el, "not a TSDA"));
    };
    let (bi, si) = res.point(el, body_i, point_i.as_deref())?;
    let (bj, sj) = res.point(el, body_j, point_j.as_deref())?;
    let free_length = free_length.unwrap_or_else(|| {
        let p = PointPair::new(bi.frame(q0), si, bj.frame(q0), sj);
        (p.d[0] * p.d[0] + p.d[1] * p.d[1]).sqrt()
    });
    let law = ForceType::Tsda {
        bi,
        si,
        bj,
        sj,
        stiffness: *stiffness,
        free_length,
        damping: *damping,
        actuator: optional(el, "actuator", actuator)?,
    };
    Ok((Slots::pair(bi, bj), law))
}

/// The slots and law of an RSDA `spec`, at one of the built `joints`.
fn rsda_from_spec(
    el: &str,
    spec: &ForceSpec,
    joints: &[Joint],
) -> Result<(Slots, ForceType), PlanarError> {
    let ForceSpec::Rsda {
        joint,
        stiffness,
        free_angle,
        damping,
        actuator,
        ..
    } = spec
    else {
        return Err(unchecked(el, "not an RSDA"));
    };
    let j = find_joint(joints, el, joint)?;
    let law = ForceType::Rsda {
        bi: j.bi,
        bj: j.bj,
        stiffness: *stiffness,
        free_angle: *free_angle,
        damping: *damping,
        actuator: optional(el, "actuator", actuator)?,
    };
    Ok((Slots::pair(j.bi, j.bj), law))
}

/// The slots and law of an applied force `spec`; a missing component is zero.
fn load_from_spec(
    el: &str,
    spec: &ForceSpec,
    res: &Resolver<'_>,
) -> Result<(Slots, ForceType), PlanarError> {
    let ForceSpec::Force {
        body,
        point,
        fx,
        fy,
        frame,
        ..
    } = spec
    else {
        return Err(unchecked(el, "not an applied force"));
    };
    let (b, s) = res.point(el, body, point.as_deref())?;
    let zero = || TimeFunction::Constant(0.0);
    let law = ForceType::Load {
        body: b,
        s,
        fx: optional(el, "fx", fx)?.unwrap_or_else(zero),
        fy: optional(el, "fy", fy)?.unwrap_or_else(zero),
        body_frame: *frame == Axes::Body,
    };
    Ok((Slots::single(b), law))
}

/// Q, its Jacobians and its non-conservative power at one state (local slots).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ForceEval {
    /// Generalized force \[N, N m\].
    pub q: LVec,
    /// ∂Q/∂q.
    pub dq: LMat,
    /// ∂Q/∂v.
    pub dv: LMat,
    /// Power of the non-conservative part \[W\].
    pub power: f64,
}

impl ForceEval {
    const ZERO: ForceEval = ForceEval {
        q: [0.0; NS],
        dq: [[0.0; NS]; NS],
        dv: [[0.0; NS]; NS],
        power: 0.0,
    };
}

/// l, ∇l, ∇²l of a TSDA (local slots).
fn length_derivatives(p: &PointPair) -> (f64, LVec, LMat) {
    let psi = Row::half_square_distance(p, 0.0, true);
    let l = (2.0 * psi.phi).sqrt().max(MIN_LENGTH);
    let mut g = psi.grad;
    g.iter_mut().for_each(|x| *x /= l);
    let mut h = psi.hess;
    for a in 0..NS {
        for b in 0..NS {
            h[a][b] = (h[a][b] - g[a] * g[b]) / l;
        }
    }
    (l, g, h)
}

impl PlanarForce {
    /// True when ∂Q/∂q can be non-zero (fixed at construction).
    pub(crate) fn has_q_jacobian(&self) -> bool {
        match &self.law {
            ForceType::Gravity { .. } | ForceType::Torque { .. } => false,
            ForceType::Tsda { .. } => true,
            ForceType::Rsda { stiffness, .. } => *stiffness != 0.0,
            ForceType::Load { body, .. } => matches!(body, BodyRef::Rigid { .. }),
        }
    }

    /// True when ∂Q/∂v can be non-zero (fixed at construction).
    pub(crate) fn has_v_jacobian(&self) -> bool {
        match &self.law {
            ForceType::Tsda { damping, .. } | ForceType::Rsda { damping, .. } => *damping != 0.0,
            _ => false,
        }
    }

    /// Q, ∂Q/∂q, ∂Q/∂v and the non-conservative power at (t, q, v).
    pub(crate) fn eval(&self, t: f64, q: &Vector, v: &Vector) -> ForceEval {
        let vl = self.slots.gather(v);
        match &self.law {
            ForceType::Gravity { weight, .. } => {
                let mut e = ForceEval::ZERO;
                e.q[0] = weight[0];
                e.q[1] = weight[1];
                e
            }
            ForceType::Tsda {
                bi,
                si,
                bj,
                sj,
                stiffness: k,
                free_length,
                damping: c,
                actuator,
            } => {
                let p = PointPair::new(bi.frame(q), *si, bj.frame(q), *sj);
                let fa = actuator.as_ref().map_or(0.0, |f| f.value(t));
                eval_tsda(&p, *k, *free_length, *c, fa, &vl)
            }
            ForceType::Rsda {
                bi,
                bj,
                stiffness: k,
                free_angle,
                damping: c,
                actuator,
            } => {
                let tr = bj.frame(q).theta - bi.frame(q).theta;
                let wr = vl[TJ] - vl[TI];
                let ta = actuator.as_ref().map_or(0.0, |f| f.value(t));
                eval_rsda(tr, wr, *k, *free_angle, *c, ta)
            }
            ForceType::Load {
                body,
                s,
                fx,
                fy,
                body_frame,
            } => {
                let fr = body.frame(q);
                let a = fr.rot(*s);
                let f0 = [fx.value(t), fy.value(t)];
                let f = if *body_frame { fr.rot(f0) } else { f0 };
                eval_load(a, f, *body_frame, &vl)
            }
            ForceType::Torque { torque } => {
                let mut e = ForceEval::ZERO;
                e.q[TI] = torque.value(t);
                e.power = e.q[TI] * vl[TI];
                e
            }
        }
    }
}

impl ForceElement for PlanarForce {
    /// Potential energy \[J\].
    fn potential(&self, q: &Vector) -> f64 {
        match &self.law {
            ForceType::Gravity { col, weight } => -dot(*weight, [q[*col], q[*col + 1]]),
            ForceType::Tsda {
                bi,
                si,
                bj,
                sj,
                stiffness,
                free_length,
                ..
            } => {
                let p = PointPair::new(bi.frame(q), *si, bj.frame(q), *sj);
                let e = dot(p.d, p.d).sqrt() - free_length;
                0.5 * stiffness * e * e
            }
            ForceType::Rsda {
                bi,
                bj,
                stiffness,
                free_angle,
                ..
            } => {
                let e = bj.frame(q).theta - bi.frame(q).theta - free_angle;
                0.5 * stiffness * e * e
            }
            ForceType::Load { .. } | ForceType::Torque { .. } => 0.0,
        }
    }

    /// Adds Q at (t, q, v) into `out` (n entries, N or N m). Gravity, the most common element,
    /// adds its constant weight without forming the derivatives of [`PlanarForce::eval`].
    fn add_force(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        if let ForceType::Gravity { col, weight } = self.law {
            out[col] += weight[0];
            out[col + 1] += weight[1];
        } else {
            self.slots.add_vec(out, &self.eval(t, q, v).q);
        }
    }

    /// The non-conservative power \[W\] at (t, q, v): zero for gravity, without evaluating it.
    fn power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        match self.law {
            ForceType::Gravity { .. } => 0.0,
            _ => self.eval(t, q, v).power,
        }
    }

    fn add_force_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        if self.has_q_jacobian() {
            self.slots.add_block(out, scale, &self.eval(t, q, v).dq);
        }
    }

    fn add_force_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        if self.has_v_jacobian() {
            self.slots.add_block(out, scale, &self.eval(t, q, v).dv);
        }
    }

    fn depends_on_velocity(&self) -> bool {
        self.has_v_jacobian()
    }

    fn breakpoints(&self, out: &mut Vec<f64>) {
        self.law.breakpoints(out);
    }
}

/// A TSDA with stiffness `k`, free length `free_length`, damping `c` and actuator force `fa` between
/// the points `p`, at local velocities `vl`.
fn eval_tsda(p: &PointPair, k: f64, free_length: f64, c: f64, fa: f64, vl: &LVec) -> ForceEval {
    let mut e = ForceEval::ZERO;
    let (l, gl, hl) = length_derivatives(p);
    let ldot_ = ldot(&gl, vl);
    let f = k * (l - free_length) + c * ldot_ + fa;
    let hv = lmul(&hl, vl);
    for a in 0..NS {
        e.q[a] = -f * gl[a];
        for b in 0..NS {
            e.dq[a][b] = -gl[a] * (k * gl[b] + c * hv[b]) - f * hl[a][b];
            e.dv[a][b] = -c * gl[a] * gl[b];
        }
    }
    e.power = -(c * ldot_ + fa) * ldot_;
    e
}

/// An RSDA with stiffness `k`, free angle `free_angle`, damping `c` and actuator torque `ta` at
/// relative angle `tr` and rate `wr`.
fn eval_rsda(tr: f64, wr: f64, k: f64, free_angle: f64, c: f64, ta: f64) -> ForceEval {
    let mut e = ForceEval::ZERO;
    let tau = -k * (tr - free_angle) - c * wr + ta;
    e.q[TJ] = tau;
    e.q[TI] = -tau;
    for (a, sa) in [(TJ, 1.0), (TI, -1.0)] {
        for (b, sb) in [(TJ, 1.0), (TI, -1.0)] {
            e.dq[a][b] = -k * sa * sb;
            e.dv[a][b] = -c * sa * sb;
        }
    }
    e.power = (-c * wr + ta) * wr;
    e
}

/// An applied force `f` (global axes) at arm `a` from the centre of mass; `body_frame` when `f`
/// turns with the body.
fn eval_load(a: [f64; 2], f: [f64; 2], body_frame: bool, vl: &LVec) -> ForceEval {
    let mut e = ForceEval::ZERO;
    e.q[0] = f[0];
    e.q[1] = f[1];
    e.q[TI] = cross(a, f);
    if body_frame {
        let rf = perp(f);
        e.dq[0][TI] = rf[0];
        e.dq[1][TI] = rf[1];
    } else {
        e.dq[TI][TI] = -dot(a, f);
    }
    // Only existing slots carry velocity (θ of a point mass gathers 0).
    e.power = ldot(&e.q, vl);
    e
}
