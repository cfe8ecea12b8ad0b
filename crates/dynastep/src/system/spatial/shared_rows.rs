//! A joint's rows as products of the expressions they share, for the two quantities of a Newton
//! residual: the values Φ and the constraint force Φ_qᵀλ.
//!
//! Every joint row is a kernel Φ_r = s_r u_rᵀw_r − c_r (`kinematics.rs`), and the rows of a joint
//! share their expressions: a revolute joint's three point rows are d·e_x, d·e_y, d·e_z with the
//! same d = P_j − P_i, its two axis rows f_i·h_j and g_i·h_j the same h_j. Since Φ_r,q =
//! s_r (U_qᵀw_r + W_qᵀu_r) is linear in the vector each Jacobian multiplies,
//!
//! Φ_qᵀλ = Σ_e E_qᵀ w̄_e,  w̄_e = Σ_{r: u_r = e} λ_r s_r w_r + Σ_{r: w_r = e} λ_r s_r u_r,
//!
//! one product E_qᵀw̄ per distinct expression e (four for a revolute joint, against seven over its
//! rows one by one), with each expression's value computed once. The iteration matrix still takes
//! the rows' gradients one by one (`evaluation.rs`); this path serves the residual, which modified
//! Newton evaluates several times per iteration matrix.

use super::euler::V3;
use super::kinematics::{Expr, Kernel, LVec, Sides, Slots};

/// The most distinct expressions in one joint's rows (a fixed joint has d, three directions on
/// each body and three constant axes: 10).
pub(crate) const MAX_EXPRS: usize = 10;

/// One row: the indices of its two expressions in [`SharedRows`], its scale and its offset.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Row {
    u: usize,
    w: usize,
    scale: f64,
    offset: f64,
}

/// The rows of one joint over their distinct expressions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SharedRows {
    exprs: Vec<Expr>,
    rows: Vec<Row>,
}

impl SharedRows {
    /// The rows `kernels`, in order, over their distinct expressions.
    ///
    /// # Panics
    /// When the kernels have more than [`MAX_EXPRS`] distinct expressions (no joint kind has).
    pub(crate) fn new(kernels: &[Kernel]) -> Self {
        let mut exprs: Vec<Expr> = Vec::new();
        let mut index = |e: Expr| match exprs.iter().position(|x| *x == e) {
            Some(k) => k,
            None => {
                exprs.push(e);
                exprs.len() - 1
            }
        };
        let rows = kernels
            .iter()
            .map(|k| Row {
                u: index(k.u),
                w: index(k.w),
                scale: k.scale,
                offset: k.offset,
            })
            .collect();
        assert!(
            exprs.len() <= MAX_EXPRS,
            "a joint with {} expressions",
            exprs.len()
        );
        SharedRows { exprs, rows }
    }

    /// The value of every expression at the sides' state.
    fn expr_values(&self, x: &Sides) -> [V3; MAX_EXPRS] {
        let mut out = [V3::zeros(); MAX_EXPRS];
        for (o, e) in out.iter_mut().zip(&self.exprs) {
            *o = e.value(x);
        }
        out
    }

    /// Writes the rows' values Φ_r (one per row) into `out`.
    pub(crate) fn values(&self, x: &Sides, out: &mut [f64]) {
        self.values_of(&self.expr_values(x), out);
    }

    /// Adds Σ_r λ_r Φ_r,q (14 local slots) to `out`, `lambda` holding one multiplier per row.
    pub(crate) fn add_force(&self, slots: &Slots, x: &Sides, lambda: &[f64], out: &mut LVec) {
        self.add_force_of(slots, x, &self.expr_values(x), lambda, out);
    }

    /// [`Self::values`] into `phi` and [`Self::add_force`] into `out`, the expressions evaluated
    /// once for both.
    pub(crate) fn values_and_force(
        &self,
        slots: &Slots,
        x: &Sides,
        lambda: &[f64],
        phi: &mut [f64],
        out: &mut LVec,
    ) {
        let v = self.expr_values(x);
        self.values_of(&v, phi);
        self.add_force_of(slots, x, &v, lambda, out);
    }

    /// The rows' values from the expressions' values `v`.
    fn values_of(&self, v: &[V3; MAX_EXPRS], out: &mut [f64]) {
        for (o, r) in out.iter_mut().zip(&self.rows) {
            *o = r.scale * v[r.u].dot(&v[r.w]) - r.offset;
        }
    }

    /// Σ_r λ_r Φ_r,q added to `out`, from the expressions' values `v`.
    fn add_force_of(
        &self,
        slots: &Slots,
        x: &Sides,
        v: &[V3; MAX_EXPRS],
        lambda: &[f64],
        out: &mut LVec,
    ) {
        let mut w = [V3::zeros(); MAX_EXPRS];
        for (r, &l) in self.rows.iter().zip(lambda) {
            let f = l * r.scale;
            w[r.u] += f * v[r.w];
            w[r.w] += f * v[r.u];
        }
        for (e, w) in self.exprs.iter().zip(&w) {
            e.add_jt_times(slots, &x.p, w, true, 1.0, out);
        }
    }
}
