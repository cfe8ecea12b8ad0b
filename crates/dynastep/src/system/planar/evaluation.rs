//! The constraint rows of a configuration, evaluated once and shared by every quantity that needs
//! them.
//!
//! One Newton iteration of the index-3 formulation asks the system for Φ(q), Φ_qᵀλ (residual),
//! ∂(Φ_qᵀλ)/∂q and Φ_q twice (iteration matrix), all at the same q; γ and Ḣ at a state ask for the
//! same rows again. Each joint and driver row is a value, a gradient and a Hessian of one set of
//! body frames. [`Evaluation`] holds them for one q: the frames of every body (cos θ and sin θ once
//! per body, not once per joint that touches it) and the rows of every joint and driver (value,
//! gradient, and the Hessian once a quantity that needs it asks: Φ_qᵀλ's derivative, γ, Ḣ),
//! computed on the first request for that q. The Hessians are computed with the rows when one of
//! the two configurations before needed them (full Newton: a matrix at every iterate but the
//! converged one, which then computes them unused, since a second pass when they are asked for cost
//! more), otherwise on request (modified Newton's residual-only iterates never compute them).
//! [`EvaluationCache`] keeps the two
//! most recent configurations, because some schemes evaluate forces and constraints at different
//! states in one iteration (HHT: q_e ≠ q_c).
//!
//! A configuration is recognised by comparing q bit for bit with the one the rows were computed
//! at (n comparisons, far cheaper than the trigonometry and the Hessians they save).

use super::drivers::Driver;
use super::joints::Joint;
use super::kinematics::{BodyRef, Frame, Row};
use super::Body;
use crate::linalg::{same_bits, Vector};

/// The frames of every body at one q, indexed by the column of the body's first coordinate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Frames {
    by_col: Vec<Frame>,
}

impl Frames {
    /// Recomputes the frames at q (one sin/cos per rigid body).
    pub(crate) fn update(&mut self, bodies: &[Body], q: &Vector) {
        for b in bodies {
            let r = b.body_ref();
            if let BodyRef::Point { col } | BodyRef::Rigid { col } = r {
                self.by_col[col] = r.frame(q);
            }
        }
    }

    /// The frame of body `b` (the ground's is the global frame).
    #[inline]
    pub(crate) fn of(&self, b: BodyRef) -> Frame {
        match b {
            BodyRef::Ground => Frame::GROUND,
            BodyRef::Point { col } | BodyRef::Rigid { col } => self.by_col[col],
        }
    }
}

/// The frames and the joint and driver rows (value, gradient, Hessian) at one configuration q.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Evaluation {
    /// The configuration (n), meaningful when `filled`.
    q: Vector,
    filled: bool,
    /// True when the rows' Hessians are computed (zero otherwise).
    hessians: bool,
    /// True when a request needed the Hessians of this configuration.
    hessians_used: bool,
    /// The frames at q.
    pub frames: Frames,
    /// Rows of Φ at q (m): the joints' rows, then each driver's g(q) without its −f(t).
    pub rows: Vec<Row>,
}

impl Evaluation {
    /// Empty storage for n coordinates and m rows.
    fn new(n: usize, m: usize) -> Self {
        Evaluation {
            q: Vector::zeros(n),
            filled: false,
            hessians: false,
            hessians_used: false,
            frames: Frames {
                by_col: vec![Frame::GROUND; n],
            },
            rows: vec![Row::ZERO; m],
        }
    }

    /// True when the rows are those of q (bit for bit).
    fn holds(&self, q: &Vector) -> bool {
        self.filled && same_bits(self.q.as_slice(), q.as_slice())
    }

    /// Computes the frames and rows at q, the Hessians with `hessians`.
    fn fill(&mut self, elements: &Elements<'_>, q: &Vector, hessians: bool) {
        self.q.copy_from(q);
        self.frames.update(elements.bodies, q);
        for j in elements.joints {
            let nr = j.rows();
            let frames = &self.frames;
            let rows = &mut self.rows[j.first_row..j.first_row + nr];
            j.eval_with(|b| frames.of(b), hessians, rows);
        }
        for d in elements.drivers {
            self.rows[d.row] = d.eval_with(|b| self.frames.of(b), hessians);
        }
        self.filled = true;
        self.hessians = hessians;
    }
}

/// The elements whose rows an [`Evaluation`] holds.
pub(crate) struct Elements<'a> {
    /// Every body (for the frames).
    pub bodies: &'a [Body],
    /// The joints, rows from their `first_row`.
    pub joints: &'a [Joint],
    /// The drivers, rows at their `row`.
    pub drivers: &'a [Driver],
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

    /// The index of the slot holding q (with Hessians when `hessians`), filling the older slot
    /// first when neither does.
    #[inline]
    pub(crate) fn find_or_fill(
        &mut self,
        elements: &Elements<'_>,
        q: &Vector,
        hessians: bool,
    ) -> usize {
        // Most requests ask again for the configuration just filled: answered inline.
        let newest = &mut self.slots[self.newest];
        if newest.holds(q) && (!hessians || newest.hessians) {
            newest.hessians_used |= hessians;
            return self.newest;
        }
        self.find_or_fill_other(elements, q, hessians)
    }

    /// [`Self::find_or_fill`] when the newest slot does not answer.
    #[inline(never)]
    fn find_or_fill_other(&mut self, elements: &Elements<'_>, q: &Vector, hessians: bool) -> usize {
        if let Some(k) = (0..2).find(|&k| self.slots[k].holds(q)) {
            let slot = &mut self.slots[k];
            if hessians {
                if !slot.hessians {
                    slot.fill(elements, q, true);
                }
                slot.hessians_used = true;
            }
            return k;
        }
        // Hessians at once when one of the two configurations before came to need them: full
        // Newton assembles a matrix at every configuration but the converged one, and a second
        // pass for the Hessians cost more than it saved. Otherwise (modified Newton's
        // residual-only iterates) only on request.
        let expect = self.slots.iter().any(|e| e.hessians_used || !e.filled);
        let k = 1 - self.newest;
        self.slots[k].fill(elements, q, hessians || expect);
        self.slots[k].hessians_used = hessians;
        self.newest = k;
        k
    }

    /// The evaluation in slot `k`.
    pub(crate) fn slot(&self, k: usize) -> &Evaluation {
        &self.slots[k]
    }
}
