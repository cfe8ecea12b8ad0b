//! One panel of a chart: labelled series of (x, y) points on linear or logarithmic axes. Every chart
//! of this crate but the stability chart is a stack of panels.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::canvas::{color, linear_range, log_range};

/// An axis scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Linear.
    Linear,
    /// Base-10 logarithmic; points with a value ≤ 0 are left out.
    Log,
}

/// A named series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// The points (x, y); non-finite values break the line.
    pub points: Vec<(f64, f64)>,
}

/// A panel: title, axis labels and scales, series, and optional marks.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Caption above the panel.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// Scale of x.
    pub x_scale: Scale,
    /// Scale of y.
    pub y_scale: Scale,
    /// The series, one colour each.
    pub series: Vec<Series>,
    /// Draw a dot at every point (for sparse data such as a work–precision sweep).
    pub dots: bool,
    /// Equal scales on both axes (trajectories): the ranges are widened to the panel's aspect.
    pub equal_aspect: bool,
    /// The least span of each axis \[axis units\], about its centre (0: none): the three views of
    /// a spatial trajectory share the scale of its largest extent, so that a view whose two
    /// coordinates move only by rounding (a marker moving along z alone, seen from the top) does
    /// not blow that rounding up to the whole panel.
    pub min_span: f64,
    /// A horizontal dashed line at this y, with its legend text (e.g. the reference's own error).
    pub floor: Option<(f64, String)>,
    /// A vertical red line at this x, with its legend text (e.g. where a run stopped).
    pub stop: Option<(f64, String)>,
    /// Drawn to the right of the panel before it, in the same row (the three projections of
    /// spatial trajectories); false starts a new row.
    pub beside: bool,
}

/// The label of the tick at `v` on an axis of `scale` from `lo` to `hi`, in one form for the whole
/// axis: exponent form when its largest magnitude is at least 1e4 or below 1e-2, else decimals.
/// On a linear axis a tick within rounding of zero is zero (not 2e-19), and the digits are those
/// that tell ticks apart, the ticks being at least a twentieth of the axis apart (−1.2e-11 beside
/// −1.4e-11, not −1e-11 twice; 0.0101 beside 0.0102), trailing zeros dropped (−2e-11, 0.01).
fn tick_label(v: f64, scale: Scale, (lo, hi): (f64, f64)) -> String {
    let (span, largest) = ((hi - lo).abs(), lo.abs().max(hi.abs()));
    let step = (0.05 * span).log10().floor();
    if scale == Scale::Linear && v.abs() < 1e-9 * span {
        return "0".to_string();
    }
    if !(1e-2..1e4).contains(&largest) {
        let digits = match scale {
            Scale::Log => 0,
            Scale::Linear if v == 0.0 => 0,
            Scale::Linear => (v.abs().log10().floor() - step).clamp(0.0, 6.0) as usize,
        };
        let text = format!("{v:.digits$e}");
        return match text.split_once('e') {
            Some((mantissa, exponent)) => format!("{}e{exponent}", trimmed(mantissa)),
            None => text,
        };
    }
    let decimals = match scale {
        Scale::Log => 4,
        Scale::Linear => (-step).clamp(0.0, 8.0) as usize,
    };
    match trimmed(&format!("{v:.decimals$}")) {
        "-0" => "0".to_string(),
        t => t.to_string(),
    }
}

/// `number` without the trailing zeros of its decimals (and without a bare decimal point).
fn trimmed(number: &str) -> &str {
    if number.contains('.') {
        number.trim_end_matches('0').trim_end_matches('.')
    } else {
        number
    }
}

/// `range` widened about its centre to at least `span`.
fn at_least((lo, hi): (f64, f64), span: f64) -> (f64, f64) {
    if hi - lo >= span {
        return (lo, hi);
    }
    let mid = 0.5 * (lo + hi);
    (mid - 0.5 * span, mid + 0.5 * span)
}

impl Panel {
    /// An empty panel with linear axes.
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Self {
        Panel {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series: Vec::new(),
            dots: false,
            equal_aspect: false,
            min_span: 0.0,
            floor: None,
            stop: None,
            beside: false,
        }
    }

    fn usable(&self, (x, y): (f64, f64)) -> bool {
        let ok = |v: f64, s: Scale| v.is_finite() && (s == Scale::Linear || v > 0.0);
        ok(x, self.x_scale) && ok(y, self.y_scale)
    }

    fn range(&self, scale: Scale, values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
        match scale {
            Scale::Linear => linear_range(values),
            Scale::Log => log_range(values).unwrap_or((1e-16, 1.0)),
        }
    }

    /// The x and y ranges of the usable points (and of the floor and stop marks).
    fn ranges(&self, (w, h): (u32, u32)) -> ((f64, f64), (f64, f64)) {
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|&p| self.usable(p))
            .collect();
        let xs = pts
            .iter()
            .map(|p| p.0)
            .chain(self.stop.as_ref().map(|s| s.0));
        let ys = pts
            .iter()
            .map(|p| p.1)
            .chain(self.floor.as_ref().map(|f| f.0));
        let (mut xr, mut yr) = (self.range(self.x_scale, xs), self.range(self.y_scale, ys));
        if self.x_scale == Scale::Linear {
            xr = at_least(xr, self.min_span);
        }
        if self.y_scale == Scale::Linear {
            yr = at_least(yr, self.min_span);
        }
        if self.equal_aspect && w > 0 && h > 0 {
            let (dx, dy) = (xr.1 - xr.0, yr.1 - yr.0);
            let aspect = f64::from(w) / f64::from(h);
            if dx / dy < aspect {
                let grow = 0.5 * (dy * aspect - dx);
                xr = (xr.0 - grow, xr.1 + grow);
            } else {
                let grow = 0.5 * (dx / aspect - dy);
                yr = (yr.0 - grow, yr.1 + grow);
            }
        }
        (xr, yr)
    }

    /// Draws the panel on `area`.
    ///
    /// # Errors
    /// What plotters reports.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let (w, h) = area.dim_in_pixel();
        let (xr, yr) = self.ranges((w.saturating_sub(90), h.saturating_sub(90)));
        match (self.x_scale, self.y_scale) {
            (Scale::Linear, Scale::Linear) => self.draw_on(area, xr.0..xr.1, yr.0..yr.1),
            (Scale::Log, Scale::Linear) => self.draw_on(area, (xr.0..xr.1).log_scale(), yr.0..yr.1),
            (Scale::Linear, Scale::Log) => self.draw_on(area, xr.0..xr.1, (yr.0..yr.1).log_scale()),
            (Scale::Log, Scale::Log) => {
                self.draw_on(area, (xr.0..xr.1).log_scale(), (yr.0..yr.1).log_scale())
            }
        }
    }

    fn draw_on<DB, X, Y>(&self, area: &DrawingArea<DB, Shift>, x: X, y: Y) -> Result<(), String>
    where
        DB: DrawingBackend,
        X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
        Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
        X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
        Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(x, y)
            .map_err(err)?;
        let (xr, yr) = (chart.x_range(), chart.y_range());
        let (xr, yr) = ((xr.start, xr.end), (yr.start, yr.end));
        let fx = |v: &f64| tick_label(*v, self.x_scale, xr);
        let fy = |v: &f64| tick_label(*v, self.y_scale, yr);
        // A narrow panel (a projection beside others) gets fewer x labels, so that they do not run
        // into each other.
        let x_labels = if area.dim_in_pixel().0 < 500 { 5 } else { 10 };
        chart
            .configure_mesh()
            .x_labels(x_labels)
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&fx)
            .y_label_formatter(&fy)
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(err)?;
        for (i, s) in self.series.iter().enumerate() {
            let style = ShapeStyle::from(&color(i)).stroke_width(2);
            for run in s.points.split(|&p| !self.usable(p)) {
                if run.is_empty() {
                    continue;
                }
                chart
                    .draw_series(LineSeries::new(run.iter().copied(), style))
                    .map_err(err)?;
                // A run that stays at one point (a marker moving only along the axis a view
                // looks down) draws no line: a dot shows where it is.
                let still = run.iter().all(|&p| p == run[0]);
                if self.dots || still {
                    let points = if still { &run[..1] } else { run };
                    chart
                        .draw_series(points.iter().map(|&p| Circle::new(p, 3, style.filled())))
                        .map_err(err)?;
                }
            }
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(err)?
                .label(&s.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
        let (xr, yr) = (chart.x_range(), chart.y_range());
        if let Some((v, label)) = &self.floor {
            let style = ShapeStyle::from(&BLACK.mix(0.6)).stroke_width(1);
            let n = 40;
            let dashes = (0..n).step_by(2).map(|k| {
                let f = k as f64 / n as f64;
                let at = |f: f64| match self.x_scale {
                    Scale::Linear => xr.start + (xr.end - xr.start) * f,
                    Scale::Log => xr.start * (xr.end / xr.start).powf(f),
                };
                let (a, b) = (at(f), at(f + 1.0 / n as f64));
                PathElement::new(vec![(a, *v), (b, *v)], style)
            });
            chart.draw_series(dashes).map_err(err)?;
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 8, y)], style));
        }
        if let Some((v, label)) = &self.stop {
            let style = ShapeStyle::from(&RED).stroke_width(2);
            chart
                .draw_series(LineSeries::new([(*v, yr.start), (*v, yr.end)], style))
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
        if !self.series.is_empty() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 12))
                .draw()
                .map_err(err)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view whose coordinates move only by rounding (about 1e-25 m) keeps the least span it is
    /// given instead of ticks of 1e-24 m; a view wider than that keeps its own range.
    #[test]
    fn the_least_span_holds_a_view_of_rounding() {
        let mut p = Panel::new("top view", "x [m]", "y [m]");
        p.equal_aspect = true;
        p.series.push(Series {
            label: "P".into(),
            points: vec![(1e-25, -2e-25), (-3e-25, 1e-25), (0.0, 0.0)],
        });
        p.min_span = 0.2;
        let ((x0, x1), (y0, y1)) = p.ranges((400, 400));
        assert!(x1 - x0 >= 0.2 && y1 - y0 >= 0.2, "{x0} {x1} {y0} {y1}");
        assert!(x0 < 0.0 && x1 > 0.0 && y0 < 0.0 && y1 > 0.0);
        p.min_span = 0.0;
        let ((x0, x1), _) = p.ranges((400, 400));
        assert!(x1 - x0 < 1e-23, "{x0} {x1}");
        assert_eq!(at_least((0.0, 2.0), 1.0), (0.0, 2.0));
        assert_eq!(at_least((1.0, 1.0), 1.0), (0.5, 1.5));
    }

    /// Ticks 2e-12 apart near −1.3e-11 keep the digit that tells them apart; one axis has one
    /// form (decimals from −0.015 to 0.01, not "5e-3" beside "0.01"); a logarithmic axis prints
    /// its decades as before.
    #[test]
    fn tick_labels_tell_the_ticks_apart() {
        let axis = (-2.2e-11, 0.0);
        assert_eq!(tick_label(-1.2e-11, Scale::Linear, axis), "-1.2e-11");
        assert_eq!(tick_label(-1.4e-11, Scale::Linear, axis), "-1.4e-11");
        assert_eq!(tick_label(-2e-11, Scale::Linear, axis), "-2e-11");
        assert_eq!(tick_label(1e-20, Scale::Linear, axis), "0");
        let axis = (-0.016, 0.011);
        assert_eq!(tick_label(0.005, Scale::Linear, axis), "0.005");
        assert_eq!(tick_label(-0.015, Scale::Linear, axis), "-0.015");
        assert_eq!(tick_label(0.01, Scale::Linear, axis), "0.01");
        let axis = (0.01, 0.0102);
        assert_eq!(tick_label(0.0101, Scale::Linear, axis), "0.0101");
        assert_eq!(tick_label(0.01015, Scale::Linear, axis), "0.01015");
        assert_eq!(tick_label(1e-8, Scale::Log, (1e-9, 1e-7)), "1e-8");
        assert_eq!(tick_label(0.25, Scale::Linear, (0.0, 1.0)), "0.25");
        assert_eq!(tick_label(2.0, Scale::Linear, (0.0, 10.0)), "2");
        assert_eq!(tick_label(2e5, Scale::Linear, (0.0, 1e6)), "2e5");
        assert_eq!(tick_label(2.5e5, Scale::Linear, (0.0, 1e6)), "2.5e5");
    }
}
