//! The stability chart of `dynastep stability`: spectral radius and period elongation against
//! Ω = ωh, from the reports of [`dynastep::analysis::stability::analyse`].

use std::path::Path;

use dynastep::analysis::stability::{StabilityPoint, StabilityReport};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::canvas::{color, render, Figure};
use crate::PlotError;

/// The reports to draw.
struct Chart<'a>(&'a [StabilityReport]);

fn label(r: &StabilityReport) -> String {
    let rho = r
        .parameters
        .iter()
        .find(|(k, _)| k == "rho_inf")
        .map(|(_, v)| *v);
    let mut s = r.scheme.clone();
    if let Some(v) = rho.filter(|v| *v >= 0.0) {
        s.push_str(&format!(" (ρ∞ = {})", (v * 1e4).round() / 1e4));
    }
    if let Some(w) = r.omega_crit {
        s.push_str(&format!(", Ω_crit = {w:.4}"));
    }
    s
}

const RHO_TOP: f64 = 1.5;

impl Figure for Chart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String> {
        let reports = self.0;
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(err)?;
        let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 * 55 / 100);
        let all: Vec<&StabilityPoint> = reports.iter().flat_map(|r| r.points.iter()).collect();
        let (mut wmin, mut wmax) = (f64::INFINITY, 0.0_f64);
        for p in &all {
            wmin = wmin.min(p.omega_h);
            wmax = wmax.max(p.omega_h);
        }
        if all.is_empty() || wmin >= wmax {
            return Err("nothing to plot: the reports need at least two values of Ω".into());
        }
        // Panel 1: spectral radius.
        let mut chart = ChartBuilder::on(&top)
            .caption("Spectral radius", ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d((wmin..wmax).log_scale(), 0.0..RHO_TOP)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("Ω = ωh")
            .y_desc("ρ")
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(err)?;
        for (i, r) in reports.iter().enumerate() {
            let style = ShapeStyle::from(&color(i)).stroke_width(2);
            // Values above the top of the axis are drawn at the top, and the curve stops there: the
            // vertical rise marks Ω_crit of a conditionally stable scheme.
            let mut pts: Vec<(f64, f64)> = Vec::new();
            for p in &r.points {
                let clipped = !(p.spectral_radius.is_finite() && p.spectral_radius <= RHO_TOP);
                pts.push((p.omega_h, if clipped { RHO_TOP } else { p.spectral_radius }));
                if clipped {
                    break;
                }
            }
            chart
                .draw_series(LineSeries::new(pts, style))
                .map_err(err)?
                .label(label(r))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(err)?;
        // Panel 2: period elongation in percent where the principal pair is complex, Ω ≤ 1.
        let pe_max = (1.0 + 1e-9_f64).min(wmax);
        let mut ymin = 0.0_f64;
        let mut ymax = 0.0_f64;
        for p in all.iter().filter(|p| p.omega_h <= pe_max) {
            if let Some(pe) = p.period_elongation {
                ymin = ymin.min(100.0 * pe);
                ymax = ymax.max(100.0 * pe);
            }
        }
        let pad = 0.05 * (ymax - ymin).max(1e-3);
        let mut chart = ChartBuilder::on(&bottom)
            .caption(
                "Period elongation T_num/T − 1 (principal roots)",
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d((wmin..pe_max).log_scale(), (ymin - pad)..(ymax + pad))
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("Ω = ωh")
            .y_desc("PE [%]")
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(err)?;
        for (i, r) in reports.iter().enumerate() {
            let style = ShapeStyle::from(&color(i)).stroke_width(2);
            let pts: Vec<(f64, f64)> = r
                .points
                .iter()
                .filter(|p| p.omega_h <= pe_max)
                .filter_map(|p| p.period_elongation.map(|pe| (p.omega_h, 100.0 * pe)))
                .collect();
            chart
                .draw_series(LineSeries::new(pts, style))
                .map_err(err)?;
        }
        root.present().map_err(err)?;
        Ok(())
    }
}

/// Draws the reports on one figure: spectral radius against Ω on a log axis (top panel) and period
/// elongation in percent for Ω ≤ 1 (bottom panel), one colour per report, legend in the top panel.
/// The format follows the extension of `path`: `.png` (1000 × 900 pixels) or `.svg`.
///
/// # Errors
/// [`PlotError::Format`] for another extension; [`PlotError::Draw`] when drawing or writing fails,
/// or the reports hold fewer than two values of Ω.
pub fn write_chart(reports: &[StabilityReport], path: &Path) -> Result<(), PlotError> {
    render(&Chart(reports), path, (1000, 900))
}
