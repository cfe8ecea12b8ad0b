//! Shared helpers of the tests that run the example models (included with `#[path]`; in `common/` so cargo does not build it as a test of its own).
#![allow(dead_code)]

use dynastep::analysis::dynamic::{Recorder, RunReport, RunStatus};
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::model::Model;
use dynastep::system::mechanism::Mechanism;
use dynastep::system::multibody::Multibody;

/// The embedded example `name`, parsed.
pub fn model(name: &str) -> Model {
    let ex = dynastep::examples::find(name).unwrap_or_else(|| panic!("no example {name}"));
    dynastep::model::parse::from_str(ex.text, ex.file)
        .unwrap_or_else(|e| panic!("{}: {e}", ex.file))
}

/// A finished run: the system (for markers and poses), the report and every sampled state.
pub struct Run {
    pub system: Multibody,
    pub report: RunReport,
    pub rec: Recorder,
}

impl Run {
    /// Index of the marker called `name`.
    pub fn marker(&self, name: &str) -> usize {
        self.system
            .marker_names()
            .iter()
            .position(|m| *m == name)
            .unwrap_or_else(|| panic!("no marker {name}"))
    }

    /// Index of the body called `name`.
    pub fn body(&self, name: &str) -> usize {
        self.system
            .body_index(name)
            .unwrap_or_else(|| panic!("no body {name}"))
    }

    /// Position of marker `k` in sample `s`.
    pub fn marker_at(&self, k: usize, s: usize) -> [f64; 2] {
        let st = &self.rec.states[s];
        let p = self.system.marker_state(k, &st.q, &st.v).0;
        [p[0], p[1]]
    }

    /// The largest |x² + y² − 1| over the samples of a run of the pendulum example (a point mass
    /// on a 1 m rod from the origin): the drift of the rod length squared \[m²\].
    pub fn rod_drift(&self) -> f64 {
        self.rec
            .states
            .iter()
            .map(|s| (s.q[0] * s.q[0] + s.q[1] * s.q[1] - 1.0).abs())
            .fold(0.0, f64::max)
    }

    /// Panics unless the run reached its end time.
    pub fn assert_completed(&self) {
        assert!(
            matches!(self.report.status, RunStatus::Completed),
            "run did not complete: {:?}",
            self.report.status
        );
    }
}

/// Runs `model` through [`Simulation`] with `scheme` and parameters, step `dt`; `t_end` and
/// `output_interval` override the model's when given.
pub fn run(
    model: &Model,
    scheme: &str,
    params: &[(&str, f64)],
    dt: f64,
    t_end: Option<f64>,
    output_interval: Option<f64>,
) -> Run {
    let opts = RunOptions {
        scheme: Some(scheme.to_string()),
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        dt: Some(dt),
        t_end,
        output_interval,
        ..RunOptions::default()
    };
    run_with(model, &opts)
}

/// Runs `model` through [`Simulation`] with the given options, recording every sample.
pub fn run_with(model: &Model, opts: &RunOptions) -> Run {
    let mut sim = Simulation::new(model, opts).unwrap_or_else(|e| panic!("{}: {e}", model.name));
    let mut rec = Recorder::default();
    let report = sim.run(&mut [&mut rec]);
    Run {
        system: sim.system,
        report,
        rec,
    }
}

/// Rows of a CSV file under `reference/` at the repository root (header skipped).
pub fn reference(file: &str) -> Vec<Vec<f64>> {
    let path = format!("{}/../../reference/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split(',')
                .map(|x| x.trim().parse::<f64>().unwrap())
                .collect()
        })
        .collect()
}

/// Index of the sample whose time is closest to `t` (panics if none within 1e-9 s).
pub fn sample_at(rec: &Recorder, t: f64) -> usize {
    let k = rec
        .states
        .iter()
        .enumerate()
        .min_by(|a, b| (a.1.t - t).abs().total_cmp(&(b.1.t - t).abs()))
        .map(|(k, _)| k)
        .unwrap();
    assert!(
        (rec.states[k].t - t).abs() < 1e-9,
        "no sample at t = {t} (closest {})",
        rec.states[k].t
    );
    k
}

/// Andrews' squeezer: the IVP test set's q at t = 0.03 s, (β, Θ, γ, Φ, δ, Ω, ε) (PSIDE, rtol 1e-14).
pub const ANDREWS_Q_REF: [f64; 7] = [
    15.81077119629904,
    -15.75637105984298,
    0.04082224013073101,
    -0.5347301163226948,
    0.5244099658805304,
    0.5347301163226948,
    1.048080741042263,
];

/// Andrews' squeezer: Hairer–Wanner's coordinates (β, Θ, γ, Φ, δ, Ω, ε) from the body angles of
/// `examples/andrews.toml` at coordinates `q`: β = θ_OF, Θ = θ_FE − θ_OF, γ = θ_EBD,
/// Φ = θ_EG − θ_AG, δ = θ_AG, Ω = θ_HE − θ_AH, ε = θ_AH.
pub fn andrews_angles(run: &Run, q: &dynastep::Vector) -> [f64; 7] {
    let th = |name: &str| run.system.body_pose(run.body(name), q)[2];
    [
        th("OF"),
        th("FE") - th("OF"),
        th("EBD"),
        th("EG") - th("AG"),
        th("AG"),
        th("HE") - th("AH"),
        th("AH"),
    ]
}

/// Slider position of the driven slider-crank example in closed form \[m\]: x = r cos θ +
/// √(l² − r² sin² θ), r = 0.1 m, l = 0.3 m, θ = π/4 + 2πt.
pub fn slider_crank_x(t: f64) -> f64 {
    let (r, l) = (0.1_f64, 0.3_f64);
    let th = std::f64::consts::FRAC_PI_4 + 2.0 * std::f64::consts::PI * t;
    r * th.cos() + (l * l - (r * th.sin()).powi(2)).sqrt()
}

/// Energy T + V of the driven slider-crank example in closed form \[J\] and the slider velocity ẋ
/// \[m/s\] at time t: every pose follows from θ = π/4 + 2πt (crank 0.5 kg, I_O = I_c + m·0.05²;
/// rod 1 kg, I = 0.0075 kg m², its centre midway between A and B; slider 2 kg on y = 0; spring
/// k = 50 N/m, l₀ = 0.25 m from the slider to W = (0.6, 0); g = 9.81 m/s²; data of
/// `examples/slider-crank.toml`).
fn slider_crank_energy(t: f64) -> (f64, f64) {
    let (r, l, w, g) = (0.1_f64, 0.3_f64, 2.0 * std::f64::consts::PI, 9.81);
    let th = std::f64::consts::FRAC_PI_4 + w * t;
    let (s, c) = th.sin_cos();
    let root = (l * l - (r * s).powi(2)).sqrt();
    let (x, xd) = (r * c + root, -r * s * w - r * r * s * c * w / root);
    let (a, ad) = ([r * c, r * s], [-r * s * w, r * c * w]);
    let phi = (-r * s / l).asin();
    let phid = -r * c * w / (l * phi.cos());
    let crank = 0.5 * (0.000_416_666_666_666_666_75 + 0.5 * 0.05 * 0.05) * w * w;
    let rod_v2 = ((ad[0] + xd) / 2.0).powi(2) + (ad[1] / 2.0).powi(2);
    let kinetic = crank + 0.5 * rod_v2 + 0.5 * 0.0075 * phid * phid + 0.5 * 2.0 * xd * xd;
    let potential = 0.5 * g * 0.05 * s + g * a[1] / 2.0 + 0.5 * 50.0 * (0.6 - x - 0.25).powi(2);
    (kinetic + potential, xd)
}

/// The driver torque of the driven slider-crank example in closed form \[N m\], from the power
/// balance τω = dE/dt + c ẋ² (the damper, c = 2 N s/m, dissipates c ẋ²; ω = 2π rad/s); dE/dt by a
/// fourth-order central difference of [`slider_crank_energy`] (δ = 1e-4 s, error below 1e-11 N m).
pub fn slider_crank_driver_torque(t: f64) -> f64 {
    let d = 1e-4;
    let e = |t: f64| slider_crank_energy(t).0;
    let de = (-e(t + 2.0 * d) + 8.0 * e(t + d) - 8.0 * e(t - d) + e(t - 2.0 * d)) / (12.0 * d);
    let xd = slider_crank_energy(t).1;
    (de + 2.0 * xd * xd) / (2.0 * std::f64::consts::PI)
}

/// B0 of the double four-bar at t = 10 s (DOP853 on the 1-DOF reduction, rtol 1e-13) \[m\].
pub const DOUBLE_FOURBAR_B0_10: [f64; 2] = [0.3284581115, 0.9445185382];

/// Distance of B0 in the last sample of a double four-bar run from [`DOUBLE_FOURBAR_B0_10`] \[m\].
pub fn double_fourbar_b0_error(run: &Run) -> f64 {
    let got = run.marker_at(run.marker("B0"), run.rec.states.len() - 1);
    let want = DOUBLE_FOURBAR_B0_10;
    ((got[0] - want[0]).powi(2) + (got[1] - want[1]).powi(2)).sqrt()
}
