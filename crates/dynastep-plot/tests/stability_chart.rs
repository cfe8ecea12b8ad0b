//! Generates docs/stability.png and docs/stability.svg (and the data, stability.csv, in the target
//! directory's test scratch space): spectral radius and period
//! elongation of central differences, Fox–Goodwin, trapezoidal, generalized-α, LMS2 and ρ∞-Bathe
//! (ρ∞ = 0.6), undamped (ξ = 0). Ignored by default (it writes into the repository):
//!
//! ```text
//! cargo test -p dynastep-plot --test stability_chart -- --ignored
//! ```

use std::path::PathBuf;

use dynastep::analysis::stability::{analyse, log_grid, write_csv};
use dynastep::scheme::SchemeParams;
use dynastep_plot::stability::write_chart;

#[test]
#[ignore]
fn write_stability_chart() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    std::fs::create_dir_all(&docs).unwrap();
    let omegas = log_grid(1e-3, 1e4, 141);
    let rho: SchemeParams = [("rho_inf".to_string(), 0.6)].into_iter().collect();
    let none = SchemeParams::new();
    let reports: Vec<_> = [
        ("central-difference-reformulated", &none),
        ("fox-goodwin", &none),
        ("trapezoidal", &none),
        ("generalized-alpha", &rho),
        ("lms2", &rho),
        ("bathe", &rho),
    ]
    .into_iter()
    .map(|(s, p)| analyse(s, p, 0.0, &omegas).unwrap())
    .collect();
    for r in &reports {
        println!(
            "{}: omega_crit {:?}, rho_inf {:.6}, history dimension {}",
            r.scheme, r.omega_crit, r.rho_inf, r.history_dimension
        );
    }
    write_chart(&reports, &docs.join("stability.png")).unwrap();
    write_chart(&reports, &docs.join("stability.svg")).unwrap();
    let csv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stability.csv");
    write_csv(&reports, std::fs::File::create(&csv).unwrap()).unwrap();
    println!("data in {}", csv.display());
}
