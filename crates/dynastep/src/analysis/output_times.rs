//! The output times of a run: t_0 + k·interval for k = 0, 1, … up to t_end, and t_end itself.
//! Each time is computed from k, never accumulated, so a long run does not drift and a tiny interval
//! cannot stall (Issue: `next_output += interval` stops moving once interval < ulp(t)).

use super::failure::RunFailure;

/// Largest number of output rows a run may ask for.
pub const MAX_OUTPUT_ROWS: f64 = 1e8;

/// The sequence of output times (see the module documentation). An interval of 0 means "every
/// step", which this type does not schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutputTimes {
    t0: f64,
    interval: f64,
    t_end: f64,
    /// Index of the next row.
    k: u64,
    /// True once the row at t_end has been handed out.
    done: bool,
}

impl OutputTimes {
    /// The schedule for a run from `t0` to `t_end` \[s\] with `interval` \[s\] (0: every step).
    ///
    /// # Errors
    /// A message when the interval is negative or not finite, when it is below the floating-point
    /// spacing of the times of the run (t + interval == t), or when it asks for more than
    /// [`MAX_OUTPUT_ROWS`] rows.
    pub fn new(t0: f64, interval: f64, t_end: f64) -> Result<Self, RunFailure> {
        if !(interval >= 0.0 && interval.is_finite()) {
            return Err(RunFailure::settings(format!(
                "output interval {interval} must be a number ≥ 0 (0 writes every step)"
            ))
            .at_setting("solver.output_interval"));
        }
        if interval > 0.0 {
            let largest = t0.abs().max(t_end.abs());
            if largest + interval == largest {
                return Err(RunFailure::settings(format!(
                    "output interval {interval:e} s is below the floating-point spacing of the times of the run (about {:e} s at t = {largest:e}); use a larger interval",
                    largest * f64::EPSILON
                ))
                .at_setting("solver.output_interval"));
            }
            let rows = (t_end - t0) / interval;
            if rows > MAX_OUTPUT_ROWS {
                return Err(RunFailure::settings(format!(
                    "output interval {interval:e} s asks for {rows:.3e} rows over [{t0}, {t_end}] s, more than the limit of {MAX_OUTPUT_ROWS:e}; use a larger interval"
                ))
                .at_setting("solver.output_interval"));
            }
        }
        Ok(OutputTimes {
            t0,
            interval,
            t_end,
            k: 1,
            done: false,
        })
    }

    /// True when rows are written at every step rather than on a schedule.
    pub fn every_step(&self) -> bool {
        self.interval == 0.0
    }

    /// The next output time after t_0, or `None` when t_end has been handed out.
    pub fn peek(&self) -> Option<f64> {
        if self.done || self.every_step() {
            return None;
        }
        let t = self.t0 + self.k as f64 * self.interval;
        // A row within a billionth of an interval of t_end is the row at t_end.
        if t >= self.t_end - 1e-9 * self.interval {
            Some(self.t_end)
        } else {
            Some(t)
        }
    }

    /// Skips the times at or before `t` \[s\], within `slack` \[s\]: those a run whose last row was
    /// at `t` wrote already, when another run goes on from its end on the same schedule.
    pub fn skip_through(&mut self, t: f64, slack: f64) {
        while self.peek().is_some_and(|next| next <= t + slack) {
            self.advance();
        }
    }

    /// Moves past the time [`OutputTimes::peek`] returned.
    pub fn advance(&mut self) {
        if let Some(t) = self.peek() {
            if t == self.t_end {
                self.done = true;
            }
            self.k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(t0: f64, dt: f64, t1: f64) -> Vec<f64> {
        let mut o = OutputTimes::new(t0, dt, t1).unwrap();
        let mut v = Vec::new();
        while let Some(t) = o.peek() {
            v.push(t);
            o.advance();
        }
        v
    }

    #[test]
    fn times_are_multiples_and_end_at_t_end() {
        assert_eq!(all(0.0, 0.3, 1.0), vec![0.3, 0.6, 0.8999999999999999, 1.0]);
        let v = all(0.0, 0.01, 10.0);
        assert_eq!(v.len(), 1000);
        assert_eq!(v[499], 500.0 * 0.01);
        assert_eq!(*v.last().unwrap(), 10.0);
    }

    #[test]
    fn a_run_going_on_skips_the_rows_written() {
        let mut o = OutputTimes::new(0.0, 0.3, 1.0).unwrap();
        o.skip_through(0.6 + 1e-12, 1e-9);
        assert_eq!(o.peek(), Some(0.8999999999999999));
        o.skip_through(0.95, 0.0);
        assert_eq!(o.peek(), Some(1.0));
        o.skip_through(1.0, 0.0);
        assert_eq!(o.peek(), None);
    }

    #[test]
    fn hopeless_intervals_are_refused() {
        assert!(OutputTimes::new(0.0, 1e-300, 1.0)
            .unwrap_err()
            .message
            .contains("spacing"));
        assert!(OutputTimes::new(0.0, 1e-9, 10.0)
            .unwrap_err()
            .message
            .contains("rows"));
        assert!(OutputTimes::new(0.0, -1.0, 10.0).is_err());
        assert!(OutputTimes::new(0.0, 0.0, 10.0).unwrap().every_step());
    }
}
