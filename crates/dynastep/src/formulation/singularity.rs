//! A watch on the conditioning of the acceleration-level matrix, which tells an index-1
//! formulation when the motion reaches a singular configuration of the constraints.
//!
//! The formulations built on eq. 7.2.1 of Haug (1989) (`direct`, `baumgarte`, `projection`,
//! `partitioning`, `hybrid`) need the saddle-point matrix
//!
//! ```text
//! A = [ M    Φ_qᵀ ]      (n + m square, symmetric)
//!     [ Φ_q  0    ]
//! ```
//!
//! to be regular, that is Φ_q of full rank (Hairer & Wanner 1996, *Solving Ordinary Differential
//! Equations II*, §VII.1). At a singular configuration of a closed loop, such as
//! the N-four-bar chain with its bars horizontal (González, Dopico, Lugrís & Cuadrado 2006,
//! *Multibody System Dynamics* 16:179, benchmark A02), Φ_q loses rank and the accelerations of the
//! index-1 equations are not determined: an explicit or Adams scheme that steps close to it
//! can follow another branch of the constraint manifold afterwards. Measured on
//! the N = 40 chain with Adams PECE and projection at rtol 1e-8: the crank bounced back at the
//! horizontal position at t ≈ 17 s instead of passing it, and then stayed there, B0 up to 2 m from the
//! reference, with no error reported. The index-3 and stabilized index-2 formulations
//! solve for positions, whose iteration matrix carries the mass term, and pass these
//! configurations.
//!
//! The watch runs one step of inverse iteration per factorization of A: a probe vector x (n + m,
//! unit length) is replaced by A⁻¹x, and 1/‖A⁻¹x‖ estimates the smallest eigenvalue |μ_min| of A
//! in magnitude. For symmetric A it is never below |μ_min|, and it converges to it as the probe
//! aligns with the eigenvector; near a singularity that eigenvalue is far below the others, so the
//! probe aligns in a few steps. The estimate is compared with its largest value in the run. When
//! it falls below [`SINGULAR_RATIO`] of it, or when A becomes singular to the linear solver while
//! it was regular at the first factorization (a redundant constraint, present from the start, is
//! not a singular configuration), the passage is close. Regular passages near the singular
//! configurations mostly stay above 3e-7 of the largest value; the ones that went wrong fell below
//! 1.4e-8 (see [`SINGULAR_RATIO`]).
//!
//! With redundant constraints the matrix is singular from the start, and the estimate comes from
//! the solver's minimum-norm solves. The redundancy holds only as well as the constraints do: with
//! projection at rtol 1e-6 on Bricard's mechanism the redundant direction's eigenvalue rose above
//! the linear solver's threshold (1e-13 of the largest), the solver factored the matrix as regular,
//! and the estimate read that eigenvalue, 5.7e-9 of the largest (t = 0.97 s), where the mechanism
//! has no singular configuration: `--scheme trial` at rtol 1e-6 fell back from Adams PECE (0.04 s)
//! to ESDIRK4(3)6L (0.17 s). Such matrices are not judged. (Judging the null space at the
//! least-squares threshold, 1e-10, in the solvers instead made ESDIRK4(3)6L in index 3 on Bricard
//! three times slower at rtol 1e-4, with 236 SVDs.) What happens at a close passage follows
//! `[solver.constraints] singular_configuration`: `warn` (the default) goes on and reports the
//! passage in summary.json, `stop` ends the run there with
//! [`super::FormulationError::SingularConfiguration`] (what `--scheme auto` and `--scheme trial`
//! ask, to fall back to a position-level pair).
//!
//! Cost: one solve with the factors already computed, no allocation; measured 5–7 % of the loop
//! time of Adams PECE and Dormand–Prince with projection on Andrews' squeezer, the N = 40 chain and
//! the pendulum.

use crate::linalg::Vector;

use super::workspace::Workspace;
use super::{FormulationError, SingularityPolicy};

/// The smallest ratio of the estimated smallest eigenvalue of the acceleration-level matrix to its
/// largest estimate in the run that is still taken as regular. Measured with Dormand–Prince 5(4)
/// and Adams PECE with projection at rtol 1e-4 … 1e-8 on the double four-bar and the N = 40 chain
/// (`scripts/singular_watch.py`, docs/acceleration_level.md): the four runs that left the
/// reference's branch (B0 2 m off) fell to 1.4e-8 or below at the passage where they did; of the
/// runs that stayed on it, fourteen stayed above 3.3e-7 and two came as close as 8e-9 and 6.6e-11
/// and still passed. The ratio cannot tell these apart, so the watch flags a close passage rather
/// than judging it; the threshold lies between the two groups of the measured runs.
pub const SINGULAR_RATIO: f64 = 1e-7;

/// The closest approach of a run to a singular configuration.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Passage {
    /// Time of the integration point \[s\].
    pub t: f64,
    /// Estimated smallest eigenvalue of the acceleration-level matrix over its largest estimate
    /// in the run (0 when the linear solver found the matrix singular).
    pub ratio: f64,
}

impl Passage {
    /// True when the passage was closer than [`SINGULAR_RATIO`].
    pub fn is_singular(&self) -> bool {
        self.ratio < SINGULAR_RATIO
    }
}

/// The state of the watch (see the module documentation). Allocates only when built.
#[derive(Debug)]
pub struct SingularityWatch {
    probe: Vector,
    largest: f64,
    /// Whether the first factorization was singular (redundant constraints): `None` before it.
    singular_at_start: Option<bool>,
    policy: SingularityPolicy,
    /// The first passage closer than [`SINGULAR_RATIO`], else the closest so far.
    pub closest: Option<Passage>,
}

impl SingularityWatch {
    /// A watch for a matrix of `dim` = n + m rows that acts on a close passage by `policy`.
    pub fn new(dim: usize, policy: SingularityPolicy) -> Self {
        SingularityWatch {
            probe: Vector::from_element(dim, 1.0),
            largest: 0.0,
            singular_at_start: None,
            policy,
            closest: None,
        }
    }

    /// One step of inverse iteration with the matrix factored in `work` at time `t` \[s\];
    /// records the passage when it is the closest so far and no singular one was recorded.
    ///
    /// # Errors
    /// [`FormulationError::SingularConfiguration`], with the policy `stop`, when the matrix became
    /// singular or its smallest eigenvalue fell below [`SINGULAR_RATIO`] of the largest estimate
    /// so far.
    pub fn check(&mut self, work: &mut Workspace, t: f64) -> Result<(), FormulationError> {
        let ratio = self.ratio(work);
        if self
            .closest
            .is_none_or(|c| !c.is_singular() && ratio < c.ratio)
        {
            self.closest = Some(Passage { t, ratio });
        }
        if ratio < SINGULAR_RATIO && self.policy == SingularityPolicy::Stop {
            return Err(FormulationError::SingularConfiguration { ratio });
        }
        Ok(())
    }

    /// The estimated smallest eigenvalue over the largest estimate so far; 0 when the matrix is
    /// singular and was not at the start, 1 when nothing can be estimated: also when it was
    /// singular at the start (redundant constraints) and the linear solver now takes it for
    /// regular, since that smallest eigenvalue is the redundancy's, lifted above the solver's
    /// threshold by the constraints' own error (module documentation).
    fn ratio(&mut self, work: &mut Workspace) -> f64 {
        let singular = work.is_singular();
        let at_start = *self.singular_at_start.get_or_insert(singular);
        if singular && !at_start {
            return 0.0;
        }
        if at_start && !singular {
            return 1.0;
        }
        let norm = self.probe.norm();
        if !(norm.is_finite() && norm > 0.0) {
            self.probe.fill(1.0);
        } else {
            self.probe /= norm;
        }
        work.solve_in_place(&mut self.probe);
        let growth = self.probe.norm();
        if !growth.is_finite() {
            self.probe.fill(1.0);
            return 0.0;
        }
        if growth == 0.0 {
            return 1.0;
        }
        let estimate = 1.0 / growth;
        self.largest = self.largest.max(estimate);
        estimate / self.largest
    }
}
