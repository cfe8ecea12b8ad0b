#!/usr/bin/env python3
"""dynastep against Exudyn on the same models, at equal accuracy: the benchmark harness.

    python3 bench/run.py                # every case, writes docs/performance.md and bench/results.json
    python3 bench/run.py --quick        # one repeat, short N-four-bar runs (a smoke test)
    python3 bench/run.py --cases andrews-1e-5,pendulum-1e-3
    python3 bench/run.py --beams        # only the flexible-beam section (bench/beams.py, bench/lateral_buckling.py), spliced in
    python3 bench/run.py --peers        # only the cross-engine section: dynastep, Exudyn, MuJoCo
                                        # and Drake at equal accuracy (bench/peers.py), spliced in
    python3 bench/run.py --spatial      # only the spatial examples against Exudyn at equal
                                        # accuracy (bench/spatial.py), spliced in
    DYNASTEP_BIN=/path/to/dynastep python3 bench/run.py ...   # that binary, no cargo build

It builds the release binary (or, when the environment variable DYNASTEP_BIN names a binary,
uses that one and builds nothing), then for each case:

- runs `dynastep run` with generalized-alpha (rho_inf = 0.9), index 3, fixed steps, output only at
  the end, and reads the loop time, the counts and the final state from summary.json;
- builds the same mechanism in Exudyn (when `import exudyn` works) from dynastep's parsed model and
  assembled initial state (bench/exudyn_model.py), and times `SolveDynamic` with Exudyn's
  generalized-alpha (index 3, the same rho_inf, modified Newton, fixed steps, Newton tolerance
  relative 1e-10 / absolute 1e-12, tighter than Exudyn's default 1e-8, which floors its accuracy at
  small steps);
- compares the end point of each against an independent reference (a DOP853 solution of the
  minimal-coordinate equations, or the IVP Test Set's value for Andrews' squeezer).

Runs are interleaved (dynastep, Exudyn, next case, ...), `--repeat` times over; the minimum time of
each is kept. Times are wall-clock on whatever machine runs this, so docs/performance.md records the
machine and the date. This is a benchmark: nothing here is asserted by `cargo test`.
"""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# DYNASTEP_BIN: a prebuilt binary to use instead of target/release/dynastep (no cargo build).
BIN = os.environ.get("DYNASTEP_BIN") or os.path.join(ROOT, "target", "release", "dynastep")
WORK = os.path.join(ROOT, "target", "bench")
RHO_INF = 0.9


# ------------------------------------------------------------------------------------ models
def nfourbar_toml(n, t_end):
    """The N-four-bar chain of the IFToMM benchmark A02 (N + 1 cranks, N couplers, 1 m, 1 kg
    bars), as examples/nfourbar40.toml lays it out."""
    i_bar = 1.0 / 12.0
    out = [f'name = "N-four-bar, N = {n}"', 'gravity = [0.0, -9.81]', "", "[ground.points]"]
    out += [f"A{k} = [{float(k)}, 0.0]" for k in range(n + 1)]
    for k in range(n + 1):
        out += ["", "[[bodies]]", f'name = "crank{k}"', "mass = 1.0", f"inertia = {i_bar!r}",
                f"x = {float(k)}", "y = 0.5", f"theta = {math.pi / 2!r}", "vx = 0.5", "omega = -1.0"]
        if k == 0:
            out.append('given_velocity = ["theta"]')
        out += ["[bodies.points]", "A = [-0.5, 0.0]", "B = [0.5, 0.0]"]
    for k in range(n):
        out += ["", "[[bodies]]", f'name = "coupler{k}"', "mass = 1.0", f"inertia = {i_bar!r}",
                f"x = {k + 0.5}", "y = 1.0", "vx = 1.0",
                "[bodies.points]", "left = [-0.5, 0.0]", "right = [0.5, 0.0]"]
    for k in range(n + 1):
        out += ["", "[[joints]]", f'name = "A{k}"', 'type = "revolute"', 'body_i = "ground"',
                f'point_i = "A{k}"', f'body_j = "crank{k}"', 'point_j = "A"']
    for k in range(n):
        out += ["", "[[joints]]", f'name = "B{k}_left"', 'type = "revolute"', f'body_i = "crank{k}"',
                'point_i = "B"', f'body_j = "coupler{k}"', 'point_j = "left"']
        out += ["", "[[joints]]", f'name = "B{k + 1}_right"', 'type = "revolute"',
                f'body_i = "coupler{k}"', 'point_i = "right"', f'body_j = "crank{k + 1}"',
                'point_j = "B"']
    out += ["", "[[markers]]", 'name = "B0"', 'body = "crank0"', 'point = "B"',
            "", "[solver]", f"t_end = {t_end!r}"]
    return "\n".join(out) + "\n"


def nfourbar_reference(n, t_end):
    """B0 at t_end from the exact one-degree-of-freedom reduction: every crank turns with the same
    angle phi, every coupler translates, so (N+1)/3 + N bar inertias m L^2 are driven by the
    gravity moment of (N+1)/2 + N bar weights: phi'' = -(g/L) ((N+1)/2 + N)/((N+1)/3 + N) cos phi,
    phi(0) = pi/2, phi'(0) = -1 rad/s (DOP853, rtol = atol = 1e-13)."""
    k = 9.81 * ((n + 1) / 2 + n) / ((n + 1) / 3 + n)
    sol = solve_ivp(lambda t, y: [y[1], -k * math.cos(y[0])], (0, t_end), [math.pi / 2, -1.0],
                    method="DOP853", rtol=1e-13, atol=1e-13)
    phi = sol.y[0, -1]
    return np.array([math.cos(phi), math.sin(phi)])


def pendulum_reference():
    """Mass position at 10 s: DOP853 solution of the angle ODE (reference/README.md)."""
    import csv
    with open(os.path.join(ROOT, "reference", "derived_simple_pendulum_10s_dt0.01.csv")) as f:
        last = list(csv.DictReader(f))[-1]
    assert abs(float(last["t_s"]) - 10.0) < 1e-12
    return np.array([float(last["x_m"]), float(last["y_m"])])


def andrews_reference():
    """The seven angles of Hairer & Wanner at 0.03 s (IVP Test Set, PSIDE at rtol 1e-14)."""
    import csv
    with open(os.path.join(ROOT, "reference", "andrews_ivptestset_reference.csv")) as f:
        rows = list(csv.DictReader(f))
    return np.array([float(r["y_at_t0.03"]) for r in rows[:7]])


def andrews_angles(theta):
    """(beta, Theta, gamma, Phi, delta, Omega, epsilon) from the body-frame angles (see the
    comment at the top of examples/andrews.toml)."""
    return np.array([theta["OF"], theta["FE"] - theta["OF"], theta["EBD"],
                     theta["EG"] - theta["AG"], theta["AG"], theta["HE"] - theta["AH"], theta["AH"]])


ANDREWS_BODIES = ["OF", "FE", "EBD", "EG", "AG", "HE", "AH"]


class Case:
    """One model at one step: how to run it in both programs and how to measure its error."""

    def __init__(self, name, model_args, h, t_end, measure, reference, unit, repeat_scale=1.0):
        self.name, self.model_args, self.h, self.t_end = name, model_args, h, t_end
        self.measure, self.reference, self.unit = measure, reference, unit
        self.repeat_scale = repeat_scale


def cases(quick):
    out = [
        Case("pendulum-1e-3", ["--example", "pendulum"], 1e-3, 10.0, ("point", "mass", None, "P1"),
             pendulum_reference, "m"),
        Case("pendulum-1e-4", ["--example", "pendulum"], 1e-4, 10.0, ("point", "mass", None, "P1"),
             pendulum_reference, "m"),
        # A million steps: three repeats.
        Case("pendulum-1e-5", ["--example", "pendulum"], 1e-5, 10.0, ("point", "mass", None, "P1"),
             pendulum_reference, "m", repeat_scale=0.6),
        Case("andrews-1e-5", ["--example", "andrews"], 1e-5, 0.03, ("andrews",), andrews_reference,
             "rad"),
        Case("andrews-1e-6", ["--example", "andrews"], 1e-6, 0.03, ("andrews",), andrews_reference,
             "rad"),
        Case("double-fourbar-1e-3", ["--example", "double-fourbar"], 1e-3, 10.0,
             ("point", "crank0", "B", "B0"), lambda: nfourbar_reference(2, 10.0), "m"),
    ]
    t_short = 0.2 if quick else 2.0
    for n in (10, 20, 40, 80, 160):
        out.append(Case(f"nfourbar{n}-2s", ("nfourbar", n), 1e-3, t_short,
                        ("point", "crank0", "B", "B0"),
                        (lambda n=n: nfourbar_reference(n, t_short)), "m"))
    t_long = 2.0 if quick else 20.0
    out.append(Case("nfourbar40-20s", ("nfourbar", 40), 1e-3, t_long,
                    ("point", "crank0", "B", "B0"), lambda: nfourbar_reference(40, t_long), "m",
                    repeat_scale=0.4))
    return out


# ---------------------------------------------------------------------------------- dynastep
def model_args(case):
    if isinstance(case.model_args, tuple):
        n = case.model_args[1]
        path = os.path.join(WORK, f"nfourbar{n}.toml")
        with open(path, "w") as f:
            f.write(nfourbar_toml(n, case.t_end))
        return [path]
    return list(case.model_args)


METHODS = ("full", "modified")
# The same runs with the phases of the Newton iteration timed (the parts table; N-four-bar only).
TIMED = tuple(m + "-timed" for m in METHODS)


# The formulation of the first table, and the one measured beside it (docs/stabilized_index2.md).
GGL = "stabilized-index2"


def run_dynastep(case, out_dir, method, timed=False, formulation="index3"):
    """One run with Newton `method` in `formulation`, its phases timed when `timed`; returns (loop
    time, process time, summary)."""
    cmd = [BIN, "run", *model_args(case), "--formulation", formulation,
           "--scheme", "generalized-alpha", "--param",
           f"rho_inf={RHO_INF}", "--dt", repr(case.h), "--t-end", repr(case.t_end),
           "--output-interval", repr(case.t_end), "--set", f'solver.newton.method="{method}"',
           "--set", f"solver.newton.time_phases={'true' if timed else 'false'}",
           "-q", "--out", out_dir]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    process = time.perf_counter() - t0
    with open(os.path.join(out_dir, "summary.json")) as f:
        summary = json.load(f)
    if summary["status"] != "completed":
        raise RuntimeError(f"{case.name}: dynastep {summary['status']}: {summary.get('reason')}")
    return summary["loop_time_s"], process, summary


def dynastep_result(case, summary):
    fs = summary["final_state"]
    if case.measure[0] == "andrews":
        return andrews_angles({b: fs["bodies"][b][2] for b in ANDREWS_BODIES})
    return np.array(fs["markers"][case.measure[3]])


# ------------------------------------------------------------------------------------ Exudyn
# Exudyn's Newton tolerances (relative, absolute): tightened and its defaults. Both are run; the
# faster of those that reach the best error (within EXUDYN_SAME_ERROR) is reported: the defaults
# fail on some chains and floor the accuracy at small steps, but where they reach the same
# accuracy they are faster, and speed is compared at equal accuracy.
EXUDYN_TOLERANCES = ((1e-10, 1e-12), (1e-8, 1e-10))
EXUDYN_SAME_ERROR = 1.05


def exudyn_settings(exu, case, tol):
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(case.t_end / case.h))
    ti.endTime = case.t_end
    ti.verboseMode = 0
    ti.adaptiveStep = False
    ti.automaticStepSize = False
    ti.generalizedAlpha.spectralRadius = RHO_INF
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.useModifiedNewton = True
    ti.newton.relativeTolerance, ti.newton.absoluteTolerance = tol
    s.solution.file.write = False
    s.solution.sensors.writePeriod = case.t_end
    s.show.computationTime = False
    s.show.statistics = False
    if isinstance(case.model_args, tuple):  # the chains: Exudyn's sparse solver is its fast one
        s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    return s


def exudyn_choice(by_tol, ref):
    """Of the best runs per tolerance setting {tol: (time, result, counts)}, the fastest whose
    error is within EXUDYN_SAME_ERROR of the smallest; None when none completed."""
    if not by_tol:
        return None
    err = {tol: float(np.max(np.abs(r[1] - ref))) for tol, r in by_tol.items()}
    best = min(err.values())
    same = [tol for tol in by_tol if err[tol] <= EXUDYN_SAME_ERROR * best]
    tol = min(same, key=lambda t: by_tol[t][0])
    return by_tol[tol]


def timed_solve(exu, mbs, settings):
    """Exudyn's generalized-alpha `SolveDynamic` on the assembled `mbs`: its wall time [s], or None
    when it fails."""
    t0 = time.perf_counter()
    try:
        ok = mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.GeneralizedAlpha,
                              storeSolver=True)
    except exu.SolverError:
        ok = False
    wall = time.perf_counter() - t0
    return wall if ok else None


def run_exudyn_with(case, run_dir, tol):
    import exudyn as exu
    from exudyn_model import Model
    m = Model(run_dir)
    if case.measure[0] == "andrews":
        sensors = {b: m.sensor_angle(b) for b in ANDREWS_BODIES}
    else:
        sensors = {"p": m.sensor_position(case.measure[1], case.measure[2])}
    m.mbs.Assemble()
    settings = exudyn_settings(exu, case, tol)
    wall = timed_solve(exu, m.mbs, settings)
    if wall is None:
        return None
    last = {k: np.asarray(m.mbs.GetSensorStoredData(s))[-1] for k, s in sensors.items()}
    if case.measure[0] == "andrews":
        # Exudyn's rotation output of a planar body is measured from its reference angle.
        result = andrews_angles({b: last[b][1] + m.x0[f"{b}.theta"] for b in ANDREWS_BODIES})
    else:
        result = last["p"][1:3]
    it = m.mbs.sys["dynamicSolver"].it
    steps = max(int(round(case.t_end / case.h)), 1)
    counts = {"newton_per_step": it.newtonStepsCount / steps,
              "jacobians_per_step": it.newtonJacobiCount / steps, "tolerances": tol}
    return wall, result, counts


# ---------------------------------------------------------------------------------- reporting
def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}"


def fmt_counts(c):
    return (f"{c['iterations']:.2f} / {c['residuals']:.2f} / {c['jacobians']:.3f} / "
            f"{c['factorizations']:.3f} ({c['refactorizations']:.3f})")


def refactor_share(results):
    """The sentence that gives the share of refactorizations among the factorizations of the
    full-Newton runs, per case."""
    parts = []
    for r in results:
        t = r["full"]["per_step"]
        if t["factorizations"] > 0:
            parts.append(f"{r['case']} {100 * t['refactorizations'] / t['factorizations']:.1f} %")
    return ("Refactorizations among the factorizations of full Newton in this run: "
            + ", ".join(parts) + ".") if parts else ""


def ratio_summary(results):
    """The bullet that says where the Exudyn / dynastep time ratio stands against the issue's 5x
    (the better of full and modified Newton for each case)."""
    best = {r["case"]: max(r["exudyn"]["time"] / r[k]["time"] for k in ("full", "modified"))
            for r in results if r.get("exudyn")}
    if not best:
        return "- Exudyn did not run, so no ratio was measured."
    met = sorted(c for c, x in best.items() if x >= 5.0)
    rest = [x for c, x in best.items() if x < 5.0]
    text = f"- The Exudyn / dynastep ratio (the better Newton method per case) reaches 5× in {len(met)} of {len(best)} cases"
    text += f" ({', '.join(met)})" if met else ""
    if rest:
        text += f"; the others are at {min(rest):.1f}–{max(rest):.1f}×"
    return text + ". Ratios depend on the machine: compare them only within one run."


def table_marker(ident, date, first=False):
    """The marker above each table of the page (scripts/docs_tables.py reads it; see its docstring):
    this script rewrites the table, CI does not rerun it (Exudyn, minutes, times of one machine)."""
    lines = [f"<!-- table: performance/{ident}", "command: python3 bench/run.py", "output: rewrites",
             "check: slow"]
    lines.append("time: minutes: a release build, then five repeats of 11 cases in both programs "
                 "(needs Exudyn, numpy, scipy)" if first else "time: with the first table")
    lines.append(f"made: {date}")
    if first:
        lines.append("note: times depend on the machine: the page names it")
    return lines + ["-->"]


def formulation_section(results, date):
    """Time per step and error of the stabilized index-2 formulation beside index 3 (full Newton,
    the same generalized-α runs)."""
    lines = ["", "## The stabilized index-2 formulation beside index 3", "",
             f"The same runs (generalized-α, full Newton) in `--formulation {GGL}` "
             "(docs/stabilized_index2.md): twice the unknowns, the velocity constraints imposed. "
             "Time per step [µs] (loop time / steps, the fastest run), the ratio of the two, "
             "Newton iterations per step and the error at the end against the reference.", ""]
    lines += table_marker("formulations", date) + [
        "| case | unknowns index3 / GGL | index3 [µs/step] | GGL [µs/step] | GGL / index3 | "
        "iterations per step index3 / GGL | error index3 | error GGL |",
        "|---|---|---|---|---|---|---|---|"]
    for r in results:
        full, ggl = r.get("full"), r.get("ggl")
        if not full or not ggl:
            continue
        a, b = full["time"] / full["steps"], ggl["time"] / ggl["steps"]
        lines.append(
            f"| {r['case']} | {full['unknowns']} / {2 * full['unknowns']} | {1e6 * a:.2f} | "
            f"{1e6 * b:.2f} | {b / a:.2f} | {full['per_step']['iterations']:.2f} / "
            f"{ggl['per_step']['iterations']:.2f} | {full['error']:.2e} {r['unit']} | "
            f"{ggl['error']:.2e} {r['unit']} |")
    return lines


def parts_section(results, date):
    """Time per step of the N-four-bar cases against its parts: the mean time of one residual, one
    assembly, one factorization and one solve (summary.json's `newton_iterations.time_s` divided by
    their counts), times the Newton iterations per step, and the same with the counts actually
    used per step."""
    lines = ["", "## Time per step against its parts", "",
             "dynastep's own clocks around each part of the Newton iteration (`newton_iterations."
             "time_s` of summary.json, with `[solver.newton] time_phases = true`), in the timed "
             "run with the shortest loop (timed runs apart from those of the first table, whose "
             "loops read no clock inside a step). Parts: the mean time of "
             "one residual, one assembly, one factorization and one solve [µs]. \"One of each\" = "
             "(residual + assembly + factorization + solve) × iterations per step, the issue's "
             "yardstick; \"as counted\" = the four times summed (each part as often as it ran). "
             "Ratio = time per step / yardstick.", ""] + table_marker("parts", date) + [
             "| case | Newton | step [µs] | residual | assembly | factorization | solve | "
             "one of each [µs] | ratio | as counted [µs] | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if not r["case"].startswith("nfourbar"):
            continue
        for method in METHODS:
            d = r.get(method + "-timed")
            if not d:
                continue
            t, n = d.get("phase_s"), d.get("totals")
            if not t or not n or n["iterations"] == 0:
                continue
            mean = {"residual": t["residual"] / max(n["residuals"], 1),
                    "assembly": t["assembly"] / max(n["jacobians"], 1),
                    "factorization": t["factorization"] / max(n["factorizations"], 1),
                    "solve": t["solve"] / n["iterations"]}
            step = d["time"] / d["steps"]
            one_each = sum(mean.values()) * d["per_step"]["iterations"]
            counted = sum(t.values()) / d["steps"]
            lines.append(
                f"| {r['case']} | {method} | {1e6 * step:.1f} | {1e6 * mean['residual']:.1f} | "
                f"{1e6 * mean['assembly']:.1f} | {1e6 * mean['factorization']:.1f} | "
                f"{1e6 * mean['solve']:.1f} | {1e6 * one_each:.1f} | {step / one_each:.2f} | "
                f"{1e6 * counted:.1f} | {step / counted:.2f} |")
    return lines


def write_markdown(results, meta, path):
    lines = ["# Performance: dynastep and Exudyn side by side", "",
             "Written by `python3 bench/run.py` (rerun it rather than editing this page). "
             f"Machine: {meta['machine']}. Date: {meta['date']}. "
             f"{meta['dynastep']}, Exudyn {meta['exudyn']}, Python {meta['python']}.", "",
             "Both programs integrate the same model (Exudyn's is built from dynastep's parsed model and "
             "assembled initial state, bench/exudyn_model.py) with generalized-α, ρ∞ = 0.9, index 3 "
             "and fixed steps. Exudyn: its modified Newton, run with its Newton tolerances tightened "
             "to 1e-10 (relative) / 1e-12 (absolute) and with its defaults 1e-8 / 1e-10; the page "
             "keeps the faster of the two among those that reach Exudyn's best error on the case "
             "to within 5 % (the defaults are marked; they fail on some chains, and at small steps "
             "they floor the accuracy), EigenSparse for the chains. dynastep: default tolerances "
             "(position correction 1e-10 relative to 1 + ‖q‖∞, residual 1e-8 of the force terms), "
             "with full Newton (the default; before a second matrix it tries Deuflhard's "
             "simplified correction, a solve with the matrix already factored) and with "
             "`[solver.newton] method = \"modified\"`. "
             "Time: dynastep's whole time loop (steps, diagnostics at the output samples, output), "
             "`loop_time_s` of summary.json; Exudyn's `SolveDynamic` call. Minimum over the repeats, "
             "runs interleaved. Error: the end point against an independent reference (bench/run.py "
             "says which), largest component, in the unit given. Ratio = Exudyn time / dynastep time.",
             "", "## Time and accuracy", ""] + table_marker("time-and-accuracy", meta["date"], True) + [
             "| case | h [s] | steps | Exudyn [s] | Exudyn error | full Newton [s] | ratio | error | "
             "modified Newton [s] | ratio | error |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        e, f, m = r.get("exudyn"), r["full"], r["modified"]
        u = r["unit"]
        ex_t = f"{e['time']:.4g}" if e else "—"
        ex_e = f"{e['error']:.2e} {u}" if e else "failed"
        if e and e["counts"]["tolerances"] != EXUDYN_TOLERANCES[0]:
            ex_e += " (default Newton tolerances)"
        ratio = (lambda d: f"{e['time'] / d['time']:.1f}×" if e else "—")
        lines.append(f"| {r['case']} | {r['h']:g} | {f['steps']} | {ex_t} | {ex_e} | "
                     f"{f['time']:.4g} | {ratio(f)} | {f['error']:.2e} {u} | "
                     f"{m['time']:.4g} | {ratio(m)} | {m['error']:.2e} {u} |")
    lines += ["", "## Counts per step", "",
              "dynastep: Newton iterations (simplified corrections included) / residual "
              "evaluations / Jacobian assemblies / factorizations (of which numeric "
              "refactorizations with the pivots of an earlier factorization; `auto` takes the "
              "closed-form 3 × 3 inverse for the pendulum, n + m = 3, and the sparse solver for the "
              "others). "
              "Exudyn: Newton iterations / Jacobians (what its solver reports).", ""]
    lines += table_marker("counts", meta["date"]) + [
              "| case | Exudyn | dynastep, full Newton | dynastep, modified Newton |",
              "|---|---|---|---|"]
    for r in results:
        e = r.get("exudyn")
        ex = (f"{e['counts']['newton_per_step']:.2f} / {e['counts']['jacobians_per_step']:.3f}"
              if e else "—")
        lines.append(f"| {r['case']} | {ex} | {fmt_counts(r['full']['per_step'])} | "
                     f"{fmt_counts(r['modified']['per_step'])} |")
    lines += ["", "## Start-up and process time of dynastep", "",
              "Process time of `dynastep run` (parse, start-up, loop, writing the run folder), its "
              "start-up (`startup_time_s` of summary.json: building the system and the scheme, "
              "assembling the consistent initial state; sparse from n + m = 100 on) and its loop, "
              "full Newton, in the run with the shortest loop.", ""]
    lines += table_marker("start-up", meta["date"]) + [
              "| case | n + m | process [s] | start-up [s] | loop [s] | process / (n + m) [µs] |",
              "|---|---|---|---|---|---|"]
    for r in results:
        d = r["full"]
        lines.append(f"| {r['case']} | {d['unknowns']} | {d['process']:.4g} | {d['startup']:.3g} | "
                     f"{d['time']:.4g} | {1e6 * d['process'] / d['unknowns']:.0f} |")
    lines += parts_section(results, meta["date"])
    lines += formulation_section(results, meta["date"])
    lines += ["", "## Refactorization: KLU, faer, and ours", "",
              "One iteration matrix of the N = 40 chain (n + m = 485, 4581 stored entries before "
              "the joints stopped writing structural zeros on 2026-11-26), measured once on 2026-11-25 "
              "on the Intel machine of that day, not by this script: SuiteSparse KLU 5.12 (C, "
              "Debian's libsuitesparse-dev, called from a small C program on the matrix written in "
              "Matrix Market form): analysis 220 µs, factorization with pivoting 86 µs, numeric "
              "refactorization 25 µs, solve 5.6 µs. faer 0.24's numeric factorization, which has no "
              "refactorization (it searches the graph and chooses pivots every time): about 68 µs "
              "(53 % of the 128 µs of a full-Newton iteration, from a profile). dynastep's own "
              "refactorization (linalg/refactor.rs, on faer's pivots and pattern) keeps the "
              "pivots of the last fresh factorization while each stays at least 0.1 times the "
              "largest entry below it (threshold partial pivoting, UMFPACK's default threshold) and "
              "factors afresh otherwise. " + refactor_share(results) + " Keeping a pivot only while "
              "partial pivoting would choose it (the rule until 2026-11-26, so that results did not "
              "change) refactored 43 % of the chain's matrices, whose pivot candidates are close "
              "and change places, and the chain gained nothing. "
              "It was written rather than binding KLU because KLU is a C library: binding it would "
              "make every build, the Python wheel included, depend on SuiteSparse being installed, "
              "for an algorithm of about 100 lines over factors faer already computes.", "",
              "## Not measured or not done yet", "",
              ratio_summary(results),
              "- The pendulum (n + m = 3) is where dynastep gains least, and the less the smaller "
              "the step: its step is already one Newton iteration and two residuals, while "
              "Exudyn's modified Newton takes fewer iterations per step as the step shrinks (6.4, "
              "5.3 and 3.6 at h = 1e-3, 1e-4 and 1e-5 s in the counts table of 2026-11-29), so the "
              "ratio falls from 5× to 3.3×. dynastep's step is the fixed "
              "cost of a Newton iteration through the general interfaces, spread over many small "
              "parts (callgrind, h = 1e-4, one iteration and two residuals per step: about 6 350 "
              "instructions per step on 2026-11-26, from 10 000 that morning, and 6 900 on "
              "2026-11-29; the evaluation cache "
              "and joint rows about 20 %, the Newmark bookkeeping 12–15 %, the time loop's own 11 %). Its "
              "wall-clock time also moves with the code layout alone: on 2026-11-26 a branch that "
              "never ran at h = 1e-4 made the loop 4–5 % slower, and aligning every loop to 64 "
              "bytes (`-C llvm-args=-align-loops=64`) made one build 5 % faster and another 4 % "
              "slower. Read its ratio with that band in mind; the other cases are far from 5×.",
              "- Start-up with redundant constraints (not in the cases above): the N-four-bar "
              "chains with three repeated crank lengths start in 1.1 ms (N = 10) to 10 ms "
              "(N = 160), sparse elimination on the rows of Φ_q (measured 2026-11-26 by hand).",
              "- Subnormal numbers: in index 3 and stabilized index 2 the evaluations' inputs "
              "(q, v, q̈ at the integration point and λ) have their entries below 1e-150 in "
              "magnitude set to zero (`linalg::flush_tiny`). A parasitic component that ρ∞ = "
              "0.9 damps by about 0.9 per step fell from rounding to 1e-300 within 5 000 steps "
              "of the spatial slider-crank at h = 1e-4 s, its products with the model's numbers "
              "went subnormal, and the 50 000 steps took 1.50 s instead of 0.36 s "
              "(`loop_time_s` of `dynastep run --example spatial-slider-crank --t-end 5 "
              "--output-interval 5 --scheme generalized-alpha --formulation index3 --param "
              "rho_inf=0.9 --dt 1e-4`, by hand on 2026-11-28, before and after). The explicit "
              "and index-1 formulations do not flush; no case of the tables above slowed down "
              "there. Nor do their velocities decay into that range: they stop at the level of "
              "rounding or of the error control. The spring-damper linkage (`dynastep run "
              "--example spring-linkage --output-interval T --t-end T`, c = 2 N s/m, at rest "
              "after a few seconds) ended with |v| from 7e-17 to 3e-14 at T = 100, 400 and "
              "1 600 s with `--scheme rk4 --formulation projection --dt 1e-2` (4.8–5.6 µs per "
              "step in two runs each) and from 3e-8 to 1.5e-5 at T = 100 to 800 s with `--scheme dopri5 "
              "--formulation projection --rtol 1e-6` (8.3–9.3 µs per step), by hand on "
              "2026-11-29.",
              "- With redundant constraints the iteration matrix of the time loop is singular. The "
              "sparse path solves it with the unknowns of its null space pinned and the null space "
              "projected out (the minimum-norm solution, `linalg/pinned.rs`), and checks at every "
              "factorization that the pinned rows stay dependent: Bricard's mechanism, n + m = 70, "
              "10 000 steps in 1.5 s, against 8.6 s with an SVD at every iteration (`loop_time_s` "
              "of `dynastep run --example bricard`, by hand on 2026-11-27); with the spatial rows "
              "cached per configuration the same run took about 0.5 s, and 0.30–0.34 s since the "
              "kernels' gradients were written without dense Jacobians, the rows' structural "
              "zeros dropped and the columns ordered by AMD (2026-11-28; the `--spatial` section "
              "above, h = 1e-3). Since 2026-11-28 the Newton start of λ keeps the last solved "
              "λ's component along the null space (`Workspace::keep_null_component`): "
              "extrapolated freely, that component grew and the joint reactions reached 1 200 N "
              "by t = 10 s against 28 N; with the extrapolation stopped after pinned solves, "
              "modified Newton refreshed its matrix at 8 675 of the 10 000 steps; with the "
              "start's component reset, at 690 (`newton_iterations.factorizations` of the "
              "harness's run, by hand on 2026-11-28; the `--spatial` table above has its "
              "times). Removing the null-space component from each *solved* λ instead moved "
              "ESDIRK4(3)6L's solution on Bricard at rtol 1e-4: the null vector of the last "
              "factored matrix is not null at the solved configuration when the step is large, "
              "and the removal changed Φ_qᵀλ. The dense and small-dense paths still decompose "
              "every singular matrix and stop the extrapolation. The spatial examples, "
              "Bricard's among them, are measured against Exudyn in their own section "
              "(`--spatial`).", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


BEAMS_HEADING = "## Flexible beams: the cantilever"


def splice_section(path, heading, lines):
    """Puts the section `lines` (headed `heading`) into the page at `path`: in place of the section
    under that heading, or, when the page has none, before "Not measured or not done yet"."""
    with open(path) as f:
        page = f.read()
    text = "\n".join(lines).strip("\n") + "\n\n"
    start = page.find(heading + "\n")
    if start >= 0:
        end = page.find("\n## ", start + len(heading))
        page = page[:start] + text + (page[end + 1:] if end >= 0 else "")
    else:
        anchor = page.find("## Not measured or not done yet")
        page = (page[:anchor] + text + page[anchor:]) if anchor >= 0 else page + "\n" + text
    with open(path, "w") as f:
        f.write(page.rstrip("\n") + "\n")


def splice_beams(path, lines):
    splice_section(path, BEAMS_HEADING, lines)


def run_beams(repeat, have_exudyn, out):
    """The flexible-beam case (bench/beams.py): measured, kept in bench/results_beams.json, and
    spliced into the page."""
    import beams
    import lateral_buckling
    m = beams.measure(BIN, WORK, repeat, have_exudyn)
    lateral = lateral_buckling.measure(BIN, WORK, repeat, have_exudyn)
    date = datetime.date.today().isoformat()
    with open(os.path.join(ROOT, "bench", "results_beams.json"), "w") as f:
        json.dump({"date": date, "machine": machine(), **m, "lateral_buckling": lateral}, f,
                  indent=1)
    if m["reference"] is None:
        print("the beam section needs Exudyn (its reference): not written", file=sys.stderr)
        return
    marker = [f"<!-- table: performance/beams", "command: python3 bench/run.py --beams",
              "output: rewrites", "check: slow",
              "time: minutes: both programs on five meshes, the reference in Exudyn",
              f"made: {date}", f"note: times depend on the machine: {machine()}", "-->"]
    lines = beams.section(m, date, marker)
    if lateral["reference"] is not None:
        lines += lateral_buckling.section(lateral, [
            "<!-- table: performance/lateral-buckling", "command: python3 bench/run.py --beams",
            "output: rewrites", "check: slow",
            "time: with the cantilever; the reference in Exudyn takes 10 s",
            f"made: {date}", f"note: times depend on the machine: {machine()}", "-->"])
    splice_beams(out, lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one repeat, short chains")
    ap.add_argument("--cases", help="comma-separated case names")
    ap.add_argument("--no-exudyn", action="store_true")
    ap.add_argument("--beams", action="store_true", help="only the flexible-beam section")
    ap.add_argument("--peers", action="store_true",
                    help="only the cross-engine section (bench/peers.py: dynastep, Exudyn, MuJoCo, "
                         "Drake)")
    ap.add_argument("--spatial", action="store_true",
                    help="only the spatial examples against Exudyn (bench/spatial.py)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat
    if not os.environ.get("DYNASTEP_BIN"):
        subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "dynastep-cli"], cwd=ROOT,
                       check=True)
    os.makedirs(WORK, exist_ok=True)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    have_exudyn = False
    if not args.no_exudyn:
        try:
            import exudyn  # noqa: F401
            have_exudyn = True
        except ImportError:
            print("exudyn is not installed (pip install exudyn): dynastep only", file=sys.stderr)
    if args.beams:
        run_beams(repeat, have_exudyn, args.out)
        print(f"wrote {args.out}", file=sys.stderr)
        return
    if args.spatial:
        import spatial
        spatial.run(BIN, WORK, repeat, args.quick, have_exudyn, args.out, splice_section)
        print(f"wrote {args.out}", file=sys.stderr)
        return
    if args.peers:
        import peers
        peers.run(BIN, WORK, repeat, args.quick, have_exudyn, args.out, splice_section)
        print(f"wrote {args.out}", file=sys.stderr)
        return
    selected = cases(args.quick)
    if args.cases:
        names = args.cases.split(",")
        selected = [c for c in selected if c.name in names]
    best = {c.name: {m: {"time": math.inf} for m in METHODS + TIMED + ("ggl",)}
            for c in selected}
    for rep in range(repeat):
        for c in selected:
            if rep >= max(1, round(repeat * c.repeat_scale)):
                continue
            b = best[c.name]
            line = f"[{rep + 1}/{repeat}] {c.name}:"
            for method in METHODS:
                out_dir = os.path.join(WORK, f"{c.name}-{method}")
                loop, process, summary = run_dynastep(c, out_dir, method)
                if loop < b[method]["time"]:
                    b[method] = {"time": loop, "process": process, "summary": summary,
                                 "dir": out_dir}
                line += f" dynastep {method} {loop:.4g} s,"
            out_dir = os.path.join(WORK, f"{c.name}-ggl")
            loop, process, summary = run_dynastep(c, out_dir, "full", formulation=GGL)
            if loop < b["ggl"]["time"]:
                b["ggl"] = {"time": loop, "process": process, "summary": summary, "dir": out_dir}
            line += f" {GGL} {loop:.4g} s,"
            if c.name.startswith("nfourbar"):
                for method in METHODS:
                    out_dir = os.path.join(WORK, f"{c.name}-{method}-timed")
                    loop, process, summary = run_dynastep(c, out_dir, method, timed=True)
                    key = method + "-timed"
                    if loop < b[key]["time"]:
                        b[key] = {"time": loop, "process": process, "summary": summary,
                                  "dir": out_dir}
            if have_exudyn:
                by_tol = b.setdefault("exu_by_tol", {})
                for tol in EXUDYN_TOLERANCES:
                    out = run_exudyn_with(c, b["full"]["dir"], tol)
                    if out is None:
                        line += f" Exudyn {tol[0]:g} failed"
                        continue
                    if tol not in by_tol or out[0] < by_tol[tol][0]:
                        by_tol[tol] = out
                    line += f" Exudyn {tol[0]:g} {out[0]:.4g} s"
            print(line, file=sys.stderr)
    results = []
    for c in selected:
        b, ref = best[c.name], c.reference()
        r = {"case": c.name, "h": c.h, "unit": c.unit}
        for method in METHODS + TIMED + ("ggl",):
            if "summary" not in b[method]:
                continue
            s = b[method]["summary"]
            steps = max(s["steps"], 1)
            ni = s["newton_iterations"]
            r[method] = {"time": b[method]["time"], "process": b[method]["process"],
                         "startup": s["startup_time_s"], "steps": s["steps"],
                         "unknowns": len(s["final_state"]["q"]) + len(s["final_state"]["lambda"]),
                         "error": float(np.max(np.abs(dynastep_result(c, s) - ref))),
                         "per_step": {k: ni[k] / steps for k in
                                      ("residuals", "jacobians", "factorizations",
                                       "refactorizations")}
                         | {"iterations": ni["total"] / steps},
                         "totals": {k: ni[k] for k in ("residuals", "jacobians",
                                                       "factorizations")}
                         | {"iterations": ni["total"]},
                         "phase_s": ni.get("time_s")}
        chosen = exudyn_choice(b.get("exu_by_tol"), ref) if have_exudyn else None
        if chosen is not None:
            wall, result, counts = chosen
            r["exudyn"] = {"time": wall, "error": float(np.max(np.abs(result - ref))),
                           "counts": counts}
        results.append(r)
    meta = {"machine": machine(), "date": datetime.date.today().isoformat(),
            "python": platform.python_version(),
            "exudyn": __import__("exudyn").__version__ if have_exudyn else "not installed",
            "dynastep": subprocess.run([BIN, "--version"], capture_output=True,
                                       text=True).stdout.strip()}
    # The raw numbers go beside the page: bench/results.json for docs/performance.md.
    default_page = os.path.join(ROOT, "docs", "performance.md")
    raw = (os.path.join(ROOT, "bench", "results.json") if os.path.abspath(args.out) == default_page
           else os.path.splitext(args.out)[0] + ".json")
    with open(raw, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    write_markdown(results, meta, args.out)
    run_beams(repeat, have_exudyn, args.out)
    import peers
    peers.splice_saved(args.out, splice_section)  # the last --peers section, not measured again
    import spatial
    spatial.splice_saved(args.out, splice_section)  # the last --spatial section, likewise
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
