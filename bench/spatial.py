"""The spatial cases of the benchmark harness (bench/run.py --spatial): the four spatial rigid-body
examples, `spatial-slider-crank` (5 s), `bricard` (10 s), `flyball-governor` (10 s) and
`spatial-top` (10 s), in dynastep and in Exudyn at equal accuracy. Raw numbers in
bench/results_spatial.json, the section spliced into docs/performance.md.

- dynastep: generalized-α (ρ∞ = 0.9), index 3, fixed steps, output only at the end, full and
  modified Newton: the harness's pairing. Time: `loop_time_s` of summary.json.
- Exudyn: the same mechanism built from dynastep's parsed model and assembled initial state
  (bench/exudyn_spatial.py: rigid bodies on Euler-parameter nodes, the same joints, springs and
  gravity), its generalized-α with index-3 constraints as bench/run.py runs it (`exudyn_settings`:
  the same ρ∞, modified Newton, fixed steps, with each of the two Newton tolerance settings of
  `EXUDYN_TOLERANCES`). Time: its `SolveDynamic` call.
- Error: the positions of the case's markers at t_end, largest component of the difference to the
  reference [m].
- Reference: dynastep with another scheme and formulation than the timed runs, Dormand–Prince 5(4)
  with coordinate projection (`--scheme dopri5 --formulation projection`) at a tight tolerance;
  its convergence is checked against the same at ten times that tolerance, and it is compared
  with the independent solutions of reference/spatial/ (the minimal-coordinate DOP853 solutions of
  the slider-crank and the governor, the analytic steady precession of the top; Bricard has none)
  and with Exudyn's converged value (Richardson extrapolation of its two finest steps).

Equal accuracy: beside each dynastep run, the fastest Exudyn run (any step, either tolerance
setting) whose error is at most the dynastep run's, and Exudyn's time over dynastep's.

dynastep's choice: `dynastep run --scheme auto --rtol R` at the tolerances AUTO_RTOLS, the pair
dynastep takes without being told (docs/schemes.md, "The stiffness switch"), matched the same
way. Its time is the run's loop time (both pairs when the switch went on from where the first
stopped); the time lost to the switch (the first pair's loop, `stiffness_switch.switched.
loop_time_s`, when the run was made again from the start after a failure) is reported beside it
and counted in a second ratio.

Levels: at each error of dynastep's generalized-α runs with full Newton, each engine's fastest run
at least as accurate (within LEVEL_SLACK): dynastep's among its generalized-α and auto runs,
Exudyn's among all its runs, the work-precision comparison of bench/peers.py for these cases. Also
recorded: Bricard's largest energy error over every step (dynastep, untimed runs with
`diagnostics = "every-step"`; the timed runs write only t_end, so their summary's maximum is that
sample's).

    DYNASTEP_BIN=... python3 bench/run.py --spatial           # about 8 minutes (2 cores)
    DYNASTEP_BIN=... python3 bench/run.py --spatial --quick   # about 1 minute: one round, the
                                                              # coarse steps, no convergence check

Rounds: min(--repeat, MAX_REPEAT), interleaved; a run longer than LONG_RUN in the first round is
not repeated.
"""
import csv
import datetime
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

import run as harness
import peers

HEADING = "## Spatial mechanisms against Exudyn"
RAW = os.path.join(harness.ROOT, "bench", "results_spatial.json")
RHO_INF = harness.RHO_INF
METHODS = ("full", "modified")
# A match is marked when the error at its step moves by more than this factor with the Newton
# tolerance (Exudyn) or method (dynastep): errors at the level of the Newton tolerances.
TOLERANCE_LIMITED = 1.2
# At most this many rounds (bench/run.py's default --repeat is 5: the spatial runs take minutes).
MAX_REPEAT = 3
# Runs longer than this [s] in the first round are not repeated (their minimum moves little).
LONG_RUN = 5.0
REF_SCHEME = ("dopri5", "projection")
# The tolerances of the `--scheme auto` runs.
AUTO_RTOLS = (1e-4, 1e-6, 1e-8, 1e-10)


class SpatialCase:
    """One spatial example: its end time, the markers whose positions are compared, the steps of
    each engine, the reference's tolerance, and the independent check (or None)."""

    def __init__(self, name, t_end, markers, dynastep_steps, exudyn_steps, ref_rtol, check,
                 quick_dynastep_steps=None, quick_exudyn_steps=None):
        self.name, self.t_end, self.markers = name, t_end, markers
        self.dynastep_steps, self.exudyn_steps = dynastep_steps, exudyn_steps
        self.quick_dynastep_steps = quick_dynastep_steps or dynastep_steps[:1]
        self.quick_exudyn_steps = quick_exudyn_steps or exudyn_steps[:2]
        self.ref_rtol, self.check = ref_rtol, check

    def steps(self, engine, quick):
        if engine == "dynastep":
            return self.quick_dynastep_steps if quick else self.dynastep_steps
        return self.quick_exudyn_steps if quick else self.exudyn_steps


# ------------------------------------------------------------------------ independent checks
def csv_last(path, column, t_end):
    with open(os.path.join(harness.ROOT, path)) as f:
        last = list(csv.DictReader(f))[-1]
    assert abs(float(last["t"]) - t_end) < 1e-9, (path, last["t"])
    return float(last[column])


def slider_crank_check():
    """Slider x at 5 s: reference/spatial/slider_crank_3d.csv, a one-coordinate Lagrange model
    integrated by SciPy's DOP853 at rtol = atol = 1e-12. Components compared: x of marker C."""
    return {"what": "minimal-coordinate Lagrange model, DOP853 rtol 1e-12 "
                    "(reference/spatial/slider_crank_3d.csv)",
            "components": [0], "value": [csv_last("reference/spatial/slider_crank_3d.csv",
                                                  "slider_x", 5.0)]}


def flyball_check():
    """Slider height at 10 s: reference/spatial/flyball_governor.csv, a four-coordinate Lagrange
    model integrated by SciPy's DOP853 at rtol 1e-12. Components compared: z of marker S."""
    return {"what": "minimal-coordinate Lagrange model, DOP853 rtol 1e-12 "
                    "(reference/spatial/flyball_governor.csv)",
            "components": [2], "value": [csv_last("reference/spatial/flyball_governor.csv", "s",
                                                  10.0)]}


def top_check():
    """The centroid at 10 s on the steady precession the example starts on (examples/
    spatial-top.toml): the symmetry axis e3 = (sin θ sin φ, −sin θ cos φ, cos θ) with θ = π/6 and
    φ = φ̇ t, φ̇ the slow root of m g l = φ̇ (I3 ω3 − I1 φ̇ cos θ), I1 = 1e-4 + m l² about the tip;
    the centroid is l e3 from the fixed tip."""
    m, l, g, i3, w3, th = 0.02, 0.05, 9.81, 2e-4, 4 * math.pi, math.pi / 6
    i1 = 1e-4 + m * l * l
    phid = 2 * m * g * l / (i3 * w3 + math.sqrt((i3 * w3) ** 2 - 4 * i1 * math.cos(th) * m * g * l))
    phi = phid * 10.0
    e3 = [math.sin(th) * math.sin(phi), -math.sin(th) * math.cos(phi), math.cos(th)]
    return {"what": f"analytic steady precession (φ̇ = {phid:.10f} rad/s)",
            "components": [0, 1, 2], "value": [l * c for c in e3]}


# Steps: dynastep at the harness's 1e-3 and 1e-4 s; Exudyn at those and between (and at 5e-5 s on
# Bricard, whose error at 1e-4 s is already at the Newton tolerances' level, 1e-9 m). --quick:
# dynastep at 1e-3 s, Exudyn at 1e-3 and 5e-4 s. Reference tolerance: the governor's springs limit
# dopri5's steps (stability, not accuracy: about 87 000 steps at any tolerance), so 1e-9 there.
CASES = [
    SpatialCase("spatial-slider-crank", 5.0, ["C"], (1e-3, 1e-4), (1e-3, 5e-4, 2e-4, 1e-4),
                1e-12, slider_crank_check),
    SpatialCase("bricard", 10.0, ["J1", "J2", "J3", "J4"], (1e-3, 1e-4),
                (1e-3, 5e-4, 2e-4, 1e-4, 5e-5), 1e-12, None),
    SpatialCase("flyball-governor", 10.0, ["S"], (1e-3, 1e-4), (1e-3, 5e-4, 2e-4, 1e-4), 1e-9,
                flyball_check),
    SpatialCase("spatial-top", 10.0, ["axis"], (1e-3, 1e-4), (1e-3, 5e-4, 2e-4, 1e-4), 1e-12,
                top_check),
]


# ---------------------------------------------------------------------------------- dynastep
def marker_values(summary, markers):
    """The positions of `markers` at the end, one vector (x, y, z of each in turn)."""
    fs = summary["final_state"]["markers"]
    return np.concatenate([np.asarray(fs[m][:3], float) for m in markers])


def dynastep(binary, out, case, args):
    """One `dynastep run` of the example with `args`; returns summary.json."""
    subprocess.run([binary, "run", "--example", case.name, "--t-end", repr(case.t_end),
                    "--output-interval", repr(case.t_end), *args, "-q", "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    if s["status"] != "completed":
        raise RuntimeError(f"{case.name}: dynastep {s['status']}: {s.get('reason')}")
    return s


def ga_args(h, method, every_step=False):
    args = ["--scheme", "generalized-alpha", "--formulation", "index3", "--param",
            f"rho_inf={RHO_INF}", "--dt", repr(h), "--set", f'solver.newton.method="{method}"']
    if every_step:
        args += ["--set", 'solver.diagnostics="every-step"']
    return args


def ga_dir(work, case, h, method):
    return os.path.join(work, f"spatial-{case.name}-{h:g}-{method}")


def run_dynastep(binary, work, case, h, method):
    """dynastep's generalized-α at step h with Newton `method`: (loop time, values, summary)."""
    s = dynastep(binary, ga_dir(work, case, h, method), case, ga_args(h, method))
    return s["loop_time_s"], marker_values(s, case.markers), s


def reference(binary, work, case, rtol):
    """dynastep's Dormand–Prince 5(4) with coordinate projection at `rtol`: (values, summary)."""
    out = os.path.join(work, f"spatial-{case.name}-ref-{rtol:g}")
    s = dynastep(binary, out, case, ["--scheme", REF_SCHEME[0], "--formulation", REF_SCHEME[1],
                                     "--rtol", repr(rtol)])
    return marker_values(s, case.markers), s


def run_auto(binary, work, case, rtol):
    """`dynastep run --scheme auto --rtol rtol`: {"time" (the run's loop time), "chosen", "lost"
    (the time lost to the switch: `peers.lost_to`), "values"} or
    {"failed": reason}."""
    out = os.path.join(work, f"spatial-{case.name}-auto-{rtol:g}")
    try:
        s = dynastep(binary, out, case, ["--scheme", "auto", "--rtol", repr(rtol)])
    except (RuntimeError, subprocess.CalledProcessError) as e:
        return {"failed": str(e)[:300]}
    sw = s["stiffness_switch"]
    switched = sw.get("switched")
    return {"time": s["loop_time_s"], "chosen": sw["chosen"],
            "lost": peers.lost_to(switched),
            "steps": s["steps"], "values": marker_values(s, case.markers)} | (
        {"switched_from": switched["from"], "switched_at": switched["stopped_at"]}
        if switched else {})


def measure_auto(binary, work, case, repeat, log):
    """The auto runs of one case, minimum loop time over `repeat` rounds: [{"rtol", ...}]."""
    best = {}
    for rep in range(repeat):
        for rtol in AUTO_RTOLS:
            if rtol in best and (best[rtol].get("failed") or best[rtol]["time"] > LONG_RUN):
                continue
            got = run_auto(binary, work, case, rtol)
            if got.get("failed") or rtol not in best or got["time"] < best[rtol]["time"]:
                best[rtol] = got
            log(f"[{rep + 1}/{repeat}] {case.name} auto rtol {rtol:g}: "
                + (got["failed"] if got.get("failed")
                   else f"{got['chosen']} {got['time']:.4g} s + switch {got['lost']:.3g} s"))
    return [{"rtol": r} | best[r] for r in AUTO_RTOLS]


# ------------------------------------------------------------------------------------ Exudyn
def exudyn_linear_solver(exu, settings, redundant):
    """Exudyn's dense solver; with redundant constraints (Bricard) its Eigen dense LU that
    tolerates the singular Jacobian (Exudyn's own solver refuses it: "matrix is not factorized")."""
    if redundant:
        settings.linearSolver.solverType = exu.LinearSolverType.EigenDense
        settings.linearSolver.ignoreSingularJacobian = True


def run_exudyn(case, model_dir, h, tol, redundant):
    """Exudyn's generalized-α at step h with Newton tolerances `tol` on the model of the dynastep
    run folder `model_dir`: (wall time, values, counts) or None when it fails."""
    import exudyn as exu
    from exudyn_spatial import Model
    m = Model(model_dir)
    sensors = [m.sensor_marker(k) for k in case.markers]
    m.mbs.Assemble()
    hcase = harness.Case(case.name, ["--example", case.name], h, case.t_end, None, None, "m")
    settings = harness.exudyn_settings(exu, hcase, tol)
    exudyn_linear_solver(exu, settings, redundant)
    wall = harness.timed_solve(exu, m.mbs, settings)
    if wall is None:
        return None
    values = np.concatenate([np.asarray(m.mbs.GetSensorStoredData(s))[-1][1:4] for s in sensors])
    it = m.mbs.sys["dynamicSolver"].it
    steps = max(int(round(case.t_end / h)), 1)
    counts = {"newton_per_step": it.newtonStepsCount / steps,
              "jacobians_per_step": it.newtonJacobiCount / steps}
    return wall, values, counts


# --------------------------------------------------------------------------------- measuring
def err(values, ref):
    return float(np.max(np.abs(np.asarray(values) - np.asarray(ref))))


def jobs(case, quick, have_exudyn):
    """The runs of one case, coarse steps first, each engine's interleaved with the other's."""
    out = [("dynastep", h, m) for h in case.steps("dynastep", quick) for m in METHODS]
    if have_exudyn:
        out += [("Exudyn", h, tuple(t)) for h in case.steps("Exudyn", quick)
                for t in harness.EXUDYN_TOLERANCES]
    return sorted(out, key=lambda j: (-j[1], j[0] != "dynastep"))


def measure_runs(binary, work, case, repeat, quick, have_exudyn, model_dir, redundant, log):
    """Every run of one case, the minimum time over `repeat` interleaved rounds: {job: best}
    (None for an Exudyn run that failed; it is not tried again). A run that took more than
    LONG_RUN seconds in the first round is not repeated."""
    best, first = {}, {}
    for rep in range(repeat):
        for job in jobs(case, quick, have_exudyn):
            engine, h, x = job
            if job in best and (best[job] is None or first[job] > LONG_RUN):
                continue
            if engine == "dynastep":
                t, v, s = run_dynastep(binary, work, case, h, x)
                got = {"time": t, "values": v, "summary": s}
                what = f"{x} Newton"
            else:
                r = run_exudyn(case, model_dir, h, x, redundant)
                got = r and {"time": r[0], "values": r[1], "counts": r[2]}
                what = f"tolerances {x[0]:g}/{x[1]:g}"
            line = f"[{rep + 1}/{repeat}] {case.name} {engine} h = {h:g} {what}: "
            if got is None:
                best[job] = None
                log(line + "failed")
                continue
            first.setdefault(job, got["time"])
            if job not in best or got["time"] < best[job]["time"]:
                best[job] = got
            log(line + f"{got['time']:.4g} s")
    return best


def measure_one(binary, work, case, repeat, quick, have_exudyn, log):
    """One case: its reference (and, unless quick, the reference at ten times the tolerance), the
    timed runs, Bricard's energy over every step, the cross-checks."""
    t0 = time.perf_counter()
    ref, rs = reference(binary, work, case, case.ref_rtol)
    ref_time = time.perf_counter() - t0
    log(f"{case.name}: reference {'/'.join(REF_SCHEME)} rtol {case.ref_rtol:g}: "
        f"{rs['steps']} steps, {ref_time:.1f} s")
    conv = None
    if not quick:
        loose, _ = reference(binary, work, case, case.ref_rtol * 10)
        conv = err(loose, ref)
        log(f"{case.name}: the reference at rtol {case.ref_rtol * 10:g} differs by {conv:.2e} m")
    # The model folder Exudyn's model is built from: a generalized-α run at the coarsest step.
    dsteps = case.steps("dynastep", quick)
    model_dir = os.path.join(work, f"spatial-{case.name}-model")
    first = dynastep(binary, model_dir, case, ga_args(max(dsteps), "full"))
    dependent = first.get("assembly", {}).get("dependent") or []
    best = measure_runs(binary, work, case, repeat, quick, have_exudyn, model_dir,
                        bool(dependent), log)
    auto = measure_auto(binary, work, case, repeat, log)
    c = {"case": case.name, "t_end": case.t_end, "markers": case.markers,
         "unknowns": len(first["final_state"]["q"]) + len(first["final_state"]["lambda"]),
         "dependent_rows": dependent,
         "reference": {"values": ref.tolist(), "rtol": case.ref_rtol, "steps": rs["steps"],
                       "time": ref_time, "difference_at_rtol_x10": conv},
         "dynastep": [], "exudyn": [], "auto": []}
    for a in auto:
        if a.get("failed"):
            c["auto"].append(a)
        else:
            c["auto"].append({k: v for k, v in a.items() if k != "values"}
                             | {"values": a["values"].tolist(), "error": err(a["values"], ref)})
    for (engine, h, x), r in sorted(best.items(), key=lambda kv: (-kv[0][1], str(kv[0][2]))):
        if engine == "dynastep":
            s = r["summary"]
            steps = max(s["steps"], 1)
            ni = s["newton_iterations"]
            c["dynastep"].append({
                "h": h, "method": x, "time": r["time"], "values": r["values"].tolist(),
                "error": err(r["values"], ref), "steps": s["steps"],
                "iterations_per_step": ni["total"] / steps,
                "jacobians_per_step": ni["jacobians"] / steps,
                "factorizations_per_step": ni["factorizations"] / steps,
                # Output only at t_end: the energy error of that sample.
                "max_energy_error": s.get("max_energy_error")})
        elif r is None:
            c["exudyn"].append({"h": h, "tolerances": list(x), "failed": True})
        else:
            c["exudyn"].append({"h": h, "tolerances": list(x), "time": r["time"],
                                "values": r["values"].tolist(), "error": err(r["values"], ref),
                                **r["counts"]})
    if case.name == "bricard":
        # The energy error over every step (the run's diagnostics at every step), full Newton,
        # untimed: the issue asks for it.
        c["energy"] = []
        for h in dsteps:
            s = dynastep(binary, os.path.join(work, f"spatial-{case.name}-{h:g}-energy"), case,
                         ga_args(h, "full", every_step=True))
            with open(os.path.join(work, f"spatial-{case.name}-{h:g}-energy", "history.csv")) as f:
                e0 = float(next(csv.DictReader(f))["energy.total"])
            c["energy"].append({"h": h, "max_energy_error": s["max_energy_error"],
                                "energy0": e0})
            log(f"{case.name}: h = {h:g}, largest energy error over every step "
                f"{s['max_energy_error']:.3e} J")
    if case.check:
        chk = case.check()
        got = ref[chk["components"]]  # of the first marker
        c["independent"] = {"what": chk["what"], "value": chk["value"],
                            "components": chk["components"],
                            "difference": err(got, chk["value"])}
    # Exudyn's converged value: Richardson extrapolation (order 2) of its two finest steps with
    # the tight tolerances.
    tight = sorted((e for e in c["exudyn"] if not e.get("failed")
                    and tuple(e["tolerances"]) == tuple(harness.EXUDYN_TOLERANCES[0])),
                   key=lambda e: e["h"])
    if len(tight) >= 2:
        fine, coarse = tight[0], tight[1]
        q2 = (coarse["h"] / fine["h"]) ** 2
        extra = (q2 * np.asarray(fine["values"]) - np.asarray(coarse["values"])) / (q2 - 1)
        c["exudyn_extrapolated"] = {"h": [fine["h"], coarse["h"]], "values": extra.tolist(),
                                    "difference": err(extra, ref),
                                    "finest_error": fine["error"]}
    return c


def measure(binary, work, repeat, quick, have_exudyn, log=lambda s: print(s, file=sys.stderr)):
    """Every case: {"cases": [...], and the settings, machine, versions}, as written to RAW."""
    os.makedirs(work, exist_ok=True)
    repeat = max(1, min(repeat, MAX_REPEAT))
    out = {"date": datetime.date.today().isoformat(), "machine": harness.machine(),
           "quick": quick, "repeat": repeat, "long_run_s": LONG_RUN, "rho_inf": RHO_INF,
           "exudyn_tolerances": [list(t) for t in harness.EXUDYN_TOLERANCES],
           "reference_scheme": "/".join(REF_SCHEME),
           "dynastep": subprocess.run([binary, "--version"], capture_output=True,
                                      text=True).stdout.strip(),
           "exudyn": "not installed", "cases": []}
    if have_exudyn:
        import exudyn
        out["exudyn"] = exudyn.__version__
    for case in CASES:
        out["cases"].append(measure_one(binary, work, case, repeat, quick, have_exudyn, log))
    return out


# ---------------------------------------------------------------------------------- the page
def marker(ident, m, first=False):
    lines = [f"<!-- table: performance/{ident}", "command: python3 bench/run.py --spatial",
             "output: rewrites", "check: slow"]
    lines.append("time: minutes: four spatial examples in both programs at several steps, "
                 "references by dopri5 (needs Exudyn, numpy)" if first
                 else "time: with the first spatial table")
    lines.append(f"made: {m['date']}")
    if first:
        lines.append(f"note: times depend on the machine: {m['machine']}")
        if m.get("quick"):
            lines.append("note: a --quick run (one round, the coarse steps only)")
    return lines + ["-->"]


def fastest_as_accurate(c, d):
    """The fastest Exudyn run of case `c` whose error is at most that of dynastep's run `d`."""
    ok = [e for e in c["exudyn"] if not e.get("failed") and e["error"] <= d["error"]]
    return min(ok, key=lambda e: e["time"]) if ok else None


def sci(x):
    """A step or tolerance as 1e-3, 5e-5, 2.5e-4."""
    m, e = f"{x:.6e}".split("e")
    return f"{m.rstrip('0').rstrip('.')}e{int(e)}"


def tolerance_limited(c, d, e):
    """Whether the match of dynastep's run `d` with Exudyn's run `e` sits at the level of the
    Newton tolerances: Exudyn's error at e's step with the other tolerance setting, or dynastep's
    at d's step with the other Newton method, differs by more than TOLERANCE_LIMITED."""
    def apart(a, b):
        return max(a, b) > TOLERANCE_LIMITED * min(a, b)
    other_e = [x for x in c["exudyn"] if not x.get("failed") and x["h"] == e["h"]
               and x["tolerances"] != e["tolerances"]]
    other_d = [x for x in c["dynastep"] if x["h"] == d["h"] and x["method"] != d["method"]]
    return (any(apart(x["error"], e["error"]) for x in other_e)
            or any(apart(x["error"], d["error"]) for x in other_d))


def tol_label(t):
    return f"{sci(t[0])}/{sci(t[1])}"


def ratio_sentence(m):
    best = {}
    for c in m["cases"]:
        for d in c["dynastep"]:
            e = fastest_as_accurate(c, d)
            if e:
                best.setdefault(c["case"], []).append(e["time"] / d["time"])
    if not best:
        return "Exudyn did not run, or none of its runs was as accurate as a dynastep run."
    parts = [f"{k} {min(v):.2f}–{max(v):.2f}×" if len(v) > 1 else f"{k} {v[0]:.2f}×"
             for k, v in best.items()]
    return ("Exudyn time over dynastep time at equal accuracy (range over dynastep's runs): "
            + ", ".join(parts) + ". Above 1: dynastep faster.")


# A run is as accurate as a level when its error is at most this factor times the level.
LEVEL_SLACK = 1.05


def level_lines(m):
    """Each engine's fastest run at each accuracy level (the errors of dynastep's generalized-α
    runs with full Newton): dynastep's over its generalized-α runs and its auto runs (these by
    loop time, and counting the time lost to the switch), Exudyn's over all its runs."""
    rows, ratios = [], {}
    for c in m["cases"]:
        levels = sorted({d["error"] for d in c["dynastep"] if d["method"] == "full"},
                        reverse=True)
        for level in levels:
            ok = lambda r: not r.get("failed") and r["error"] <= LEVEL_SLACK * level  # noqa: E731
            ours = [(d["time"], d["time"], f"generalized-α h = {sci(d['h'])}, {d['method']}")
                    for d in c["dynastep"] if ok(d)]
            ours += [(a["time"], a["time"] + a["lost"], f"auto, R = {sci(a['rtol'])}: "
                      + a["chosen"].replace("generalized-alpha", "generalized-α")
                      .replace(" / ", " + ")) for a in c.get("auto", []) if ok(a)]
            theirs = [e for e in c["exudyn"] if ok(e)]
            if not ours:
                continue
            loop = min(ours, key=lambda o: o[0])
            counted = min(ours, key=lambda o: o[1])
            if theirs:
                e = min(theirs, key=lambda e: e["time"])
                ex = (f"h = {sci(e['h'])}, {tol_label(e['tolerances'])} | {e['time']:.4g} | "
                      f"{e['time'] / loop[0]:.1f} | {e['time'] / counted[1]:.1f}")
            else:
                ex = "none as accurate | — | — | —"
            rows.append(f"| {c['case']} | {level:.2e} | {loop[2]} | {loop[0]:.4g} | "
                        f"{counted[2]} | {counted[1]:.4g} | {ex} |")
            if theirs:
                ratios.setdefault(c["case"], []).append(
                    (e["time"] / loop[0], e["time"] / counted[1]))
    if not rows:
        return []
    parts = [f"{k} {min(r[0] for r in v):.1f}–{max(r[0] for r in v):.1f}× "
             f"({min(r[1] for r in v):.1f}–{max(r[1] for r in v):.1f}× counting the switch)"
             for k, v in ratios.items()]
    summary = ["", "At each level, Exudyn's fastest over dynastep's fastest: " + ", ".join(parts)
               + "."] if parts else []
    return ["", "Each engine's fastest run at each accuracy level (the errors of dynastep's "
            "generalized-α runs with full Newton; a run counts when its error is at most "
            f"{LEVEL_SLACK:g} times the level): dynastep's among its generalized-α runs and its "
            "auto runs, first by loop time, then counting the time the auto runs lost to the "
            "switch; Exudyn's among "
            "all its runs. Ratios: Exudyn's time over each.", ""] + marker("spatial-levels", m) + [
            "| case | level [m] | dynastep's fastest (loop) | [s] | fastest counting the switch "
            "| [s] | Exudyn's fastest | [s] | ratio | ratio with switch |",
            "|---|---|---|---|---|---|---|---|---|---|"] + rows + summary


def auto_lines(m):
    """The table of the `--scheme auto` runs against Exudyn at equal accuracy, and its summary."""
    rows, ratios = [], {}
    for c in m["cases"]:
        for a in c.get("auto", []):
            if a.get("failed"):
                rows.append(f"| {c['case']} | {sci(a['rtol'])} | failed: {a['failed'][:120]} "
                            "| | | | | | | |")
                continue
            e = fastest_as_accurate(c, a)
            pair = a["chosen"].replace("generalized-alpha", "generalized-α").replace(" / ", " + ")
            if a.get("switched_from"):
                pair += (f" (after {a['switched_from'].replace(' / ', ' + ')} stopped at "
                         f"{a['switched_at']:.3g} s)")
            if e:
                r1, r2 = e["time"] / a["time"], e["time"] / (a["time"] + a["lost"])
                ratios.setdefault(c["case"], []).append((r1, r2))
                ex = (f"h = {sci(e['h'])}, {tol_label(e['tolerances'])} | {e['time']:.4g} | "
                      f"{r1:.1f} | {r2:.1f}")
            else:
                ex = "none as accurate | — | — | —"
            rows.append(f"| {c['case']} | {sci(a['rtol'])} | {pair} | {a['time']:.4g} | "
                        f"{a['lost']:.3g} | {a['error']:.2e} | {ex} |")
    if not rows:
        return []
    lines = ["", "dynastep's own choice: `dynastep run --example CASE --scheme auto --rtol R`, the "
             "pair it takes when given a tolerance and no scheme (docs/schemes.md, \"The "
             "stiffness switch\"), against the same Exudyn runs. Time: the run's `loop_time_s` "
             "(both pairs when the switch went on from where the first was found stiff); "
             "switch: the time it lost, the first pair's loop time when the run was made again "
             "from the start after a failure (`stiffness_switch.switched.loop_time_s`; 0 without "
             "a switch or when it went on). Ratios: the fastest "
             "Exudyn run as accurate, over the loop time and over loop time + switch.", ""] + (
             marker("spatial-auto", m)) + [
             "| case | R | pair | dynastep [s] | switch [s] | error [m] | fastest Exudyn "
             "run as accurate | Exudyn [s] | ratio | ratio with switch |",
             "|---|---|---|---|---|---|---|---|---|---|"] + rows
    if ratios:
        parts = [f"{k} {min(r[0] for r in v):.1f}–{max(r[0] for r in v):.1f}× "
                 f"({min(r[1] for r in v):.1f}–{max(r[1] for r in v):.1f}× with the switch)"
                 for k, v in ratios.items()]
        lines += ["", "Exudyn time over the auto run's at equal accuracy, over the tolerances "
                  "where an Exudyn run was as accurate: " + ", ".join(parts) + "."]
    return lines


def section(m):
    """The page's section (Markdown lines) for the measurements `m` of `measure`."""
    tols = m["exudyn_tolerances"]
    lines = ["", HEADING, "",
             "The four spatial examples (rigid bodies in centroid coordinates and Euler "
             "parameters): `spatial-slider-crank` (revolute, spherical, universal and prismatic "
             "joints, 5 s), `bricard` (six revolute joints in a loop, one redundant constraint, "
             "10 s), `flyball-governor` (revolute and prismatic joints, two stiff spring-dampers "
             "k = 8e5 N/m, c = 4e4 N s/m, 10 s) and `spatial-top` (a spherical joint, steady "
             "precession, 10 s). Exudyn builds each from dynastep's parsed model and assembled "
             "initial state (bench/exudyn_spatial.py): `NodeRigidBodyEP` / `ObjectRigidBody` at "
             "the centroid, `ObjectJointRevoluteZ`, `ObjectJointPrismaticX`, "
             "`ObjectJointSpherical`, the universal joint as an `ObjectJointGeneric` with the "
             "rotation about the cross axes' normal constrained (t_x0 · t_y1 = 0, the cross "
             "axis of each body on its marker), `ObjectConnectorSpringDamper`, "
             "`LoadMassProportional`. "
             f"Both integrate with generalized-α, ρ∞ = {m['rho_inf']}, index 3, fixed steps, "
             "output only at t_end: dynastep with full and modified Newton (`loop_time_s`), "
             "Exudyn with its modified Newton, dense LU (Eigen's with `ignoreSingularJacobian` "
             "on Bricard, "
             "whose redundant constraint Exudyn's own LU refuses), at Newton tolerances "
             f"{tol_label(tols[0])} and {tol_label(tols[1])} (relative/absolute; its "
             "`SolveDynamic` call timed, as bench/run.py does). Error: the positions of the "
             "markers in the first column at t_end (the slider centre C; Bricard's joint points "
             "J1–J4, twelve coordinates; the governor's slider centre S; the top's centroid), "
             "largest component of the difference to the reference (the third table). "
             + (f"Minimum time over {m['repeat']} interleaved rounds (runs over "
                f"{m['long_run_s']:g} s in the first round run once). " if m["repeat"] > 1
                else "One round. ") +
             "Equal accuracy: beside each "
             "dynastep run, the fastest Exudyn run (any step, either tolerance) whose error is at "
             "most dynastep's, and Exudyn's time over dynastep's.", ""]
    lines += marker("spatial", m, True) + [
        "| case (markers, t_end) | h [s] | Newton | dynastep [s] | error [m] | iterations / "
        "Jacobians per step | fastest Exudyn run as accurate | Exudyn [s] | its error [m] | "
        "ratio |", "|---|---|---|---|---|---|---|---|---|---|"]
    for c in m["cases"]:
        name = f"{c['case']} ({', '.join(c['markers'])}, {c['t_end']:g} s)"
        for d in c["dynastep"]:
            e = fastest_as_accurate(c, d)
            mark = " †" if e and tolerance_limited(c, d, e) else ""
            ex = (f"h = {sci(e['h'])}, {tol_label(e['tolerances'])} | {e['time']:.4g} | "
                  f"{e['error']:.2e} | {e['time'] / d['time']:.2f}{mark}" if e
                  else "none of the runs | — | — | —")
            lines.append(f"| {name} | {sci(d['h'])} | {d['method']} | {d['time']:.4g} | "
                         f"{d['error']:.2e} | {d['iterations_per_step']:.2f} / "
                         f"{d['jacobians_per_step']:.2f} | {ex} |")
    lines += ["", ratio_sentence(m) + " † The errors at the matched steps are at the level of "
              "the Newton tolerances: Exudyn's error at that step with its other tolerance "
              "setting, or dynastep's with the other Newton method, differs by more than "
              f"{round(100 * (TOLERANCE_LIMITED - 1))} %. There the error no longer falls as h², "
              "which run counts as the more accurate is partly chance, and the match can move by "
              "a step; compare the runs at the same step in the next table."] + auto_lines(m)
    lines += level_lines(m) + [
              "", "Exudyn's runs: wall time of `SolveDynamic`, error, and its Newton iterations and "
              "Jacobians per step.", ""] + marker("spatial-exudyn", m) + [
        "| case | h [s] | tolerances | Exudyn [s] | error [m] | iterations / Jacobians per "
        "step |", "|---|---|---|---|---|---|"]
    for c in m["cases"]:
        for e in c["exudyn"]:
            if e.get("failed"):
                lines.append(f"| {c['case']} | {sci(e['h'])} | {tol_label(e['tolerances'])} | "
                             "failed | | |")
            else:
                lines.append(f"| {c['case']} | {sci(e['h'])} | {tol_label(e['tolerances'])} | "
                             f"{e['time']:.4g} | {e['error']:.2e} | "
                             f"{e['newton_per_step']:.2f} / {e['jacobians_per_step']:.2f} |")
    lines += ["", "References: dynastep with another scheme and formulation than the timed "
              "runs, Dormand–Prince 5(4) with coordinate projection (`--scheme dopri5 "
              "--formulation projection --rtol R`); its change when R is ten times larger; the "
              "largest difference to an independent solution where there is one; and to "
              "Exudyn's converged value, the Richardson extrapolation (order 2) of its two finest "
              f"steps at tolerances {tol_label(tols[0])}, and its finest run's own error. "
              "Differences in metres, largest component.", ""] + marker("spatial-references", m)
    lines += ["| case | R | steps | change at 10 R | independent solution | difference | "
              "Exudyn extrapolated from h = | difference | Exudyn's finest run |",
              "|---|---|---|---|---|---|---|---|---|"]
    for c in m["cases"]:
        r = c["reference"]
        conv = (f"{r['difference_at_rtol_x10']:.1e}" if r.get("difference_at_rtol_x10")
                is not None else "not run (--quick)")
        ind = c.get("independent")
        ind_cells = (f"{ind['what']} | {ind['difference']:.1e}" if ind else "none | —")
        ex = c.get("exudyn_extrapolated")
        ex_cells = (f"{sci(ex['h'][0])}, {sci(ex['h'][1])} | {ex['difference']:.1e} | "
                    f"{ex['finest_error']:.1e}" if ex else "— | — | —")
        lines.append(f"| {c['case']} | {sci(r['rtol'])} | {r['steps']} | {conv} | {ind_cells} | "
                     f"{ex_cells} |")
    agree = [f"{c['case']} {c['exudyn_extrapolated']['difference']:.0e} m" for c in m["cases"]
             if c.get("exudyn_extrapolated")]
    if agree:
        lines += ["", "The two engines' converged end points agree (dopri5 reference against "
                  "Exudyn's extrapolated value): " + ", ".join(agree) + "."]
    for c in m["cases"]:
        if c.get("energy"):
            at_end = {d["h"]: d["max_energy_error"] for d in c["dynastep"]
                      if d["method"] == "full"}
            parts = [f"{e['max_energy_error']:.2e} J at h = {sci(e['h'])} (at t_end alone: "
                     f"{at_end.get(e['h'], float('nan')):.2e} J)" for e in c["energy"]]
            e0 = c["energy"][0]["energy0"]
            lines += ["", f"Energy on {c['case']} (E₀ = {e0:.4g} J): dynastep's largest energy "
                      "error over every step (`max_energy_error` of summary.json with "
                      "`diagnostics = \"every-step\"`, full Newton, untimed runs), "
                      + "; ".join(parts) + "."]
    lines += ["", "Modelling differences between the two: the constraint equations are written "
              "differently (dynastep: Haug's dot-1 rows and ½(pᵀp − 1) = 0; Exudyn: its joint "
              "equations and its Euler-parameter constraint) but constrain the same motion, "
              "and both start from dynastep's assembled state; Bricard's redundant row is "
              "removed by dynastep's pinned minimum-norm solve and ignored by Exudyn's Eigen LU. "
              "No driver, actuator, force or torque element is in these four models "
              "(bench/exudyn_spatial.py refuses them rather than approximating).", ""]
    return lines


def run(binary, work, repeat, quick, have_exudyn, out, splice):
    """Measure, keep the raw numbers in RAW, splice the section into the page `out`."""
    if not have_exudyn:
        print("the spatial section needs Exudyn (pip install exudyn): not written",
              file=sys.stderr)
        return
    m = measure(binary, work, repeat, quick, have_exudyn,
                lambda s: print(s, file=sys.stderr, flush=True))
    with open(RAW, "w") as f:
        json.dump(m, f, indent=1)
    splice(out, HEADING, section(m))


def splice_saved(out, splice):
    """Puts the section of the saved measurements back into a rewritten page (bench/run.py's
    full run writes the page anew and does not rerun these cases)."""
    if os.path.exists(RAW):
        with open(RAW) as f:
            splice(out, HEADING, section(json.load(f)))
