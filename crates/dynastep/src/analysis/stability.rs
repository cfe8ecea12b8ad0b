//! Linear stability analysis of a scheme, by applying the scheme itself to the test oscillator
//! ẍ + 2ξωẋ + ω²x = 0 ([`LinearOscillator`]) through the registry and the index-3 formulation, with
//! the step routine of the time loop ([`super::step::solve_step`]). No scheme needs a hand-derived
//! amplification matrix.
//!
//! # The history and the amplification matrix
//! A scheme's history (the state it carries from step to step) differs between families: (q, v, a)
//! for Newmark, plus the filtered acceleration for generalized-α and the force terms for HHT; two
//! time levels for LMS2; positions of two levels for central differences. Its stored form
//! ([`History`]) may hold more than the scheme's dynamics needs, and a scheme may keep private
//! state besides. The amplification matrix is therefore defined generically, as the *minimal
//! linear realization* of the scheme applied to the oscillator, identified from the scheme's
//! responses (the eigensystem-realization idea of Ho & Kalman 1966, with many initial conditions
//! instead of one impulse):
//!
//! 1. With h = 1 s and ω = Ω/h, run E = 3 + W·P + d experiments (P points per step, W warm-up steps:
//!    4, or the bound d = 3·(time levels) + (auxiliary vectors) on the scheme's history dimension
//!    when that is larger, e.g. 12 for LMS4 and 18 for SS4):
//!    three start from the unit states (q, v, a) = e_1, e_2, e_3 (a is deliberately not consistent with
//!    q and v); W·P start from rest and add a unit perturbation to the accepted solution u of
//!    one point k of one warm-up step s (with the force terms recomputed at the perturbed point). These
//!    perturbations are the errors a Newton tolerance leaves, so they excite every history direction
//!    a real run can excite, including the parasitic roots of multistep methods and the earlier time
//!    levels. The last d set the stored history after step W to s_i e_i, one entry i at a time, with
//!    s_i the largest size entry i reached in the experiments before (entries that stayed zero are
//!    skipped). Perturbations of the solution alone reach a cluster of nearly coinciding roots only
//!    to the order of its spread (LMS3 at ρ∞ = 0.99 has four within 2e-5 of each other at Ω = 1;
//!    the fourth direction came out at 2e-11 of the data, below the rank threshold, and a spurious
//!    root of modulus 1.08 took its place); the history perturbations reach every direction at O(1).
//! 2. After step W every run is in the time-invariant regime (start-up steps such as LMS2's
//!    trapezoidal step and the first central-difference step are over). The reported states
//!    z_j = (q, v, a) after steps W … W + L (L = max(6, r/3 + 2)) of each experiment form the block-Hankel data
//!    H = \[z_W … z_{W+L−1}\] (3L × E) and its shift H′ = \[z_{W+1} … z_{W+L}\]. For a linear scheme
//!    H = O S and H′ = O A S, with O the observability matrix over the window, S the histories after
//!    step W and A the amplification matrix of the history.
//! 3. After scaling down the time blocks that exceed the first one (a legitimate change of O, needed
//!    beyond a stability limit where the responses grow), the singular value decomposition H = U Σ Vᵀ truncated to the numerical rank r
//!    (σ_i > 1e-10 σ_1) gives A_r = Σ_r^{−½} U_rᵀ H′ V_r Σ_r^{−½}, similar to A restricted to the
//!    reachable and observable history. r is the history dimension ("minimal" means that storage
//!    which does not influence the future, such as LMS2's a_{n−1} beyond the combination it enters,
//!    is not counted). Directions whose contribution over the window is below 1e-10 of the largest
//!    (e.g. q after a step at Ω = 10⁸, which an implicit scheme sets to O(Ω⁻²)) are dropped.
//!
//! Eigenvalues of A_r: nalgebra's `complex_eigenvalues` (real Schur form). Only its eigenvalues are
//! meaningful, not its entries (the coordinates are those of the SVD).
//!
//! # Measures (Zhang, Zhang, Zanoni & Masarati 2022, Multibody Syst Dyn, section 4)
//! * spectral radius ρ(Ω) = max |λ_i|; above 1 + [`INSTABILITY_MARGIN`] only if the mean of each
//!   cluster that is one multiple root at the identification's precision confirms it
//!   ([`FINITE_ROOT_SPLITTING`]);
//! * the principal pair λ = exp(h(−ξ̄ω̄ ± iω̄√(1 − ξ̄²))) is the eigenvalue with positive imaginary
//!   part closest to the exact exp(h(−ξω + iω√(1 − ξ²))); from ln λ = ln|λ| + i arg λ:
//!   ω̄h = |ln λ|, amplitude decay ratio ξ̄ = −ln|λ| / (ω̄h), period elongation (T̄ − T)/T = ω/ω̄ − 1
//!   (eq. 22 and the text after it). Both are `None` when no complex eigenvalue exists (the
//!   principal roots have become real, at large Ω for dissipative schemes, or ξ ≥ 1);
//! * Ω_crit: the first Ω of the grid where ρ > 1 + [`INSTABILITY_MARGIN`], refined by bisection
//!   against the previous grid point (or 0) to a relative width of 1e-10;
//! * ρ∞ = ρ(Ω = 10⁸) ([`OMEGA_INFINITY`]) with the same ξ, from the means of the groups of
//!   eigenvalues that are one multiple root ([`multiple_root_radius`]): the roots at infinity of LMS2,
//!   generalized-α and LMS4 coincide, and individual eigenvalues of such a defective matrix are
//!   computed only to about ε^(1/k).

use std::io::Write;

use nalgebra::Complex;

use super::step::{solve_step, StepWork};
use crate::formulation::{FormulationError, Index3, NewtonSettings, NewtonStats};
use crate::linalg::{Matrix, Vector};
use crate::scheme::{build, History, IntegrationPoint, SchemeError, SchemeParams, State};
use crate::system::test_problems::LinearOscillator;
use crate::system::System;

/// Ω treated as infinity for ρ∞ \[-\].
pub const OMEGA_INFINITY: f64 = 1e8;
/// A spectral radius above 1 + this margin counts as unstable (it absorbs the rounding of the
/// identification, which matters where two eigenvalues on the unit circle nearly coincide).
pub const INSTABILITY_MARGIN: f64 = 1e-7;
/// Relative singular-value threshold of the numerical rank of the response data.
pub const RANK_TOLERANCE: f64 = 1e-10;
/// The threshold for ρ∞ at Ω = [`OMEGA_INFINITY`], where the positions (O(Ω⁻²) = 1e-16 of the
/// data) fall below it anyway: the eight-fold root at infinity of LMS4 and SS4 at ρ∞ = 0.9 has a
/// direction between 1e-13 and 1e-10 of the largest, and without it the rest of the group is not
/// centred on the root (0.917 and 0.907 instead of 0.9).
pub const RHO_INF_RANK_TOLERANCE: f64 = 1e-13;
/// Fewest warm-up steps W and window steps L (see the module documentation).
const WARMUP_STEPS: usize = 4;
const WINDOW: usize = 6;

/// Warm-up steps W and window L for a scheme whose history holds `levels` time levels and `aux`
/// auxiliary vectors: its stored history has r = 3·levels + aux entries for one coordinate; W ≥ r
/// covers the start-up steps (LMS-k: k − 1 of them) with room to spare, the r history
/// perturbations reach every stored direction, and 3L ≥ r + 3 rows make every direction observable.
fn identification_lengths(levels: usize, aux: usize) -> (usize, usize) {
    let r = 3 * levels + aux;
    (WARMUP_STEPS.max(r), WINDOW.max(r / 3 + 2))
}

/// Errors of the stability analysis and its writers.
#[derive(Debug, thiserror::Error)]
pub enum StabilityError {
    /// Unknown scheme or inadmissible parameters.
    #[error(transparent)]
    Scheme(#[from] SchemeError),
    /// An integration point of the oscillator could not be solved (non-finite values, typically far
    /// beyond the stability limit of an explicit scheme).
    #[error("scheme `{scheme}` at Omega = {omega:e}: {source}")]
    Solve {
        /// Scheme name.
        scheme: String,
        /// Ω = ωh.
        omega: f64,
        /// The formulation's error.
        source: FormulationError,
    },
    /// Invalid input (negative ξ, non-positive or non-finite Ω, empty grid).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// Writing the CSV file failed.
    #[error("CSV output: {0}")]
    Csv(#[from] csv::Error),
    /// Writing a file failed.
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

/// The measures at one Ω.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StabilityPoint {
    /// Ω = ωh \[-\].
    pub omega_h: f64,
    /// Spectral radius of the amplification matrix \[-\].
    pub spectral_radius: f64,
    /// Amplitude decay ratio ξ̄ (numerical damping ratio) of the principal pair \[-\]; `None` when the
    /// principal roots are real.
    pub amplitude_decay: Option<f64>,
    /// Period elongation (T̄ − T)/T = ω/ω̄ − 1 of the principal pair \[-\]; `None` when the principal
    /// roots are real.
    pub period_elongation: Option<f64>,
    /// Eigenvalues (re, im) of the identified amplification matrix, by decreasing modulus.
    pub eigenvalues: Vec<(f64, f64)>,
}

/// The result of [`analyse`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StabilityReport {
    /// Registry name of the scheme.
    pub scheme: String,
    /// The scheme's parameters as it reports them.
    pub parameters: Vec<(String, f64)>,
    /// Physical damping ratio ξ of the test oscillator \[-\].
    pub xi: f64,
    /// Dimension r of the identified history at Ω = 1 (see the module documentation).
    pub history_dimension: usize,
    /// Measures at each Ω of the grid, in the order given.
    pub points: Vec<StabilityPoint>,
    /// First Ω of the grid region where ρ > 1 + [`INSTABILITY_MARGIN`], refined by bisection; `None`
    /// when stable over the whole grid.
    pub omega_crit: Option<f64>,
    /// Spectral radius at Ω = [`OMEGA_INFINITY`]; infinite or very large for conditionally stable
    /// schemes.
    pub rho_inf: f64,
}

/// Log-spaced grid of `count` values of Ω from `from` to `to` (both included).
///
/// # Panics
/// When `count < 2` or the bounds are not positive.
pub fn log_grid(from: f64, to: f64, count: usize) -> Vec<f64> {
    assert!(
        count >= 2 && from > 0.0 && to > 0.0,
        "log_grid needs count ≥ 2 and positive bounds"
    );
    let (a, b) = (from.ln(), to.ln());
    (0..count)
        .map(|i| (a + (b - a) * i as f64 / (count - 1) as f64).exp())
        .collect()
}

/// One experiment: start state and an optional perturbation (step, point) of the accepted solution.
#[derive(Clone, Copy, PartialEq)]
enum Excitation {
    Start(usize),
    Inject(usize, usize),
    /// The history vector set to s e_i (entry i, size s) after the last warm-up step.
    History(usize, f64),
}

/// Length of the history vector of one coordinate (no multipliers): q, v, a of every level, then
/// the auxiliary vectors.
fn history_len(h: &History) -> usize {
    3 * h.levels.len() + h.aux.len()
}

/// Writes the history of the one-coordinate oscillator as a vector (see [`history_len`]).
fn read_history(h: &History, out: &mut Vec<f64>) {
    out.clear();
    for level in &h.levels {
        out.extend([level.q[0], level.v[0], level.a[0]]);
    }
    out.extend(h.aux.iter().map(|x| x[0]));
}

/// Sets the history vector (see [`history_len`]) to s e_i; the level times stay.
fn set_history_entry(h: &mut History, i: usize, s: f64) {
    for level in &mut h.levels {
        (level.q[0], level.v[0], level.a[0]) = (0.0, 0.0, 0.0);
    }
    for x in &mut h.aux {
        x[0] = 0.0;
    }
    let levels = 3 * h.levels.len();
    if i < levels {
        let level = &mut h.levels[i / 3];
        [&mut level.q, &mut level.v, &mut level.a][i % 3][0] = s;
    } else {
        h.aux[i - levels][0] = s;
    }
}

/// The responses of one experiment.
struct Response {
    /// The reported (q, v, a) after steps W … W + L.
    outputs: Vec<[f64; 3]>,
    /// The history vector after step W, before any [`Excitation::History`] (see [`read_history`]).
    history: Vec<f64>,
}

/// Runs one experiment.
fn experiment(
    scheme_name: &str,
    params: &SchemeParams,
    sys: &LinearOscillator,
    excitation: Excitation,
    (warmup, window): (usize, usize),
) -> Result<Response, StabilityError> {
    let mut scheme = build(scheme_name, params)?;
    let h = 1.0;
    let mut x0 = State::zeros(0.0, 1, 0);
    if let Excitation::Start(c) = excitation {
        match c {
            0 => x0.q[0] = 1.0,
            1 => x0.v[0] = 1.0,
            _ => x0.a[0] = 1.0,
        }
    }
    let mut f0 = Vector::zeros(1);
    sys.forces(x0.t, &x0.q, &x0.v, &mut f0);
    f0.neg_mut();
    scheme.start(&x0, &f0);
    // The oscillator is linear, so the first Newton step is exact to rounding and the second one
    // confirms it through the position correction. The residual test is switched off: at large Ω the
    // residual a + ω²q cannot fall below ~Ω²ε of its terms, because q = q̂ + c_q u cancels.
    let settings = NewtonSettings {
        max_iterations: 50,
        residual_tol: f64::INFINITY,
        // An identification wants every point solved to rounding: a new matrix every iteration.
        method: crate::formulation::NewtonMethod::Full,
        ..NewtonSettings::default()
    };
    let mut form = Index3::new(1, 0, settings);
    let mut work = StepWork::new(1, 0);
    let mut stats = NewtonStats::default();
    let mut state = x0.clone();
    let mut outputs = Vec::with_capacity(window + 1);
    let mut history = Vec::new();
    for step in 1..=warmup + window {
        // The perturbation of one warm-up point: u += 1, with the force terms recomputed there.
        let mut inject = |k: usize, pt: &IntegrationPoint, u: &mut Vector, f: &mut Vector| {
            if excitation == Excitation::Inject(step, k) {
                u[0] += 1.0;
                let q = Vector::from_element(1, pt.q_hat[0] + pt.c_q * u[0]);
                let v = Vector::from_element(1, pt.v_hat[0] + pt.c_v * u[0]);
                sys.forces(pt.t_e, &q, &v, f);
                f.neg_mut();
            }
        };
        solve_step(
            sys,
            scheme.as_mut(),
            &mut form,
            &mut work,
            (step - 1) as f64 * h,
            h,
            &mut stats,
            Some(&mut inject),
        )
        .map_err(|f| StabilityError::Solve {
            scheme: scheme_name.to_string(),
            omega: sys.omega,
            source: f.error,
        })?;
        scheme.end_step(&mut state);
        if step == warmup {
            read_history(scheme.history(), &mut history);
            if let Excitation::History(i, s) = excitation {
                set_history_entry(scheme.history_mut(), i, s);
                let newest = scheme.history().newest();
                (state.q[0], state.v[0], state.a[0]) = (newest.q[0], newest.v[0], newest.a[0]);
            }
        }
        if step >= warmup {
            outputs.push([state.q[0], state.v[0], state.a[0]]);
        }
    }
    Ok(Response { outputs, history })
}

/// The identified amplification matrix (r × r).
struct Realization {
    a: Matrix,
}

/// The realization at Ω = `omega_h` with the numerical rank taken at singular values above
/// `rank_tol` times the largest (see the module documentation).
fn realize(
    scheme_name: &str,
    params: &SchemeParams,
    xi: f64,
    omega_h: f64,
    rank_tol: f64,
) -> Result<Realization, StabilityError> {
    let sys = LinearOscillator { omega: omega_h, xi };
    let (responses, window) = responses(scheme_name, params, &sys)?;
    let (mut h0, mut h1) = hankel_pair(&responses, window);
    if !(h0.iter().chain(h1.iter()).all(|x| x.is_finite())) {
        return Err(StabilityError::Solve {
            scheme: scheme_name.to_string(),
            omega: omega_h,
            source: FormulationError::NonFinite,
        });
    }
    balance_blocks(&mut h0, &mut h1, window);
    let a = reduce(&h0, &h1, rank_tol).ok_or_else(|| StabilityError::Solve {
        scheme: scheme_name.to_string(),
        omega: omega_h,
        source: FormulationError::NonFinite,
    })?;
    Ok(Realization { a })
}

/// The responses of `sys` to every excitation (the three starting values, an injection at each
/// point of the warm-up steps, then each history entry), and the window length they span.
fn responses(
    scheme_name: &str,
    params: &SchemeParams,
    sys: &LinearOscillator,
) -> Result<(Vec<Response>, usize), StabilityError> {
    let scheme = build(scheme_name, params)?;
    let points = scheme.points_per_step();
    let history = scheme.history();
    let lengths = identification_lengths(history.levels.len(), history.aux.len());
    let (warmup, window) = lengths;
    let mut excitations: Vec<Excitation> = (0..3).map(Excitation::Start).collect();
    for s in 1..=warmup {
        for k in 0..points {
            excitations.push(Excitation::Inject(s, k));
        }
    }
    let mut responses = Vec::with_capacity(excitations.len() + history_len(history));
    for ex in &excitations {
        responses.push(experiment(scheme_name, params, sys, *ex, lengths)?);
    }
    // History perturbations, each entry at the largest size it reached in the experiments above.
    for i in 0..history_len(history) {
        let s = responses
            .iter()
            .map(|r| r.history[i].abs())
            .fold(0.0, f64::max);
        if s > 0.0 && s.is_finite() {
            let ex = Excitation::History(i, s);
            responses.push(experiment(scheme_name, params, sys, ex, lengths)?);
        }
    }
    Ok((responses, window))
}

/// The block Hankel matrices H and H′ (3 `window` × responses): column k holds the outputs
/// z_0 … z_(window−1) of response k, and z_1 … z_window.
fn hankel_pair(responses: &[Response], window: usize) -> (Matrix, Matrix) {
    let e = responses.len();
    let rows = 3 * window;
    let mut h0 = Matrix::zeros(rows, e);
    let mut h1 = Matrix::zeros(rows, e);
    for (col, r) in responses.iter().enumerate() {
        let z = &r.outputs;
        for j in 0..window {
            for c in 0..3 {
                h0[(3 * j + c, col)] = z[j][c];
                h1[(3 * j + c, col)] = z[j + 1][c];
            }
        }
    }
    (h0, h1)
}

/// Scales down each time block that is larger than the first one (rows of one z_j, same factor in
/// H and H′), so that growing responses beyond a stability limit do not swamp the first blocks.
/// Blocks are never scaled up: that would lift rounding noise of decayed responses to O(1).
fn balance_blocks(h0: &mut Matrix, h1: &mut Matrix, window: usize) {
    let e = h0.ncols();
    let block_max = |m: &Matrix, j: usize| {
        let mut x = 0.0_f64;
        for c in 0..3 {
            for col in 0..e {
                x = x.max(m[(3 * j + c, col)].abs());
            }
        }
        x
    };
    let m0 = block_max(h0, 0);
    for j in 1..window {
        let m = block_max(h0, j);
        if m > m0 && m0 > 0.0 {
            for c in 0..3 {
                for col in 0..e {
                    h0[(3 * j + c, col)] *= m0 / m;
                    h1[(3 * j + c, col)] *= m0 / m;
                }
            }
        }
    }
}

/// The amplification matrix (r × r) of the rank-r truncated SVD of H, with the rank taken at
/// singular values above `rank_tol` times the largest; `None` when the SVD fails.
fn reduce(h0: &Matrix, h1: &Matrix, rank_tol: f64) -> Option<Matrix> {
    let (rows, e) = h0.shape();
    // faer's SVD (sorted, nonincreasing); nalgebra 0.35's SVD was seen to return factors that do not
    // reproduce some of these matrices (errors of 3e-2), which corrupted the realization.
    let fm = faer::Mat::<f64>::from_fn(rows, e, |i, j| h0[(i, j)]);
    let svd = fm.thin_svd().ok()?;
    let (fu, fv) = (svd.U(), svd.V());
    let fs = svd.S().column_vector();
    let k_max = fs.nrows();
    let sv: Vec<f64> = (0..k_max).map(|i| fs[i]).collect();
    let r = sv.iter().filter(|&&s| s > rank_tol * sv[0]).count().max(1);
    let mut ur = Matrix::zeros(rows, r);
    let mut vr = Matrix::zeros(e, r);
    for k in 0..r {
        let w = 1.0 / sv[k].sqrt();
        for i in 0..rows {
            ur[(i, k)] = fu[(i, k)] * w;
        }
        for i in 0..e {
            vr[(i, k)] = fv[(i, k)] * w;
        }
    }
    Some(ur.transpose() * h1 * &vr)
}

/// The amplification matrix of scheme `scheme_name` (with `params`) for the oscillator with damping
/// ratio `xi` at Ω = `omega_h`, identified as described in the module documentation: an r × r matrix
/// similar to the scheme's amplification matrix on its minimal history. Only its eigenvalues are
/// meaningful.
///
/// # Errors
/// [`StabilityError::Scheme`] for an unknown scheme or bad parameters; [`StabilityError::Invalid`]
/// for ξ < 0 or Ω ≤ 0; [`StabilityError::Solve`] when the responses become non-finite.
pub fn amplification_matrix(
    scheme_name: &str,
    params: &SchemeParams,
    xi: f64,
    omega_h: f64,
) -> Result<Matrix, StabilityError> {
    check_inputs(xi, &[omega_h])?;
    Ok(realize(scheme_name, params, xi, omega_h, RANK_TOLERANCE)?.a)
}

fn check_inputs(xi: f64, omegas: &[f64]) -> Result<(), StabilityError> {
    if !(xi.is_finite() && xi >= 0.0) {
        return Err(StabilityError::Invalid(format!(
            "damping ratio ξ = {xi} must be finite and ≥ 0"
        )));
    }
    if let Some(w) = omegas.iter().find(|w| !(w.is_finite() && **w > 0.0)) {
        return Err(StabilityError::Invalid(format!(
            "Ω = {w} must be finite and positive"
        )));
    }
    Ok(())
}

fn eigenvalues(a: &Matrix) -> Vec<Complex<f64>> {
    let mut ev: Vec<Complex<f64>> = a.clone().complex_eigenvalues().iter().copied().collect();
    ev.sort_by(|x, y| y.norm().total_cmp(&x.norm()));
    ev
}

fn measure(
    scheme: &str,
    params: &SchemeParams,
    xi: f64,
    omega_h: f64,
) -> Result<StabilityPoint, StabilityError> {
    let ev = eigenvalues(&realize(scheme, params, xi, omega_h, RANK_TOLERANCE)?.a);
    let rho = finite_omega_radius(&ev);
    // Principal pair: the eigenvalue with positive imaginary part closest to the exact one.
    let (amplitude_decay, period_elongation) = if xi < 1.0 {
        let wd = omega_h * (1.0 - xi * xi).sqrt();
        let exact = Complex::new(-xi * omega_h, wd).exp();
        ev.iter()
            .filter(|z| z.im > 1e-12 * z.norm())
            .min_by(|x, y| (*x - exact).norm().total_cmp(&(*y - exact).norm()))
            .map(|z| {
                let l = z.ln();
                let wbar_h = l.norm();
                (Some(-l.re / wbar_h), Some(omega_h / wbar_h - 1.0))
            })
            .unwrap_or((None, None))
    } else {
        (None, None)
    };
    Ok(StabilityPoint {
        omega_h,
        spectral_radius: rho,
        amplitude_decay,
        period_elongation,
        eigenvalues: ev.iter().map(|z| (z.re, z.im)).collect(),
    })
}

/// Relative size ε of the perturbation that splits a multiple root at Ω = [`OMEGA_INFINITY`]: the
/// identification's accuracy at Ω = [`OMEGA_INFINITY`] (its rank tolerance is 1e-13; 1e-10 leaves room
/// for the rounding of the data). It covers the splitting the scheme itself has at
/// finite Ω: a k-fold root of σ(ζ) in q and in v is a 2k-fold root of σ(ζ)² = −ρ(ζ)²/Ω², split by
/// about Ω^(−2/2k), 1e-2 for LMS4 at Ω = 10⁸, below 2 ε^(1/8) = 0.11.
pub const ROOT_SPLITTING: f64 = 1e-10;

/// Relative precision ε of the identified eigenvalues at finite Ω, used to decide whether a spectral
/// radius above 1 is a cluster of roots on the unit circle computed to about ε^(1/k) (see
/// `finite_omega_radius`): LMS2 at ρ∞ = 1 and Ω > 10⁴ has four roots within 1e-5 of −1, LMS4 at
/// ρ∞ = 0.999 eight near −0.999, identified up to 7e-6 and 9e-4 outside the circle. Two distinct
/// roots are averaged only when they are closer than 2 ε^(1/2) = 6e-8, which moves an Ω_crit where a
/// pair splits at −1 by about 1e-15.
pub const FINITE_ROOT_SPLITTING: f64 = 1e-15;

/// Largest modulus of the means of the groups of eigenvalues that are one multiple root split by a
/// perturbation of relative size `eps` \[-\].
///
/// At Ω → ∞ the roots of many schemes coincide (LMS2: four at −ρ∞; generalized-α: three; LMS4 and
/// SS4: eight). The amplification matrix is then defective, and a perturbation ε (rounding, the
/// identification, or a finite Ω) moves the eigenvalues of a k-fold root onto a ring of radius about
/// ε^(1/k) around it (0.02–0.07 for LMS4's eight at Ω = 10⁸ and ρ∞ = 0.5; 0.0065 for its nine at
/// ρ∞ = 0), while the mean of the group is as
/// well conditioned as the trace (Wilkinson, *The Algebraic Eigenvalue Problem*, 1965, §2.22).
/// Grouping: starting from the eigenvalue of largest modulus not yet grouped, its k nearest
/// eigenvalues (itself included) form a group for the largest k whose spread
/// (largest distance from the group's mean) is at most 2 ε^(1/k); distinct roots farther apart than
/// that stay apart (HHT's −ρ∞ and α/(1 + α)). Used for ρ∞ with ε = [`ROOT_SPLITTING`], and at
/// finite Ω with the much smaller ε = [`FINITE_ROOT_SPLITTING`] to confirm a radius above 1.
///
/// A group is formed only when its spread is also at most `max_relative_spread` times the modulus of
/// its mean (∞: no such condition).
pub fn multiple_root_radius(values: &[Complex<f64>], eps: f64, max_relative_spread: f64) -> f64 {
    let mut left: Vec<Complex<f64>> = values.to_vec();
    left.sort_by(|x, y| y.norm().total_cmp(&x.norm()));
    let mut radius = 0.0_f64;
    while let Some(&z0) = left.first() {
        let mut near: Vec<usize> = (0..left.len()).collect();
        near.sort_by(|&i, &j| (left[i] - z0).norm().total_cmp(&(left[j] - z0).norm()));
        let (mut size, mut mean) = (1, z0);
        for k in 2..=left.len() {
            let m = near[..k].iter().map(|&i| left[i]).sum::<Complex<f64>>() / k as f64;
            let spread = near[..k]
                .iter()
                .map(|&i| (left[i] - m).norm())
                .fold(0.0, f64::max);
            if spread <= 2.0 * eps.powf(1.0 / k as f64) && spread <= max_relative_spread * m.norm()
            {
                (size, mean) = (k, m);
            }
        }
        radius = radius.max(mean.norm());
        let mut group: Vec<usize> = near[..size].to_vec();
        group.sort_unstable_by(|a, b| b.cmp(a));
        for i in group {
            left.swap_remove(i);
        }
        left.sort_by(|x, y| y.norm().total_cmp(&x.norm()));
    }
    radius
}

/// The spectral radius at finite Ω: the largest modulus of the identified eigenvalues, unless it
/// exceeds 1 + [`INSTABILITY_MARGIN`]; then [`multiple_root_radius`] with ε =
/// [`FINITE_ROOT_SPLITTING`], grouping only clusters whose spread is below a tenth of their modulus.
/// A cluster of nearly coinciding roots on the unit circle is resolved only to about ε^(1/k) (LMS2
/// at ρ∞ = 1 and Ω = 5·10⁶: 7e-6 above 1), and a modulus above 1 counts only if the cluster's mean,
/// which is well conditioned, confirms it. Below 1 the eigenvalues themselves are kept: there the
/// grouping would average roots that are distinct and resolved (LMS3 at ρ∞ = 0.99 and Ω = 3·10⁴:
/// six roots within 0.006, the largest of modulus 0.99189 by the exact polynomial, which the raw
/// eigenvalues give to 1e-6 and the group mean as 0.99). Roots that crowd near 0 are never grouped.
fn finite_omega_radius(values: &[Complex<f64>]) -> f64 {
    let raw = values.iter().map(|z| z.norm()).fold(0.0, f64::max);
    if raw <= 1.0 + INSTABILITY_MARGIN {
        raw
    } else {
        multiple_root_radius(values, FINITE_ROOT_SPLITTING, 0.1)
    }
}

fn spectral_radius(scheme: &str, params: &SchemeParams, xi: f64, omega_h: f64) -> f64 {
    match realize(scheme, params, xi, omega_h, RANK_TOLERANCE) {
        Ok(r) => finite_omega_radius(&eigenvalues(&r.a)),
        Err(_) => f64::INFINITY,
    }
}

/// Linear stability analysis of scheme `scheme_name` (registry name, parameters `params`, missing
/// ones at their defaults) on ẍ + 2ξωẋ + ω²x = 0 with damping ratio `xi` ≥ 0 over the grid `omegas`
/// of Ω = ωh (positive; see [`log_grid`]). Method and measures in the module documentation (after
/// Zhang et al. 2022, section 4).
///
/// # Errors
/// [`StabilityError::Scheme`] for an unknown scheme or bad parameters; [`StabilityError::Invalid`]
/// for ξ < 0, an empty grid or a non-positive Ω. A point where the responses overflow (an explicit
/// scheme far beyond its limit) is reported with an infinite spectral radius rather than as an
/// error.
pub fn analyse(
    scheme_name: &str,
    params: &SchemeParams,
    xi: f64,
    omegas: &[f64],
) -> Result<StabilityReport, StabilityError> {
    check_inputs(xi, omegas)?;
    if omegas.is_empty() {
        return Err(StabilityError::Invalid("empty Ω grid".into()));
    }
    let scheme = build(scheme_name, params)?;
    let parameters = scheme
        .parameters()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let history_dimension = realize(scheme_name, params, xi, 1.0, RANK_TOLERANCE)?
        .a
        .nrows();
    let points = grid_points(scheme_name, params, xi, omegas)?;
    let omega_crit = critical_omega(scheme_name, params, xi, omegas, &points);
    let rho_inf = match realize(
        scheme_name,
        params,
        xi,
        OMEGA_INFINITY,
        RHO_INF_RANK_TOLERANCE,
    ) {
        Ok(r) => multiple_root_radius(&eigenvalues(&r.a), ROOT_SPLITTING, f64::INFINITY),
        Err(_) => f64::INFINITY,
    };
    Ok(StabilityReport {
        scheme: scheme.name().to_string(),
        parameters,
        xi,
        history_dimension,
        points,
        omega_crit,
        rho_inf,
    })
}

/// The measures at every Ω of `omegas`, in their order; a point whose responses overflow has an
/// infinite spectral radius.
fn grid_points(
    scheme_name: &str,
    params: &SchemeParams,
    xi: f64,
    omegas: &[f64],
) -> Result<Vec<StabilityPoint>, StabilityError> {
    let mut points = Vec::with_capacity(omegas.len());
    for &w in omegas {
        let p = match measure(scheme_name, params, xi, w) {
            Ok(p) => p,
            Err(StabilityError::Solve { .. }) => StabilityPoint {
                omega_h: w,
                spectral_radius: f64::INFINITY,
                amplitude_decay: None,
                period_elongation: None,
                eigenvalues: Vec::new(),
            },
            Err(e) => return Err(e),
        };
        points.push(p);
    }
    Ok(points)
}

/// Ω_crit: the first unstable grid point in increasing Ω, bisected against the previous one (or 0);
/// `None` when every point of `points` is stable.
fn critical_omega(
    scheme_name: &str,
    params: &SchemeParams,
    xi: f64,
    omegas: &[f64],
    points: &[StabilityPoint],
) -> Option<f64> {
    let mut sorted: Vec<f64> = omegas.to_vec();
    sorted.sort_by(f64::total_cmp);
    let radius_at = |w: f64| {
        points
            .iter()
            .find(|p| p.omega_h == w)
            .map(|p| p.spectral_radius)
            .unwrap_or(f64::NAN)
    };
    let mut lower = 0.0;
    for &w in &sorted {
        if radius_at(w) > 1.0 + INSTABILITY_MARGIN {
            let (mut lo, mut hi) = (lower, w);
            while hi - lo > 1e-10 * hi {
                let mid = 0.5 * (lo + hi);
                if spectral_radius(scheme_name, params, xi, mid) > 1.0 + INSTABILITY_MARGIN {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            return Some(0.5 * (lo + hi));
        }
        lower = w;
    }
    None
}

/// Writes the reports as CSV, one row per (scheme, Ω), with the header
/// `scheme,parameters,xi,omega_h,spectral_radius,amplitude_decay,period_elongation,omega_crit,rho_inf`
/// (`parameters` as `k=v;k=v`; empty cells for undefined values; all quantities dimensionless).
///
/// # Errors
/// [`StabilityError::Csv`] when writing fails.
pub fn write_csv<W: Write>(reports: &[StabilityReport], out: W) -> Result<(), StabilityError> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "scheme",
        "parameters",
        "xi",
        "omega_h",
        "spectral_radius",
        "amplitude_decay",
        "period_elongation",
        "omega_crit",
        "rho_inf",
    ])?;
    let opt = |x: Option<f64>| x.map(|v| format!("{v:e}")).unwrap_or_default();
    for r in reports {
        let params = r
            .parameters
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";");
        for p in &r.points {
            w.write_record([
                r.scheme.clone(),
                params.clone(),
                format!("{}", r.xi),
                format!("{:e}", p.omega_h),
                format!("{:e}", p.spectral_radius),
                opt(p.amplitude_decay),
                opt(p.period_elongation),
                opt(r.omega_crit),
                format!("{:e}", r.rho_inf),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}
