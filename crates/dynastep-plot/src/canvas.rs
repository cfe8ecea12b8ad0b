//! What every chart shares: the embedded font, the palette, and writing a figure to PNG or SVG by
//! the file's extension.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::{BitMapBackend, DrawingArea, DrawingBackend, IntoDrawingArea, SVGBackend};
use plotters::style::RGBColor;

use crate::PlotError;

/// A figure that can be drawn on any plotters backend.
pub trait Figure {
    /// Draws the figure on `root` (white background included).
    ///
    /// # Errors
    /// A message when plotters fails or the data cannot be drawn.
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// The ten colours of the category palette (Tableau 10, as in matplotlib), cycled by series index.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

static FONT: std::sync::Once = std::sync::Once::new();

/// Registers the embedded DejaVu Sans (Bitstream Vera licence, `assets/DejaVuSans-LICENSE.txt`) as
/// "sans-serif", once per process.
fn register_font() {
    FONT.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../assets/DejaVuSans.ttf");
        let _ =
            plotters::style::register_font("sans-serif", plotters::style::FontStyle::Normal, bytes);
    });
}

/// Writes `figure` to `path`, `size` = (width, height) in pixels; the format follows the extension:
/// `.png` or `.svg`.
///
/// # Errors
/// [`PlotError::Format`] for another extension; [`PlotError::Draw`] when drawing or writing fails.
pub fn render<F: Figure>(figure: &F, path: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    register_font();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    let drawn = match ext.as_deref() {
        Some("png") => figure.draw(BitMapBackend::new(path, size).into_drawing_area()),
        Some("svg") => figure.draw(SVGBackend::new(path, size).into_drawing_area()),
        _ => {
            return Err(PlotError::Format(format!(
                "chart file `{}` must end in .png or .svg",
                path.display()
            )))
        }
    };
    drawn.map_err(|message| PlotError::Draw {
        path: path.display().to_string(),
        message,
    })
}

/// Most decades a logarithmic axis spans: plotters lays out its ticks decade by decade, and a
/// history holding 1e-300 and 1e300 (a diverged run) kept `plot` busy for minutes. The axis keeps
/// the top decades, where a divergence shows; smaller values fall below it.
pub const MAX_DECADES: f64 = 40.0;

/// A range [lo, hi] for a logarithmic axis covering the positive finite `values`, widened to whole
/// decades, at least two, and cut to the top [`MAX_DECADES`]; `None` when there are none.
pub fn log_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0_f64);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (hi > 0.0).then(|| {
        let (lo, hi) = (lo.log10().floor(), hi.log10().ceil());
        let lo = lo.max(hi - MAX_DECADES);
        let hi = if hi > lo { hi } else { lo + 1.0 };
        // At least two decades, so that two labelled decades show.
        (10f64.powf(lo.min(hi - 2.0)), 10f64.powf(hi))
    })
}

/// A range for a linear axis covering the finite `values` with 5 % padding; (−1, 1) when there are
/// none, and ± 1 around a constant.
pub fn linear_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return (-1.0, 1.0);
    }
    let pad = if hi > lo {
        0.05 * (hi - lo)
    } else {
        lo.abs().max(1.0)
    };
    (lo - pad, hi + pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(
            log_range([3e-7, 2e-3, 0.0, f64::NAN].into_iter()),
            Some((1e-7, 1e-2))
        );
        assert_eq!(log_range([1e-3].into_iter()), Some((1e-4, 1e-2)));
        assert_eq!(log_range([2e-3, 5e-3].into_iter()), Some((1e-4, 1e-2)));
        assert_eq!(log_range([0.0, -1.0].into_iter()), None);
        let (lo, hi) = log_range([1e-300, 1e300].into_iter()).unwrap();
        assert_eq!((lo.log10().round(), hi.log10().round()), (260.0, 300.0));
        assert_eq!(linear_range([0.0, 10.0].into_iter()), (-0.5, 10.5));
        assert_eq!(linear_range([2.0].into_iter()), (0.0, 4.0));
    }
}
