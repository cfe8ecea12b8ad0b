//! The chart writers produce PNG and SVG files, refuse other formats, and say when there is
//! nothing to draw.

use dynastep::analysis::stability::{analyse, log_grid};
use dynastep::scheme::SchemeParams;
use dynastep_plot::stability::write_chart;
use dynastep_plot::PlotError;

#[test]
fn stability_chart_in_png_and_svg_only() {
    let omegas = log_grid(1e-2, 1e2, 9);
    let reports = vec![
        analyse("central-difference", &SchemeParams::new(), 0.0, &omegas).unwrap(),
        analyse("bathe", &SchemeParams::new(), 0.05, &omegas).unwrap(),
    ];
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    for name in ["writers.png", "writers.svg"] {
        let path = dir.join(name);
        write_chart(&reports, &path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 1000, "{name}");
    }
    assert!(matches!(
        write_chart(&reports, &dir.join("writers.pdf")),
        Err(PlotError::Format(_))
    ));
    assert!(write_chart(&[], &dir.join("empty.png")).is_err());
}
