//! Explicit Runge–Kutta methods on the first-order form y = (q, v), ẏ = f(y, t) = (v, a(q, v, t))
//! (Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, eq. 7.3.2), with the
//! accelerations from an acceleration-level formulation (`direct`, `baumgarte`, `projection`,
//! `partitioning`, `hybrid`).
//!
//! One struct, [`ExplicitRk`], runs every tableau ([`ExplicitTableau`]: A strictly lower triangular,
//! b, c, optional embedded b̂). Stage i evaluates the accelerations at
//!
//! ```text
//! Q_i = q_n + h Σ_{j<i} a_ij V_j,   V_i = v_n + h Σ_{j<i} a_ij A_j,   A_i = a(Q_i, V_i, t_n + c_i h)
//! q_{n+1} = q_n + h Σ b_j V_j,      v_{n+1} = v_n + h Σ b_j A_j
//! ```
//!
//! Each is one integration point with known positions and velocities (c_q = c_v = 0, c_a = 1,
//! u = A_i). The first stage is the newest level of the history (its accelerations are committed
//! with it), so the points of a step are stages 2…s and, unless the last stage is already the new
//! state (FSAL: first same as last, as in Dormand–Prince), one more evaluation at (q_{n+1}, v_{n+1})
//! that gives the committed a_{n+1} and λ_{n+1}: s evaluations per step either way, and the history
//! always holds a complete state, which a formulation may correct after the step. With an embedded
//! b̂ the local error estimate is h Σ (b_j − b̂_j)(V_j, A_j) (Hairer, Nørsett & Wanner 1993, *Solving
//! Ordinary Differential Equations I*, §II.4).

use super::{History, IntegrationPoint, LocalError, PointSolution, Scheme, State};
use crate::linalg::Vector;

/// A Butcher tableau of an explicit method with s stages.
#[derive(Debug, Clone, Copy)]
pub struct ExplicitTableau {
    /// Registry name of the method.
    pub name: &'static str,
    /// Rows 2…s of A (row i has i − 1 entries; row 1 is empty).
    pub a: &'static [&'static [f64]],
    /// Weights b (s).
    pub b: &'static [f64],
    /// Nodes c (s).
    pub c: &'static [f64],
    /// Embedded weights b̂ (s) of the error estimate, if any.
    pub b_hat: Option<&'static [f64]>,
}

impl ExplicitTableau {
    /// Number of stages s.
    pub fn stages(&self) -> usize {
        self.b.len()
    }

    /// True when the last stage is the new state (last row of A = b, c_s = 1).
    pub fn fsal(&self) -> bool {
        let s = self.stages();
        s > 1
            && self.c[s - 1] == 1.0
            && self.a[s - 2].len() == s - 1
            && (0..s - 1).all(|j| self.a[s - 2][j] == self.b[j])
            && self.b[s - 1] == 0.0
    }

    /// Row i (0-based) of A: empty for i = 0.
    fn row(&self, i: usize) -> &'static [f64] {
        if i == 0 {
            &[]
        } else {
            self.a[i - 1]
        }
    }
}

/// An explicit Runge–Kutta method (see the module documentation).
#[derive(Debug, Clone)]
pub struct ExplicitRk {
    tableau: ExplicitTableau,
    history: History,
    h: f64,
    t_n: f64,
    /// Stage velocities V_j and accelerations A_j (s each), and the stage multipliers λ_j.
    vel: Vec<Vector>,
    acc: Vec<Vector>,
    lam: Vec<Vector>,
    /// The tentative new state (q_{n+1}, v_{n+1}, a_{n+1}, λ_{n+1}).
    new: State,
}

impl ExplicitRk {
    /// The method of `tableau`; shapes are set by [`Scheme::start`].
    pub fn new(tableau: ExplicitTableau) -> Self {
        let s = tableau.stages();
        ExplicitRk {
            tableau,
            history: History::new(1, &[]),
            h: 0.0,
            t_n: 0.0,
            vel: vec![Vector::zeros(0); s],
            acc: vec![Vector::zeros(0); s],
            lam: vec![Vector::zeros(0); s],
            new: State::zeros(0.0, 0, 0),
        }
    }

    /// y_n + h Σ_j w_j K_j into (q, v), for the stage weights `w` (over the first w.len() stages).
    fn combine(&self, w: &[f64], q: &mut Vector, v: &mut Vector) {
        let x = self.history.newest();
        q.copy_from(&x.q);
        v.copy_from(&x.v);
        for (j, &wj) in w.iter().enumerate() {
            if wj != 0.0 {
                q.axpy(self.h * wj, &self.vel[j], 1.0);
                v.axpy(self.h * wj, &self.acc[j], 1.0);
            }
        }
    }

    /// Stage of point k: 1…s−1, or s for the extra evaluation at the new state.
    fn stage_of(&self, k: usize) -> usize {
        k + 1
    }
}

impl Scheme for ExplicitRk {
    fn name(&self) -> &'static str {
        self.tableau.name
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    fn points_per_step(&self) -> usize {
        let s = self.tableau.stages();
        if self.tableau.fsal() {
            s - 1
        } else {
            s
        }
    }

    fn start(&mut self, initial: &State, _force_terms: &Vector) {
        self.history.reset(initial);
        let (n, m) = (initial.q.len(), initial.lambda.len());
        if self.new.q.len() != n || self.new.lambda.len() != m {
            for j in 0..self.tableau.stages() {
                self.vel[j] = Vector::zeros(n);
                self.acc[j] = Vector::zeros(n);
                self.lam[j] = Vector::zeros(m);
            }
            self.new = State::zeros(initial.t, n, m);
        }
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
        let x = self.history.newest();
        self.vel[0].copy_from(&x.v);
        self.acc[0].copy_from(&x.a);
        self.lam[0].copy_from(&x.lambda);
    }

    fn point(&mut self, k: usize, pt: &mut IntegrationPoint) {
        let i = self.stage_of(k);
        let s = self.tableau.stages();
        let (t, weights) = if i < s {
            (self.tableau.c[i], self.tableau.row(i))
        } else {
            (1.0, self.tableau.b)
        };
        // The stage state Y_i = y_n + h Σ w_j K_j into the point (its velocity is V_i).
        self.combine(weights, &mut pt.q_hat, &mut pt.v_hat);
        pt.set_explicit(self.t_n + t * self.h, &self.acc[i - 1], &self.lam[i - 1]);
        if i < s {
            self.vel[i].copy_from(&pt.v_hat);
        }
        if i == s || (i == s - 1 && self.tableau.fsal()) {
            // The new state (FSAL: the last stage is it).
            self.new.q.copy_from(&pt.q_hat);
            self.new.v.copy_from(&pt.v_hat);
        }
    }

    fn accept_point(&mut self, k: usize, solution: &PointSolution<'_>) {
        let i = self.stage_of(k);
        let s = self.tableau.stages();
        if i < s {
            self.acc[i].copy_from(solution.u);
            self.lam[i].copy_from(solution.lambda);
        }
        if i == s || (i == s - 1 && self.tableau.fsal()) {
            self.new.a.copy_from(solution.u);
            self.new.lambda.copy_from(solution.lambda);
        }
    }

    fn local_error(&self, err: &mut LocalError) -> bool {
        let Some(b_hat) = self.tableau.b_hat else {
            return false;
        };
        err.q.fill(0.0);
        err.v.fill(0.0);
        for (j, (&b, &bh)) in self.tableau.b.iter().zip(b_hat).enumerate() {
            let w = self.h * (b - bh);
            if w != 0.0 {
                err.q.axpy(w, &self.vel[j], 1.0);
                err.v.axpy(w, &self.acc[j], 1.0);
            }
        }
        true
    }

    fn end_step(&mut self, state: &mut State) {
        self.new.t = self.t_n + self.h;
        self.history.levels[0].copy_from(&self.new);
        self.history.h = self.h;
        state.copy_from(&self.new);
    }

    fn history(&self) -> &History {
        &self.history
    }

    fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }
}
