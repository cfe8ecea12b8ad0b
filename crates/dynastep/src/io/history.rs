//! The CSV time history of a simulation.
//!
//! Columns, in order:
//! - `t` \[s\];
//! - `h` \[s\]: the size of the step that contains the row (0 in the first row);
//! - for an equation-based model (`[equations]`), per coordinate `<name>` and then per coordinate
//!   `<name>_dot` (its units, and its rate's);
//! - per rigid body `<body>.x`, `.y`, `.theta`, `.vx`, `.vy`, `.omega` (pose and velocity of the body
//!   frame, \[m\], \[rad\], \[m/s\], \[rad/s\]; angles continuous in time, not wrapped); per point mass only
//!   `.x`, `.y`, `.vx`, `.vy`;
//! - per marker `<marker>.x`, `.y`, `.vx`, `.vy` \[m, m/s\];
//! - of a spatial model instead: per rigid body `<body>.x`, `.y`, `.z`, `.e0` … `.e3` (centroid and
//!   Euler parameters), `.vx`, `.vy`, `.vz`, `.wx`, `.wy`, `.wz` (centroid velocity and angular
//!   velocity, global axes), per point mass `.x`, `.y`, `.z`, `.vx`, `.vy`, `.vz`; per marker the
//!   same columns as a rigid body (the point, its body's orientation and angular velocity), and
//!   `.angle1`, `.angle2`, `.angle3` \[rad\] after `.e3` when it names an angle sequence; per
//!   joint `.fx`, `.fy`, `.fz` \[N\] and `.tx`, `.ty`, `.tz` \[N m\] on body j about the joint
//!   point, global axes (each mechanism names its columns: [`Mechanism`]);
//! - per joint `<joint>.fx`, `.fy` \[N\]: the reaction exerted by the joint on its body j, in global
//!   axes; `.torque` \[N m\], about the joint point P_j, only for joints with a rotation row (prismatic
//!   and fixed joints between rigid bodies; a revolute or distance joint transmits none); then
//!   `.fx_joint`, `.fy_joint` \[N\]: the same force in the joint frame (x along the sliding axis of a
//!   prismatic joint, from P_i to P_j for a distance joint, along body i's x axis otherwise);
//! - per driver `<driver>.torque` \[N m\] (an angle driver) or `<driver>.force` \[N\] (a length driver):
//!   the generalized force the actuator applies in the direction in which the driven quantity grows
//!   (−λ of its row); `driver.<driver>.…` if that name is already taken by a joint column;
//! - per beam section j (a spatial model with beams; element j / 2, its evaluation point I for
//!   even j and II for odd j): `<beam>.sec<j>.N`, `.Vy`, `.Vz` \[N\] and `.T`, `.My`, `.Mz`
//!   \[N m\], the section's axial and shear forces and its torsional and bending moments, in
//!   section axes;
//! - `energy.kinetic`, `energy.potential`, `energy.total`, `energy.work_nc` (work of non-conservative
//!   applied forces and of drivers since the start), `energy.balance` (E − E₀ − W_nc) \[J\];
//! - `constraint.position`, `constraint.velocity`, `constraint.acceleration`: Euclidean norms of
//!   Φ, Φ_q v + Φ_t and Φ_q a − γ;
//! - with `[solver] accelerations = true` ([`HistoryColumns::with_accelerations`]), last: per
//!   coordinate `<name>_ddot`, per body `.ax`, `.ay` (`.az`) \[m/s²\] and `.alpha` (planar) or
//!   `.alphax`, `.alphay`, `.alphaz` (spatial, global axes) \[rad/s²\];
//! - `omega_max` \[rad/s\], only from [`HistoryWriter::with_omega_max`]: the largest natural
//!   frequency of the system the formulation integrates ([`crate::analysis::natural_frequency`]),
//!   `NaN` where the run does not compute it or it cannot be computed.
//!
//! Rows are collected in memory and handed to the underlying writer whole: when 64 KiB have
//! gathered, at least once a second, and on [`HistoryWriter::flush`]. A process killed at any
//! moment (SIGKILL, power loss) leaves a file whose rows are all complete, at most a second behind.
//! Give it an unbuffered writer (a `File`): a `BufWriter` around it could split rows again.
//!
//! [`HistoryColumns`] defines the columns and computes a row; [`HistoryWriter`] writes the rows as
//! CSV and [`HistoryRecorder`] keeps them in memory (the Python bindings' results), with the same
//! values.
//!
//! A kinematic analysis ([`HistoryWriter::kinematic`]) has no forces: its history leaves out the
//! reactions, the driver forces and the energy columns.

use std::io::Write;
use std::time::{Duration, Instant};

use super::history_table::HistoryTable;
use crate::analysis::dynamic::{Flow, Observer, ObserverError, RunFailure, Sample};
use crate::system::mechanism::Mechanism;

/// The acceleration column of a velocity column: `vx` → `ax`, `omega` → `alpha`, `wx` → `alphax`.
fn acceleration_column(velocity: &str) -> String {
    if let Some(axis) = velocity.strip_prefix('w') {
        return format!("alpha{axis}");
    }
    if velocity == "omega" {
        return "alpha".into();
    }
    velocity.replacen('v', "a", 1)
}

/// Rows gathered before they are written out.
const FLUSH_BYTES: usize = 1 << 16;

/// Longest time rows wait in memory.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// The columns of a time history (see the module documentation) and how one row of them is
/// computed from a [`Sample`]: shared by the CSV [`HistoryWriter`] and the in-memory
/// [`HistoryRecorder`], so both hold the same numbers. The mechanism names its own body, marker
/// and reaction columns ([`Mechanism`]).
#[derive(Debug, Clone)]
pub struct HistoryColumns {
    names: Vec<String>,
    /// Coordinates of an equation-based model (0 otherwise).
    coordinates: usize,
    bodies: usize,
    markers: usize,
    joints: usize,
    drivers: usize,
    /// Whether the mechanism reports element loads (a beam's section forces).
    element_loads: bool,
    forces: bool,
    omega_max: bool,
    /// Whether the last columns are accelerations ([`HistoryColumns::with_accelerations`]).
    accelerations: bool,
    /// Entries of the full row kept, increasing ([`HistoryColumns::select`]); `None`: all.
    kept: Option<Vec<usize>>,
    /// Entries of the full row, before the selection.
    width: usize,
}

impl HistoryColumns {
    /// The columns of a dynamic history of `system`: with `forces` the reactions, driver forces
    /// and energies (false for a kinematic history), with `omega_max` the last column `omega_max`.
    pub fn new<M: Mechanism>(system: &M, forces: bool, omega_max: bool) -> Self {
        let mut names = vec!["t".to_string(), "h".to_string()];
        let coordinates = system.equations().map_or(&[][..], |e| e.coordinate_names());
        names.extend(coordinates.iter().cloned());
        names.extend(coordinates.iter().map(|c| format!("{c}_dot")));
        let bodies = system.body_names();
        for (b, name) in bodies.iter().enumerate() {
            let (pose, velocity) = system.body_columns(b);
            let columns = pose.iter().chain(velocity);
            names.extend(columns.map(|c| format!("{name}.{c}")));
        }
        let markers = system.marker_names();
        for (k, name) in markers.iter().enumerate() {
            let (position, velocity) = system.marker_columns(k);
            let columns = position.iter().chain(velocity);
            names.extend(columns.map(|c| format!("{name}.{c}")));
        }
        if forces {
            Self::force_names(system, &mut names);
        }
        names.extend(
            [
                "constraint.position",
                "constraint.velocity",
                "constraint.acceleration",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        if omega_max {
            names.push("omega_max".into());
        }
        HistoryColumns {
            names,
            coordinates: coordinates.len(),
            bodies: bodies.len(),
            markers: markers.len(),
            joints: system.joint_names().len(),
            drivers: system.driver_names().len(),
            element_loads: forces && !system.element_load_columns().is_empty(),
            forces,
            omega_max,
            accelerations: false,
            kept: None,
            width: 0,
        }
        .with_width()
    }

    /// Records the full row's width (after the names changed).
    fn with_width(mut self) -> Self {
        self.width = self.names.len();
        self
    }

    /// The columns of a dynamic run of `system` with the settings `solver` (its `[solver]` after
    /// the run options): [`HistoryColumns::new`] with forces, with `omega_max` when asked, and
    /// [`HistoryColumns::with_accelerations`] when `solver.accelerations`.
    pub fn of_run<M: Mechanism>(
        system: &M,
        solver: &crate::model::SolverSpec,
        omega_max: bool,
    ) -> Self {
        let mut columns = HistoryColumns::new(system, true, omega_max);
        if solver.accelerations {
            columns = columns.with_accelerations(system);
        }
        match &solver.output_columns {
            Some(patterns) => columns.select(patterns),
            None => columns,
        }
    }

    /// Keeps `t` and the columns whose names match one of `patterns` (glob patterns, see
    /// [`crate::model::SolverSpec::output_columns`]), in their order. Patterns that are not glob
    /// patterns match nothing (the model's checks refuse them). Selecting again selects among the
    /// columns kept.
    pub fn select(mut self, patterns: &[String]) -> Self {
        let globs: Vec<glob::Pattern> = patterns
            .iter()
            .filter_map(|p| glob::Pattern::new(p).ok())
            .collect();
        let chosen: Vec<usize> = (0..self.names.len())
            .filter(|&i| i == 0 || globs.iter().any(|g| g.matches(&self.names[i])))
            .collect();
        self.names = chosen.iter().map(|&i| self.names[i].clone()).collect();
        self.kept = Some(match self.kept.take() {
            Some(before) => chosen.iter().map(|&i| before[i]).collect(),
            None => chosen,
        });
        self
    }

    /// Checks that each of `solver.output_columns` matches a column of the history of a run of
    /// `system` with the settings `solver` (and `omega_max`): the columns are known once the
    /// system is built, so the model's checks cannot.
    ///
    /// # Errors
    /// A settings failure at `solver.output_columns`, naming the first pattern that matches
    /// nothing and the nearest column names.
    pub fn check_selection<M: Mechanism>(
        system: &M,
        solver: &crate::model::SolverSpec,
        omega_max: bool,
    ) -> Result<(), RunFailure> {
        let Some(patterns) = &solver.output_columns else {
            return Ok(());
        };
        let all = HistoryColumns::of_run(
            system,
            &crate::model::SolverSpec {
                output_columns: None,
                ..solver.clone()
            },
            omega_max,
        );
        let Some(pattern) = all.unmatched(patterns) else {
            return Ok(());
        };
        let names: Vec<&str> = all.names().iter().map(String::as_str).collect();
        let nearest = crate::model::validate::suggest(pattern, &names, "history columns");
        Err(RunFailure::settings(format!(
            "output_columns: `{pattern}` matches no column of this run's history"
        ))
        .advise(format!(
            "columns are `<body>.<coordinate>` (a beam's nodes `<beam>.<k>.x`, …), \
             `<marker>.x`, `<joint>.<reaction>`, `energy.*`, `constraint.*`; {nearest}"
        ))
        .at_setting("solver.output_columns"))
    }

    /// The first of `patterns` that matches none of these columns (or is not a glob pattern).
    pub fn unmatched<'a>(&self, patterns: &'a [String]) -> Option<&'a str> {
        patterns.iter().map(String::as_str).find(|p| {
            glob::Pattern::new(p).map_or(true, |g| !self.names.iter().any(|n| g.matches(n)))
        })
    }

    /// Entries of the row that [`HistoryColumns::fill`] computes before dropping the columns
    /// not selected (the capacity a row needs).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The same columns and, last, the accelerations: per coordinate of an equation-based model
    /// `<name>_ddot`, per body its velocity columns with `v` → `a` and `omega`/`w` → `alpha`
    /// (`.ax`, `.ay`, `.alpha` planar; `.ax`, `.ay`, `.az`, `.alphax`, `.alphay`, `.alphaz` spatial,
    /// global axes). A body's acceleration is its velocity map applied to q̈: exact for planar
    /// coordinates, and for Euler parameters because ω = 2E(p)ṗ gives ω̇ = 2E(p)p̈ (E(ṗ)ṗ = 0).
    ///
    /// Call it before [`HistoryColumns::select`], whose selection it would not extend.
    pub fn with_accelerations<M: Mechanism>(mut self, system: &M) -> Self {
        debug_assert!(self.kept.is_none(), "accelerations added after a selection");
        let coordinates = system.equations().map_or(&[][..], |e| e.coordinate_names());
        self.names
            .extend(coordinates.iter().map(|c| format!("{c}_ddot")));
        for (b, name) in system.body_names().iter().enumerate() {
            let columns = system
                .body_columns(b)
                .1
                .iter()
                .map(|c| acceleration_column(c));
            self.names.extend(columns.map(|c| format!("{name}.{c}")));
        }
        self.accelerations = true;
        self.with_width()
    }

    /// Names of the reaction, driver and energy columns.
    fn force_names<M: Mechanism>(system: &M, names: &mut Vec<String>) {
        for (k, name) in system.joint_names().iter().enumerate() {
            let columns = system.joint_columns(k);
            names.extend(columns.iter().map(|c| format!("{name}.{c}")));
        }
        for (k, name) in system.driver_names().iter().enumerate() {
            let column = format!("{name}.{}", system.driver_unit(k));
            if names.contains(&column) {
                names.push(format!("driver.{column}"));
            } else {
                names.push(column);
            }
        }
        names.extend(system.element_load_columns());
        names.extend(
            [
                "energy.kinetic",
                "energy.potential",
                "energy.total",
                "energy.work_nc",
                "energy.balance",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
    }

    /// The column names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Replaces the contents of `row` with the values of `s`, one per column (no allocation once
    /// `row` has the capacity).
    pub fn fill<M: Mechanism>(&self, sys: &M, s: &Sample<'_>, row: &mut Vec<f64>) {
        let x = s.state;
        row.clear();
        row.push(x.t);
        row.push(s.h);
        row.extend(x.q.iter().take(self.coordinates));
        row.extend(x.v.iter().take(self.coordinates));
        for b in 0..self.bodies {
            sys.push_body_pose(b, &x.q, row);
            sys.push_body_velocity(b, &x.q, &x.v, row);
        }
        for k in 0..self.markers {
            sys.push_marker_position(k, &x.q, row);
            sys.push_marker_velocity(k, &x.q, &x.v, row);
        }
        if self.forces {
            self.push_forces(sys, s, row);
        }
        row.extend_from_slice(&[
            s.violation.position,
            s.violation.velocity,
            s.violation.acceleration,
        ]);
        if self.omega_max {
            row.push(s.omega_max.unwrap_or(f64::NAN));
        }
        if self.accelerations {
            row.extend(x.a.iter().take(self.coordinates));
            for b in 0..self.bodies {
                sys.push_body_velocity(b, &x.q, &x.a, row);
            }
        }
        if let Some(kept) = &self.kept {
            // `kept` increases, so each entry moves down or stays.
            for (j, &i) in kept.iter().enumerate() {
                row[j] = row[i];
            }
            row.truncate(kept.len());
        }
    }

    /// Reactions, driver forces and energies of the sample into the row.
    fn push_forces<M: Mechanism>(&self, sys: &M, s: &Sample<'_>, row: &mut Vec<f64>) {
        let x = s.state;
        for k in 0..self.joints {
            sys.push_joint_history(k, &x.q, &x.lambda, row);
        }
        for k in 0..self.drivers {
            row.push(sys.driver_effort(k, &x.lambda));
        }
        if self.element_loads {
            sys.push_element_loads(&x.q, &x.v, row);
        }
        let e = s.energy;
        row.extend_from_slice(&[
            e.kinetic,
            e.potential,
            e.kinetic + e.potential,
            s.work_nc,
            s.energy_balance,
        ]);
    }
}

/// An [`Observer`] writing one CSV row per sample.
pub struct HistoryWriter<W: Write> {
    /// Formats rows into memory.
    out: csv::Writer<Vec<u8>>,
    /// Receives whole rows only.
    sink: W,
    last_flush: Instant,
    columns: HistoryColumns,
    row: Vec<f64>,
    fmt: ryu::Buffer,
}

impl<W: Write> std::fmt::Debug for HistoryWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryWriter").finish()
    }
}

impl<W: Write> HistoryWriter<W> {
    /// Writes the header of a dynamic (or inverse dynamic) history for `system` and returns the
    /// writer.
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn new<M: Mechanism>(system: &M, out: W) -> Result<Self, csv::Error> {
        Self::with_columns(HistoryColumns::new(system, true, false), out)
    }

    /// [`HistoryWriter::new`] with a last column `omega_max` (run with
    /// [`crate::analysis::dynamic::DynamicSettings::omega_max`] set).
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn with_omega_max<M: Mechanism>(system: &M, out: W) -> Result<Self, csv::Error> {
        Self::with_columns(HistoryColumns::new(system, true, true), out)
    }

    /// Writes the header of a kinematic history (no reactions, driver forces or energies).
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn kinematic<M: Mechanism>(system: &M, out: W) -> Result<Self, csv::Error> {
        Self::with_columns(HistoryColumns::new(system, false, false), out)
    }

    /// Writes the header of `columns` and returns the writer.
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn with_columns(columns: HistoryColumns, sink: W) -> Result<Self, csv::Error> {
        let mut out = csv::Writer::from_writer(Vec::with_capacity(2 * FLUSH_BYTES));
        out.write_record(columns.names())?;
        let row = Vec::with_capacity(columns.width());
        let mut writer = HistoryWriter {
            out,
            sink,
            last_flush: Instant::now(),
            columns,
            row,
            fmt: ryu::Buffer::new(),
        };
        writer.flush()?;
        Ok(writer)
    }

    /// Writes the gathered rows out and returns the underlying writer (for a history kept in
    /// memory, `Vec<u8>`).
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn into_inner(mut self) -> std::io::Result<W> {
        self.flush()?;
        Ok(self.sink)
    }

    /// Writes the gathered rows to the underlying writer and flushes it.
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn flush(&mut self) -> std::io::Result<()> {
        // The csv writer keeps no access to its inner buffer but through `into_inner`: take the
        // gathered rows out and start a writer on the same (cleared) allocation.
        let gathered = std::mem::replace(&mut self.out, csv::Writer::from_writer(Vec::new()));
        let mut rows = gathered
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let written = self.sink.write_all(&rows);
        rows.clear();
        self.out = csv::Writer::from_writer(rows);
        self.last_flush = Instant::now();
        written?;
        self.sink.flush()
    }
}

impl<W: Write, M: Mechanism> Observer<M> for HistoryWriter<W> {
    fn sample(&mut self, sys: &M, s: &Sample<'_>) -> Result<Flow, ObserverError> {
        self.columns.fill(sys, s, &mut self.row);
        for &v in &self.row {
            let text = if v.is_finite() {
                self.fmt.format(v)
            } else if v.is_nan() {
                "NaN"
            } else if v > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            self.out
                .write_field(text)
                .map_err(|e| ObserverError(format!("writing the time history: {e}")))?;
        }
        self.out
            .write_record(None::<&[u8]>)
            .map_err(|e| ObserverError(format!("writing the time history: {e}")))?;
        if self.out.get_ref().len() >= FLUSH_BYTES || self.last_flush.elapsed() >= FLUSH_EVERY {
            self.flush()
                .map_err(|e| ObserverError(format!("writing the time history: {e}")))?;
        }
        Ok(Flow::Continue)
    }
}

/// An [`Observer`] keeping the history in memory as a [`HistoryTable`], with the columns and values
/// of the CSV that [`HistoryWriter`] writes for the same run (the CSV's shortest round-trip
/// formatting reads back to the same `f64`s).
#[derive(Debug, Clone)]
pub struct HistoryRecorder {
    columns: HistoryColumns,
    row: Vec<f64>,
    /// The rows so far, as columns.
    pub table: HistoryTable,
}

impl HistoryRecorder {
    /// An empty history of `columns`.
    pub fn new(columns: HistoryColumns) -> Self {
        let names = columns.names().to_vec();
        HistoryRecorder {
            row: Vec::with_capacity(columns.width()),
            table: HistoryTable {
                columns: vec![Vec::new(); names.len()],
                names,
                truncated: false,
                skipped_rows: 0,
            },
            columns,
        }
    }
}

impl<M: Mechanism> Observer<M> for HistoryRecorder {
    fn sample(&mut self, sys: &M, s: &Sample<'_>) -> Result<Flow, ObserverError> {
        self.columns.fill(sys, s, &mut self.row);
        for (column, &v) in self.table.columns.iter_mut().zip(&self.row) {
            column.push(v);
        }
        Ok(Flow::Continue)
    }
}
