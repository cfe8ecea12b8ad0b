//! A scheme's history as data: the time levels it carries from step to step.
//!
//! Every scheme keeps its committed past in a [`History`]: complete time levels (t, q, v, a, λ),
//! newest first, and named auxiliary vectors (the filtered acceleration of generalized-α, the force
//! terms of HHT). Because the history is plain data, a formulation can read and rewrite it between
//! steps (the projection of the previous step onto the current tangent space, Fernández de Bustos et
//! al. 2022, Meccanica 57:371, eqs. 56–58; the post-step corrections of coordinate projection and
//! partitioning, Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, §7.3),
//! and the time loop can restart a scheme from a state without allocating.
//!
//! The history changes only when a step is committed ([`super::Scheme::end_step`]) or the scheme is
//! (re)started; a rejected step leaves it as it was.

use crate::linalg::Vector;

use super::State;

/// One complete time level: t \[s\], q, v, a (n entries each), λ (m entries).
pub type TimeLevel = State;

/// The committed past of a scheme (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    /// Time levels, newest first: `levels[0]` is t_n, `levels[1]` is t_{n−1}, …; only the first
    /// [`History::filled`] hold data.
    pub levels: Vec<TimeLevel>,
    /// How many levels hold data (1 right after a start, growing to `levels.len()`).
    pub filled: usize,
    /// Auxiliary vectors (n entries each), one per name in [`History::aux_names`].
    pub aux: Vec<Vector>,
    /// What each auxiliary vector is, e.g. `"filtered acceleration a"`.
    pub aux_names: &'static [&'static str],
    /// Size of the step that produced `levels[0]` \[s\]; 0 right after a start. Kept exactly as the
    /// driver gave it (not recomputed from the level times), so a constant step stays bit for bit
    /// constant.
    pub h: f64,
}

impl History {
    /// An empty history of `depth` levels and the named auxiliary vectors, for n = m = 0; its shapes
    /// are set by [`History::reset`].
    ///
    /// # Panics
    /// When `depth` is 0.
    pub fn new(depth: usize, aux_names: &'static [&'static str]) -> Self {
        assert!(depth > 0, "a history holds at least one time level");
        History {
            levels: vec![State::zeros(0.0, 0, 0); depth],
            filled: 0,
            aux: vec![Vector::zeros(0); aux_names.len()],
            aux_names,
            h: 0.0,
        }
    }

    /// Restarts from the single level `x`: `levels[0] = x`, `filled = 1`, auxiliary vectors zero.
    /// Allocates only when the shapes of `x` differ from the current ones.
    pub fn reset(&mut self, x: &State) {
        let (n, m) = (x.q.len(), x.lambda.len());
        for level in &mut self.levels {
            if level.q.len() != n || level.lambda.len() != m {
                *level = State::zeros(x.t, n, m);
            }
        }
        for aux in &mut self.aux {
            if aux.len() != n {
                *aux = Vector::zeros(n);
            }
            aux.fill(0.0);
        }
        self.levels[0].copy_from(x);
        self.filled = 1;
        self.h = 0.0;
    }

    /// The newest level, t_n.
    pub fn newest(&self) -> &TimeLevel {
        &self.levels[0]
    }

    /// Makes room for a new newest level: every level moves one place back, the oldest buffer becomes
    /// `levels[0]` (its content is stale until the caller overwrites it). No allocation.
    pub fn shift(&mut self) {
        self.levels.rotate_right(1);
        self.filled = (self.filled + 1).min(self.levels.len());
    }

    /// The auxiliary vector called `name`.
    ///
    /// # Panics
    /// When the history has no auxiliary vector of that name (a programming error in a scheme).
    pub fn aux_index(&self, name: &str) -> usize {
        self.aux_names
            .iter()
            .position(|a| *a == name)
            .unwrap_or_else(|| panic!("no auxiliary history vector `{name}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_keeps_levels_newest_first_without_allocating_new_shapes() {
        let mut h = History::new(3, &["a"]);
        let mut x = State::zeros(0.0, 2, 1);
        h.reset(&x);
        assert_eq!((h.filled, h.levels[0].q.len(), h.aux[0].len()), (1, 2, 2));
        for k in 1..=3 {
            x.t = k as f64;
            h.shift();
            h.levels[0].copy_from(&x);
        }
        assert_eq!(h.filled, 3);
        let times: Vec<f64> = h.levels.iter().map(|l| l.t).collect();
        assert_eq!(times, vec![3.0, 2.0, 1.0]);
        assert_eq!(h.newest().t, 3.0);
    }
}
