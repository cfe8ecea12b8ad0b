//! The joint rows' gradients at a configuration, evaluated once and shared by every quantity that
//! needs them: the spatial twin of the planar `evaluation.rs`.
//!
//! Forming the iteration matrix asks the system for Φ_q twice at the same q (its two constraint
//! blocks). Each joint row's gradient comes from a kernel (`kinematics.rs`) whose B(p, s)
//! products cost far more than storing 14 numbers. [`Evaluation`] holds the gradient of every
//! joint row at one q, computed on the first request for that q; [`EvaluationCache`] keeps the
//! two most recent configurations, because some schemes evaluate forces and constraints at
//! different states in one iteration (HHT: q_e ≠ q_c).
//!
//! What is not cached, and why: the residual's Φ and Φ_qᵀλ (computed from the rows' shared
//! expressions, `shared_rows.rs`, cheaper than the gradients they would otherwise need); the
//! Hessians (asked for once per iteration matrix, always with a new λ, and 14 × 14 per row to
//! store); the driver rows (they depend on t as well, and are few); the normalizations
//! ½(pᵀp − 1); the rates γ, Ḣ (they depend on v).
//!
//! A configuration is recognised by comparing q bit for bit with the one the rows were computed
//! at (n comparisons).

use super::joints::SpatialJoint;
use super::kinematics::{LVec, NS};
use crate::linalg::{same_bits, Vector};

/// The gradients of every joint row at one configuration q.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Evaluation {
    /// The configuration (n), meaningful when `filled`.
    q: Vector,
    filled: bool,
    /// Local gradients (14 slots) by global row index (m; the joints' rows are filled, the others
    /// stay zero).
    pub gradients: Vec<LVec>,
}

impl Evaluation {
    /// Empty storage for n coordinates and m rows.
    fn new(n: usize, m: usize) -> Self {
        Evaluation {
            q: Vector::zeros(n),
            filled: false,
            gradients: vec![[0.0; NS]; m],
        }
    }

    /// True when the rows are those of q (bit for bit).
    fn holds(&self, q: &Vector) -> bool {
        self.filled && same_bits(self.q.as_slice(), q.as_slice())
    }

    /// Computes every joint row's gradient at q.
    fn fill(&mut self, joints: &[SpatialJoint], q: &Vector) {
        self.q.copy_from(q);
        for j in joints {
            let x = j.slots.sides(&j.slots.gather(q));
            for (r, k) in j.rows.iter().enumerate() {
                let row = j.first_row + r;
                self.gradients[row] = k.gradient(&j.slots, &x);
            }
        }
        self.filled = true;
    }
}

/// The evaluations of the two most recently requested configurations.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EvaluationCache {
    slots: [Evaluation; 2],
    /// The slot filled last.
    newest: usize,
}

impl EvaluationCache {
    /// Empty storage for n coordinates and m rows (allocates; nothing later does).
    pub(crate) fn new(n: usize, m: usize) -> Self {
        EvaluationCache {
            slots: [Evaluation::new(n, m), Evaluation::new(n, m)],
            newest: 0,
        }
    }

    /// The index of the slot holding q, filling the older slot when neither does.
    pub(crate) fn find_or_fill(&mut self, joints: &[SpatialJoint], q: &Vector) -> usize {
        if self.slots[self.newest].holds(q) {
            self.newest
        } else if self.slots[1 - self.newest].holds(q) {
            1 - self.newest
        } else {
            let k = 1 - self.newest;
            self.slots[k].fill(joints, q);
            self.newest = k;
            k
        }
    }

    /// The evaluation in slot `k`.
    pub(crate) fn slot(&self, k: usize) -> &Evaluation {
        &self.slots[k]
    }
}
