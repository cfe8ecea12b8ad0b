//! The work–precision diagram of `dynastep compare`: the error of each method against its cost
//! (integration time, and steps), and against the swept step size or tolerance, log–log, one line
//! per method (Hairer & Wanner 1996, *Solving Ordinary Differential Equations II*, §IV.10).

use dynastep::study::compare::Record;

use crate::panel::{Panel, Scale, Series};
use crate::time_history::Stack;

/// What the chart says about the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Labels {
    /// The model's name.
    pub model: String,
    /// The swept quantity: `dt` or `rtol`.
    pub sweep: String,
    /// The measure and quantity, e.g. `end error of crank.theta [rad]`.
    pub error: String,
    /// The reference's description, e.g. `esdirk4-6 at rtol = atol = 1e-10`.
    pub reference: String,
    /// The reference's own error estimate, drawn as a dashed line.
    pub floor: Option<f64>,
}

/// The methods in order of first appearance, each with its completed records.
fn by_method(records: &[Record]) -> Vec<(String, Vec<&Record>)> {
    let mut groups: Vec<(String, Vec<&Record>)> = Vec::new();
    for r in records {
        let i = match groups.iter().position(|g| g.0 == r.method) {
            Some(i) => i,
            None => {
                groups.push((r.method.clone(), Vec::new()));
                groups.len() - 1
            }
        };
        if r.error.is_finite() && r.error > 0.0 {
            groups[i].1.push(r);
        }
    }
    groups
}

/// A log–log panel of the error against `cost` of each record.
fn panel(
    title: &str,
    x: &str,
    labels: &Labels,
    groups: &[(String, Vec<&Record>)],
    cost: fn(&Record) -> f64,
) -> Panel {
    let mut p = Panel::new(title, x, &labels.error);
    p.x_scale = Scale::Log;
    p.y_scale = Scale::Log;
    p.dots = true;
    p.floor = labels
        .floor
        .map(|f| (f, "reference's own error".to_string()));
    p.series = groups
        .iter()
        .map(|(label, recs)| {
            let mut points: Vec<(f64, f64)> = recs.iter().map(|r| (cost(r), r.error)).collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                label: label.clone(),
                points,
            }
        })
        .collect();
    p
}

/// The diagram: error against integration time, against accepted steps, and against the swept
/// value. Failed runs are left out; the note lists them.
pub fn chart(records: &[Record], labels: &Labels) -> Stack {
    let groups = by_method(records);
    let failed: Vec<String> = records
        .iter()
        .filter(|r| !r.error.is_finite())
        .map(|r| format!("{} at {} = {:e}", r.method, labels.sweep, r.value))
        .collect();
    let note = (!failed.is_empty())
        .then(|| format!("no error (failed or refused): {}", failed.join("; ")));
    let sweep = if labels.sweep == "dt" {
        "step size h [s]"
    } else {
        "rtol = atol"
    };
    Stack {
        title: format!("{} — reference: {}", labels.model, labels.reference),
        note,
        panels: vec![
            panel(
                "Error against integration time",
                "integration time [s]",
                labels,
                &groups,
                |r| r.cpu_time_s,
            ),
            panel(
                "Error against accepted steps",
                "steps",
                labels,
                &groups,
                |r| r.steps as f64,
            ),
            panel(
                &format!("Error against {}", labels.sweep),
                sweep,
                labels,
                &groups,
                |r| r.value,
            ),
        ],
    }
}
