"""dynastep, Exudyn, MuJoCo and Drake at equal accuracy: the cross-engine work-precision section of
docs/performance.md, written by `python3 bench/run.py --peers` (raw numbers in
bench/results_peers.json; with --out PAGE, in PAGE's name with _peers.json).

Cases: the harness's four planar models to their end times, the pendulum (10 s), Andrews' squeezer
(0.03 s), the double four-bar (10 s) and the N = 40 four-bar of bench/run.py's `nfourbar_toml`
(20 s; 2 s with --quick), each against bench/run.py's reference with its error measure (the end
point, largest component of the difference).

Each engine is swept over settings (the tables below: GA_STEPS, FAST, EXUDYN, MUJOCO, DRAKE):

- dynastep: generalized-α (ρ∞ = 0.9, index 3, fixed steps), the harness's pairing, and the fast
  explicit pairs (dopri5, abm or rk4 with projection, Baumgarte or the hybrid formulation, at
  tolerances or steps). Time: `loop_time_s` of summary.json. A run that stops is recorded as such.
- dynastep auto: `dynastep run --scheme auto` at the tolerances AUTO_RTOLS, the pair dynastep
  takes when given a tolerance and no scheme (docs/schemes.md, "The stiffness switch": Adams PECE
  with projection, going on with ESDIRK4(3)6L in stabilized index 2 when its steps are bounded
  by stability, made again from the start with it when it fails). Recorded: the pair it ended
  on, its end-point error, its time (`loop_time_s`: the run over the whole span, both pairs when
  it went on) and the time lost to the switch (the first pair's loop,
  `stiffness_switch.switched.loop_time_s`, when the run was made again from the start; 0
  without a switch or when it went on, since `loop_time_s` holds it then). The wall-clock of the whole `dynastep run` process is kept too (`process`), with the
  start-up and the output. Each round reruns it; the times are those of the rounds that ended on
  the first round's pair, and a round that ended on another is kept in `rounds`.
- Exudyn: its generalized-α as bench/run.py runs it (`run_exudyn_with`), at steps and Newton
  tolerances. Time: its `SolveDynamic` call.
- MuJoCo (bench/mujoco_peer.py): its integrators at steps and, on the models with loops, closure
  time constants tc (solref = (tc h, 1), solimp 0.9999, refsafe off) and MuJoCo's default
  softness, plus one run per model with loops at the constraint solver's tolerance 1e-12
  (TOLERANCE_CHECK). Time: its `mj_step` calls. Also the largest closure gap over the run [m] and
  whether MuJoCo reset a diverging state (such runs never count).
- Drake (bench/drake_peer.py; when `import pydrake` works, else the sweep runs without it): on the
  open chain (the pendulum) its continuous plant with the integrators of ResetIntegratorFromFlags,
  error-controlled at target accuracies and at fixed steps, and its discrete SAP plant at steps; on
  the models with loops (closed by ball constraints, which only the SAP plant takes) the SAP plant
  at steps. Time: its `Simulator.AdvanceTo` calls. Also the largest closure gap over the run [m].
  Each run has a wall-clock budget (DRAKE_BUDGET): a run whose time so far, extrapolated to the
  end, passes it stops and is recorded as over budget, and the finer settings of the same
  integrator on that case are then skipped.

Times are wall-clock, the minimum over `repeat` interleaved rounds for the runs that took less
than REPEAT_BELOW seconds (one round for longer runs). Accuracy levels: the errors of dynastep's
generalized-α at the case's three LEVEL_STEPS (ten times the harness's step, the harness's step,
a finer one). At each level the table names, for each engine, the fastest run whose error is at
most SAME_ERROR times the level, and gives the peer's time over dynastep's fastest run and over the
fastest auto run's time (its loop time plus the time lost to the switch).
"""
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time

import numpy as np

import run as harness

# A run reaches a level when its error is at most this times the level (as bench/run.py's
# EXUDYN_SAME_ERROR: Exudyn's generalized-α lands a few per cent off dynastep's at the same step).
SAME_ERROR = 1.05
# Runs shorter than this [s] are repeated; longer ones run once.
REPEAT_BELOW = 1.0
# dynastep's automatic choice (`--scheme auto`, the stiffness switch) at these tolerances, on
# every case (also with --quick): every second decade down to 1e-8, then half decades.
AUTO_RTOLS = (1e-4, 1e-6, 1e-8, 3e-9, 1e-9, 3e-10, 1e-10)
# The engine name of those runs in the records.
AUTO = "dynastep auto"
HEADING = "## Across engines: dynastep, Exudyn, MuJoCo and Drake at equal accuracy"
PAGE = os.path.join(harness.ROOT, "docs", "performance.md")


def raw_path(page):
    """Where the raw numbers of the section in `page` go: bench/results_peers.json for
    docs/performance.md, else beside the page (as bench/run.py does with results.json)."""
    if os.path.abspath(page) == PAGE:
        return os.path.join(harness.ROOT, "bench", "results_peers.json")
    return os.path.splitext(page)[0] + "_peers.json"


class PeerCase:
    """One model of the section: how to run it, its reference, its steps of the three levels."""

    def __init__(self, name, model_args, t_end, measure, reference, unit, level_steps):
        self.name, self.model_args, self.t_end = name, model_args, t_end
        self.measure, self.reference, self.unit = measure, reference, unit
        self.level_steps = level_steps
        # Drake's settings that went over budget: family (drake_peer.family) → that setting.
        self.over_budget = {}

    def at(self, h):
        """The harness's Case of this model at step h (for its dynastep and Exudyn runners)."""
        return harness.Case(f"{self.name}-{h:g}", self.model_args, h, self.t_end, self.measure,
                            self.reference, self.unit)


def cases(quick):
    t40 = 2.0 if quick else 20.0
    marker = ("point", "crank0", "B", "B0")
    return [
        PeerCase("pendulum", ["--example", "pendulum"], 10.0, ("point", "mass", None, "P1"),
                 harness.pendulum_reference, "m", (1e-2, 1e-3, 1e-4)),
        PeerCase("andrews", ["--example", "andrews"], 0.03, ("andrews",),
                 harness.andrews_reference, "rad", (1e-4, 1e-5, 1e-6)),
        PeerCase("double-fourbar", ["--example", "double-fourbar"], 10.0, marker,
                 lambda: harness.nfourbar_reference(2, 10.0), "m", (1e-2, 1e-3, 1e-4)),
        PeerCase("nfourbar40", ("nfourbar", 40), t40, marker,
                 lambda: harness.nfourbar_reference(40, t40), "m", (1e-2, 1e-3, 5e-4)),
    ]


# ------------------------------------------------------------------------------------ sweeps
# dynastep's generalized-α steps beyond the three levels.
GA_STEPS = {"nfourbar40": (4e-3, 2e-3, 2.5e-4)}
# dynastep's fast pairs: (scheme, formulation, fixed step or None, rtol or None); with --quick the
# first two.
FAST = {
    "pendulum": [("abm", "projection", None, 1e-8), ("dopri5", "projection", None, 1e-8),
                 ("abm", "projection", None, 1e-6), ("abm", "projection", None, 1e-10),
                 ("abm", "projection", None, 1e-12), ("dopri5", "projection", None, 1e-6),
                 ("dopri5", "projection", None, 1e-10), ("rk4", "projection", 1e-2, None)],
    "andrews": [("abm", "projection", None, 1e-6), ("abm", "direct", None, 1e-8),
                ("abm", "projection", None, 1e-8), ("abm", "direct", None, 1e-6),
                ("dopri5", "projection", None, 1e-6), ("dopri5", "projection", None, 1e-8)],
    "double-fourbar": [("dopri5", "baumgarte", None, 1e-8), ("abm", "hybrid", None, 1e-8),
                       ("dopri5", "baumgarte", None, 1e-6), ("dopri5", "projection", None, 1e-6),
                       ("dopri5", "projection", None, 1e-8), ("dopri5", "hybrid", None, 1e-8),
                       ("dopri5", "hybrid", None, 1e-10), ("abm", "hybrid", None, 1e-10),
                       ("rk4", "baumgarte", 1e-2, None), ("rk4", "baumgarte", 2e-3, None)],
    "nfourbar40": [("dopri5", "baumgarte", None, 1e-6), ("rk4", "baumgarte", 1e-2, None),
                   ("abm", "projection", None, 1e-8), ("abm", "projection", None, 3e-9)],
}
# Exudyn: (steps, Newton tolerance pairs); None: the case's level steps. Its defaults alone on the
# N = 40 chain (the first table finds them the faster there; a run at the finest level takes
# about 20 s).
EXUDYN = {"nfourbar40": (None, (harness.EXUDYN_TOLERANCES[1],))}
# MuJoCo: (integrator, steps, closure time constants in h; None = MuJoCo's default softness). The
# steps divide t_end and reach from where a run misses the loosest level to where it reaches the
# finest one or takes some seconds.
MUJOCO = {
    "pendulum": [("RK4", (0.1, 0.05, 0.02, 0.01, 1e-3), (None,)),
                 ("Euler", (1e-3, 1e-4, 1e-5), (None,)),
                 ("implicitfast", (1e-3, 1e-4, 1e-5), (None,)),
                 ("discrete", (1e-3, 1e-4, 1e-5), (None,))],
    "andrews": [("RK4", (1e-4, 8e-5, 6e-5, 4e-5, 2e-5, 1e-5, 5e-6, 2e-6), (0.5, 1, 2, 4)),
                ("RK4", (1e-5,), (None,)),
                ("implicitfast", (1e-5, 1e-6, 1e-7), (2, 4)),
                ("implicitfast", (1e-6,), (None, 1)),
                ("Euler", (1e-5, 1e-6), (2,)),
                ("implicit", (1e-6,), (2,)),
                ("discrete", (1e-5, 1e-6), (0.5, 1, 2))],
    "double-fourbar": [("RK4", (5e-3, 4e-3, 2.5e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1e-4),
                        (0.5, 1, 2, 4)),
                       ("RK4", (1e-3,), (None,)),
                       ("implicitfast", (2e-3, 1e-3, 1e-4, 1e-5), (2, 4)),
                       ("implicitfast", (1e-4,), (None, 1)),
                       ("Euler", (2e-3, 1e-3, 1e-4), (2,)),
                       ("implicit", (1e-3, 1e-4), (2,)),
                       ("discrete", (5e-3, 4e-3, 2e-3, 1e-3, 1e-4, 1e-5), (0.5, 1))],
    "nfourbar40": [("RK4", (4e-3, 2e-3, 1e-3, 5e-4), (0.5, 1, 2)),
                   ("implicitfast", (4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1e-4), (2,)),
                   ("implicitfast", (1e-3,), (None,)),
                   ("Euler", (1e-3,), (2,)),
                   ("discrete", (8e-3, 4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1e-4), (0.5,))],
}
MUJOCO_QUICK = {
    "pendulum": [("RK4", (0.05, 0.01), (None,)), ("implicitfast", (1e-3, 1e-4), (None,))],
    "andrews": [("RK4", (6e-5, 5e-6), (1, 2)), ("RK4", (1e-5,), (None,)),
                ("implicitfast", (1e-6,), (2,))],
    "double-fourbar": [("RK4", (2e-3, 5e-4), (0.5, 1)), ("RK4", (1e-3,), (None,)),
                       ("discrete", (4e-3,), (0.5,))],
    "nfourbar40": [("RK4", (2e-3, 1e-3), (0.5, 1)), ("implicitfast", (1e-3,), (2,)),
                   ("discrete", (1e-3,), (0.5,))],
}
# The solver check: this MuJoCo run again with the constraint solver's tolerance at 1e-12
# (MuJoCo's default 1e-8); (integrator, step, tc) per case with loops.
TOLERANCE_CHECK = {"andrews": ("RK4", 1e-5, 2), "double-fourbar": ("RK4", 1e-3, 1),
                   "nfourbar40": ("RK4", 2e-3, 1)}
# Drake: (integrator, "h" or "accuracy", values), coarse to fine (drake_peer.setting; SAP: the
# discrete SAP plant at steps h, the only one that takes the loops' constraints). The values reach
# from where a run misses the loosest level to the finest level, or to past where SAP's error
# stops falling on the loops (below h = 5e-4 … 1e-6 here; the findings say where), within the
# budget.
DRAKE = {
    "pendulum": [("runge_kutta3", "accuracy", (1e-2, 1e-3, 1e-4, 1e-6, 1e-8)),
                 ("runge_kutta5", "accuracy", (1e-4, 1e-6, 1e-8, 1e-10, 1e-12)),
                 ("bogacki_shampine3", "accuracy", (1e-4, 1e-6, 1e-8)),
                 ("radau3", "accuracy", (1e-2, 1e-4, 1e-6)),
                 ("implicit_euler", "accuracy", (1e-2, 1e-4)),
                 ("runge_kutta5", "h", (0.2, 0.125, 0.1, 0.08, 0.0625, 0.05, 0.04, 0.025, 0.02,
                                        0.01)),
                 ("runge_kutta3", "h", (0.1, 0.05, 0.02, 0.01, 0.005)),
                 ("runge_kutta2", "h", (1e-2, 1e-3)),
                 ("SAP", "h", (1e-2, 1e-3, 1e-4))],
    "andrews": [("SAP", "h", (1e-4, 5e-5, 3e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6, 5e-7))],
    "double-fourbar": [("SAP", "h", (1e-2, 5e-3, 4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 2e-4, 1e-4,
                                     5e-5))],
    "nfourbar40": [("SAP", "h", (1e-2, 8e-3, 5e-3, 4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4))],
}
DRAKE_QUICK = {
    "pendulum": [("runge_kutta3", "accuracy", (1e-4, 1e-6)), ("runge_kutta5", "h", (0.1, 0.05))],
    "andrews": [("SAP", "h", (2e-5, 1e-5))],
    "double-fourbar": [("SAP", "h", (1e-2, 1e-3))],
    "nfourbar40": [("SAP", "h", (1e-2, 1e-3))],
}
# The wall-clock budget of one Drake run [s] (with --quick, the second).
DRAKE_BUDGET = (60.0, 10.0)


def dynastep_jobs(case, quick):
    steps = sorted(set(case.level_steps) | set(() if quick else GA_STEPS.get(case.name, ())),
                   reverse=True)
    jobs = [{"scheme": "generalized-alpha", "formulation": None, "dt": h, "rtol": None}
            for h in steps]
    fast = FAST[case.name][:2] if quick else FAST[case.name]
    jobs += [{"scheme": s, "formulation": f, "dt": h, "rtol": r} for s, f, h, r in fast]
    return [("dynastep", j) for j in jobs]


def auto_jobs(case, quick):
    return [(AUTO, {"scheme": "auto", "rtol": r}) for r in AUTO_RTOLS]


def exudyn_jobs(case, quick):
    steps, tols = EXUDYN.get(case.name, (None, harness.EXUDYN_TOLERANCES))
    steps = case.level_steps if steps is None else steps
    return [("Exudyn", {"h": h, "tolerances": list(t)}) for h in steps for t in tols]


def mujoco_jobs(case, quick):
    from mujoco_peer import setting
    spec = (MUJOCO_QUICK if quick else MUJOCO)[case.name]
    jobs = [setting(i, h, tc) for i, steps, tcs in spec for h in steps for tc in tcs]
    if case.name in TOLERANCE_CHECK and not quick:
        i, h, tc = TOLERANCE_CHECK[case.name]
        jobs.append(setting(i, h, tc, tolerance=1e-12))
    return [("MuJoCo", j) for j in jobs]


def drake_jobs(case, quick):
    from drake_peer import setting
    spec = (DRAKE_QUICK if quick else DRAKE)[case.name]
    budget = DRAKE_BUDGET[quick]
    return [("Drake", setting(i, **{key: v}) | {"budget": budget})
            for i, key, values in spec for v in values]


def interleave(*lists):
    out = []
    for k in range(max(len(x) for x in lists)):
        out += [x[k] for x in lists if k < len(x)]
    return out


# -------------------------------------------------------------------------------------- runs
def label(engine, s, closures=True):
    if engine == "dynastep":
        name = ("generalized-α" if s["scheme"] == "generalized-alpha"
                else f"{s['scheme']} + {s['formulation']}")
        return name + (f", h = {s['dt']:g}" if s["dt"] else f", rtol = {s['rtol']:g}")
    if engine == AUTO:
        return f"rtol = {s['rtol']:g}"
    if engine == "Exudyn":
        return f"generalized-α, h = {s['h']:g}, Newton tol. {s['tolerances'][0]:g}"
    if engine == "Drake":
        from drake_peer import label as dk_label
        return dk_label(s)
    from mujoco_peer import label as mj_label
    return mj_label(s, closures)


def run_dynastep(binary, case, s, out_dir):
    """One dynastep run: {"time", "result", "steps"} or {"failed": reason}."""
    c = case.at(s["dt"] or case.level_steps[1])
    args = ["--scheme", s["scheme"]]
    if s["scheme"] == "generalized-alpha":
        args += ["--param", f"rho_inf={harness.RHO_INF}"]
    if s["formulation"]:
        args += ["--formulation", s["formulation"]]
    args += ["--dt", repr(s["dt"])] if s["dt"] else ["--rtol", repr(s["rtol"])]
    cmd = [binary, "run", *harness.model_args(c), *args, "--t-end", repr(case.t_end),
           "--output-interval", repr(case.t_end), "-q", "--out", out_dir]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    path = os.path.join(out_dir, "summary.json")
    if p.returncode or not os.path.exists(path):
        return {"failed": (p.stderr.strip().splitlines() or ["exit status %d" % p.returncode])[0]}
    with open(path) as f:
        summary = json.load(f)
    if summary["status"] != "completed":
        return {"failed": f"{summary['status']}: {summary.get('reason')}"}
    return {"time": summary["loop_time_s"], "result": harness.dynastep_result(c, summary),
            "steps": summary["steps"]}


def pair_name(chosen):
    """dynastep's 'abm / projection' as this page writes a pair: 'abm + projection'."""
    return chosen.replace("generalized-alpha", "generalized-α").replace(" / ", " + ")


def auto_model(case, c, rtol, work):
    """The model arguments of an auto run. The generated N-four-bar file has no step and no
    tolerance in its [solver]; a copy with the same rtol in [solver.step] is run (the command
    line's --rtol sets the run's tolerance either way; `--scheme trial` builds its trial from the
    file without it and needs the copy)."""
    args = harness.model_args(c)
    if not isinstance(case.model_args, tuple):
        return args
    with open(args[0]) as f:
        text = f.read()
    if "[solver.step]" in text or re.search(r"^dt\s*=", text, re.M):
        return args
    path = os.path.join(work, "auto-model.toml")
    with open(path, "w") as f:
        f.write(text + f"\n[solver.step]\nrtol = {rtol!r}\n")
    return [path]


def finite(x):
    return isinstance(x, (int, float)) and np.isfinite(x)



def lost_to(switched):
    """The loop time a stiffness switch lost: the first pair's, when the run was made again from
    the start; 0 without a switch or when the run went on from where the first pair stopped
    (its `loop_time_s` counts both pairs then)."""
    if not switched or switched.get("went_on"):
        return 0.0
    return switched["loop_time_s"]

def run_auto(binary, case, s, work):
    """One `--scheme auto` run: {"time" (the run's loop time), "result",
    "steps", "chosen", "lost" (the time lost to the switch, `lost_to`), "switched" (when and
    why), "process" (wall-clock of the whole process)} or {"failed": reason, ...}."""
    c = case.at(case.level_steps[1])
    out_dir = os.path.join(work, "auto")
    path = os.path.join(out_dir, "summary.json")
    if os.path.exists(path):
        os.remove(path)
    cmd = [binary, "run", *auto_model(case, c, s["rtol"], work), "--scheme", "auto",
           "--rtol", repr(s["rtol"]), "--t-end", repr(case.t_end),
           "--output-interval", repr(case.t_end), "-q", "--out", out_dir]
    start = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    process = time.perf_counter() - start
    if p.returncode or not os.path.exists(path):
        return {"failed": (p.stderr.strip().splitlines() or ["exit status %d" % p.returncode])[0]}
    with open(path) as f:
        summary = json.load(f)
    sw = summary.get("stiffness_switch")
    if not sw:
        return {"failed": "no stiffness_switch in summary.json (a binary without the switch?)"}
    switched = sw.get("switched")
    got = {"chosen": sw["chosen"], "lost": lost_to(switched), "process": process}
    if switched:
        got["switched"] = {k: switched[k] for k in ("from", "stopped_at")} | {
            "reason": switched["reason"][:200]}
    if summary["status"] != "completed":
        return got | {"failed": f"{summary['status']}: {summary.get('reason')}"}
    return got | {"time": summary["loop_time_s"], "result": harness.dynastep_result(c, summary),
                  "steps": summary["steps"]}


def run_exudyn(case, s, model_dir):
    out = harness.run_exudyn_with(case.at(s["h"]), model_dir, tuple(s["tolerances"]))
    if out is None:
        return {"failed": "SolveDynamic failed"}
    return {"time": out[0], "result": out[1], "steps": int(round(case.t_end / s["h"]))}


def run_mujoco(case, s, model_dir):
    from mujoco_peer import Peer
    peer = Peer(model_dir, s)
    r = peer.run(case.t_end)
    if case.measure[0] == "andrews":
        r["result"] = harness.andrews_angles(peer.angles())
    else:
        r["result"] = peer.point(case.measure[1], case.measure[2])
    return r


def run_drake(case, s, model_dir):
    """One Drake run (bench/drake_peer.py): as run_mujoco's, or {"failed", "over_budget"} for a run
    stopped by its budget, and the finer settings of its family after one are skipped."""
    from drake_peer import OverBudget, Peer, family, fineness, label as dk_label
    over = case.over_budget.get(family(s))
    if over is not None and fineness(s) > fineness(over):
        return {"failed": f"skipped: {dk_label(over)} went over budget", "skipped": True}
    peer = Peer(model_dir, s)
    try:
        r = peer.run(case.t_end, s["budget"])
    except OverBudget as ex:
        if over is None or fineness(s) < fineness(over):
            case.over_budget[family(s)] = s
        return {"failed": str(ex), "over_budget": True}
    if case.measure[0] == "andrews":
        r["result"] = harness.andrews_angles(peer.angles())
    else:
        r["result"] = peer.point(case.measure[1], case.measure[2])
    return r


def run_job(binary, work, case, job, model_dir):
    engine, s = job
    try:
        if engine == "dynastep":
            return run_dynastep(binary, case, s, os.path.join(work, "run"))
        if engine == AUTO:
            return run_auto(binary, case, s, work)
        if engine == "Exudyn":
            return run_exudyn(case, s, model_dir)
        if engine == "Drake":
            return run_drake(case, s, model_dir)
        return run_mujoco(case, s, model_dir)
    except Exception as ex:  # a peer that refuses a setting: recorded, the sweep goes on
        text = str(ex).strip().splitlines()
        return {"failed": f"{type(ex).__name__}: {text[0] if text else ''}"}


def model_dir(binary, work, case):
    """A dynastep run folder of the case (parsed model, assembled initial state) for the peers."""
    out = os.path.join(work, "model")
    got = run_dynastep(binary, case, {"scheme": "generalized-alpha", "formulation": None,
                                      "dt": case.level_steps[1], "rtol": None}, out)
    if "failed" in got:
        raise RuntimeError(f"{case.name}: dynastep {got['failed']}")
    return out


def record(engine, s, got, ref, closures):
    """The JSON record of a job's first run."""
    r = {"engine": engine, "setting": s, "label": label(engine, s, closures)}
    if "chosen" in got:
        r["label"] += f": {pair_name(got['chosen'])}"
    if "failed" in got:
        return r | {k: v for k, v in got.items() if k != "result"} | {"ok": False}
    r |= {k: v for k, v in got.items() if k != "result"}
    r["ok"] = got.get("ok", True)
    r["error"] = end_error(got, ref)
    r["times"] = [got["time"]]
    if "cpu" in got:
        r["cpus"] = [got["cpu"]]
    if engine == AUTO:
        r["losts"], r["processes"] = [got["lost"]], [got["process"]]
        r["rounds"] = [auto_round(got, ref)]
    return r


def end_error(got, ref):
    return float(np.max(np.abs(np.asarray(got["result"]) - ref)))


def auto_round(got, ref):
    """One round of an auto run as `rounds` keeps it."""
    if "failed" in got:
        return {"chosen": got.get("chosen"), "failed": got["failed"]}
    return {"chosen": got["chosen"], "error": end_error(got, ref), "time": got["time"],
            "lost": got["lost"], "process": got["process"]}


def sweep_case(binary, work, case, repeat, quick, have, log):
    """Every job of the case, `repeat` interleaved rounds for the short ones: (the records,
    whether the model has closures in MuJoCo, the wall-clock spent on each engine [s]).
    `have`: whether Exudyn and Drake run ({"exudyn": bool, "drake": bool})."""
    from mujoco_peer import Planar
    work = os.path.join(work, case.name)
    os.makedirs(work, exist_ok=True)
    mdir = model_dir(binary, work, case)
    ref, closures = case.reference(), bool(Planar(mdir).cuts)
    jobs = interleave(dynastep_jobs(case, quick),
                      exudyn_jobs(case, quick) if have["exudyn"] else [], mujoco_jobs(case, quick),
                      drake_jobs(case, quick) if have["drake"] else [], auto_jobs(case, quick))
    records = [None] * len(jobs)
    spent = {}  # wall-clock of each engine's jobs, building and checking included [s]
    for _ in range(repeat):
        for k, job in enumerate(jobs):
            r = records[k]
            if r is not None and not (r["ok"] and min(r["times"]) < REPEAT_BELOW):
                continue
            start = time.perf_counter()
            got = run_job(binary, work, case, job, mdir)
            spent[job[0]] = spent.get(job[0], 0.0) + time.perf_counter() - start
            if r is None:
                records[k] = record(job[0], job[1], got, ref, closures)
                log(f"{case.name}: {job[0]} {progress(records[k])}")
            else:
                again(r, got, ref)
    for r in records:
        r |= {"time": min(r["times"])} if "times" in r else {}
        r |= {"cpu": min(r["cpus"])} if "cpus" in r else {}
        r |= {"lost": min(r["losts"])} if "losts" in r else {}
        r |= {"process": min(r["processes"])} if "processes" in r else {}
    return records, closures, spent


def again(r, got, ref):
    """Adds a repeated run's times to its record; an auto run's only when the round chose the
    first round's pair (every round is kept in `rounds`)."""
    if r["engine"] == AUTO:
        r["rounds"].append(auto_round(got, ref))
        if "time" in got and got["chosen"] == r["chosen"]:
            r["times"].append(got["time"])
            r["losts"].append(got["lost"])
            r["processes"].append(got["process"])
        return
    if "time" in got:
        r["times"].append(got["time"])
        if "cpu" in got:
            r["cpus"].append(got["cpu"])


def progress(r):
    if "failed" in r:
        return f"{r['label']}: failed: {r['failed']}"
    return (f"{r['label']}: {r['times'][0]:.4g} s, error {r['error']:.3e}"
            + (f", lost to the switch {r['losts'][0]:.4g} s, process {r['processes'][0]:.4g} s"
               if "losts" in r else "")
            + ("" if r["ok"] else " (reset)"))


def drake_version():
    """pydrake's version (the `drake` package's), or None when it is not importable."""
    from importlib import import_module
    from importlib.metadata import PackageNotFoundError, version
    try:
        import_module("pydrake")
    except ImportError:
        return None
    try:
        return version("drake")
    except PackageNotFoundError:
        return "unknown version"


def drake_samples():
    from drake_peer import SAMPLES
    return SAMPLES


def measure(binary, work, repeat, quick, have_exudyn, log):
    """The whole sweep: {"date", "machine", "versions", "settings", "cases": [...], "elapsed_s"}."""
    import mujoco
    start = time.perf_counter()
    drake = drake_version()
    out = {"date": datetime.date.today().isoformat(), "machine": harness.machine(),
           "quick": quick, "repeat": repeat,
           "versions": {"mujoco": mujoco.__version__, "python": platform.python_version(),
                        "exudyn": __import__("exudyn").__version__ if have_exudyn else None,
                        "drake": drake,
                        "dynastep": subprocess.run([binary, "--version"], capture_output=True,
                                                   text=True).stdout.strip()},
           "settings": {"same_error": SAME_ERROR, "repeat_below_s": REPEAT_BELOW,
                        "rho_inf": harness.RHO_INF, "auto_rtols": list(AUTO_RTOLS),
                        "drake_budget_s": DRAKE_BUDGET[quick] if drake else None,
                        "drake_samples": drake_samples() if drake else None},
           "cases": []}
    have = {"exudyn": have_exudyn, "drake": drake is not None}
    for case in cases(quick):
        runs, closures, spent = sweep_case(binary, os.path.join(work, "peers"), case, repeat,
                                           quick, have, log)
        out["cases"].append({"case": case.name, "t_end": case.t_end, "unit": case.unit,
                             "level_steps": list(case.level_steps), "closures": closures,
                             "runs": runs, "engine_s": spent})
    out["elapsed_s"] = time.perf_counter() - start
    return out


# ------------------------------------------------------------------------------------ tables
PEERS = ("Exudyn", "MuJoCo", "Drake")
ENGINES = ("dynastep",) + PEERS


def levels(c):
    """[(generalized-α run, its error)] of dynastep at the case's level steps (those that ran)."""
    out = []
    for h in c["level_steps"]:
        r = next((r for r in c["runs"] if r["engine"] == "dynastep" and r["ok"]
                  and r["setting"]["scheme"] == "generalized-alpha" and r["setting"]["dt"] == h),
                 None)
        if r:
            out.append((r, r["error"]))
    return out


def fastest(runs, engine, level):
    """The fastest finished run of `engine` whose error is at most SAME_ERROR × level."""
    ok = [r for r in runs if r["engine"] == engine and r["ok"]
          and r["error"] <= SAME_ERROR * level]
    return min(ok, key=lambda r: r["time"]) if ok else None


def most_accurate(runs, engine=None, integrator=None, default_softness=None):
    """The finished run with the smallest error among those selected, or None."""
    sel = [r for r in runs if r["ok"] and (engine is None or r["engine"] == engine)
           and (integrator is None or r["setting"].get("integrator") == integrator)
           and (default_softness is None
                or (r["setting"].get("tc") is None) == default_softness)]
    return min(sel, key=lambda r: r["error"]) if sel else None


def fmt_time(t):
    return f"{t:.3g}" if t >= 1e-3 else f"{t:.2e}"


def ratio(peer, base):
    return f"{peer['time'] / base['time']:.3g}×" if peer and base else "—"


def auto_cells(c, level):
    """(run, "loop time (lost to the switch)") cells of dynastep's fastest auto run at a level."""
    runs = c["runs"]
    if not any(r["engine"] == AUTO for r in runs):
        return ["not run", "—"]
    a = fastest(runs, AUTO, level)
    if a is None:
        best = most_accurate(runs, AUTO)
        return ["not reached" + (f" (best {best['error']:.2e}: {best['label']})" if best
                                 else " (every run failed)"), "—"]
    return [a["label"], fmt_time(a["time"])
            + (f" ({fmt_time(a['lost'])})" if a["lost"] else " (no switch)")]


def peer_cells(c, engine, level, base):
    """(run, time, ratio over dynastep's fastest run `base`, ratio over the fastest auto run
    [, gap]) cells of a peer at a level."""
    runs = c["runs"]
    auto = fastest(runs, AUTO, level)
    if auto is not None:  # counted with the time lost to the switch
        auto = auto | {"time": auto["time"] + auto.get("lost", 0.0)}
    if not any(r["engine"] == engine for r in runs):
        cells = ["not run", "—", "—", "—"]
    else:
        r = fastest(runs, engine, level)
        if r is None:
            best = most_accurate(runs, engine)
            cells = ["not reached" + (f" (best {best['error']:.2e}: {best['label']})" if best
                                      else " (every run failed)"), "—", "—", "—"]
        else:
            cells = [r["label"], fmt_time(r["time"]), ratio(r, base), ratio(r, auto)]
    if engine in ("MuJoCo", "Drake"):
        r = fastest(runs, engine, level)
        cells.append(("—" if not c["closures"] else f"{r['gap']:.1e}") if r else "—")
    return cells


def work_precision_rows(m):
    rows = []
    for c in m["cases"]:
        for ga, level in levels(c):
            d = fastest(c["runs"], "dynastep", level)
            rows.append(f"| {c['case']} | {level:.2e} {c['unit']} (h = {ga['setting']['dt']:g}) "
                        f"| {fmt_time(ga['time'])} | {d['label']} | {fmt_time(d['time'])} | "
                        + " | ".join(auto_cells(c, level) + peer_cells(c, "Exudyn", level, d)
                                     + peer_cells(c, "MuJoCo", level, d)
                                     + peer_cells(c, "Drake", level, d)) + " |")
    return rows


def mujoco_rows(m):
    rows = []
    for c in m["cases"]:
        mj = [r for r in c["runs"] if r["engine"] == "MuJoCo"]
        for integ in dict.fromkeys(r["setting"]["integrator"] for r in mj):
            runs = [r for r in mj if r["setting"]["integrator"] == integ]
            reset = sum(1 for r in runs if not r["ok"])
            best = most_accurate(runs, default_softness=False if c["closures"] else None)
            dflt = most_accurate(runs, default_softness=True) if c["closures"] else None
            cells = ([best["label"], f"{best['error']:.2e}", fmt_time(best["time"]),
                      f"{best['gap']:.1e}" if c["closures"] else "—"] if best
                     else ["every run reset", "—", "—", "—"])
            d = (f"{dflt['error']:.2e} {c['unit']}, gap {dflt['gap']:.1e} m" if dflt
                 else ("not run" if c["closures"] else "no closures"))
            rows.append(f"| {c['case']} | {integ} | {len(runs)} | {reset} | "
                        + " | ".join(cells) + f" | {d} |")
    return rows


# ------------------------------------------------------------------------------------- text
def slower(m, generalized_alpha):
    """Phrases for each level where a peer's fastest run beats dynastep's fastest run, or, with
    `generalized_alpha`, dynastep's generalized-α run of the level."""
    out = []
    for c in m["cases"]:
        for ga, level in levels(c):
            d = ga if generalized_alpha else fastest(c["runs"], "dynastep", level)
            for engine in PEERS:
                r = fastest(c["runs"], engine, level)
                if r and r["time"] < d["time"]:
                    out.append(f"{c['case']} at {level:.2e} {c['unit']}: {engine} {r['label']} "
                               f"in {fmt_time(r['time'])} s against dynastep's {d['label']} in "
                               f"{fmt_time(d['time'])} s ({ratio(r, d)})")
    return out


def auto_slower(m, with_lost):
    """Phrases for each level where a peer's fastest run beats the table's auto run: its loop
    time, or, `with_lost`, its loop time and the time lost to the switch."""
    out = []
    for c in m["cases"]:
        for _, level in levels(c):
            a = fastest(c["runs"], AUTO, level)
            if a is None:
                continue
            t = a["time"] + (a["lost"] if with_lost else 0.0)
            for engine in PEERS:
                r = fastest(c["runs"], engine, level)
                if r and r["time"] < t:
                    out.append(f"{c['case']} at {level:.2e} {c['unit']}: {engine} {r['label']} "
                               f"in {fmt_time(r['time'])} s against {a['label']} in "
                               + (f"{fmt_time(a['time'])} + {fmt_time(a['lost'])} s"
                                  if with_lost else f"{fmt_time(a['time'])} s")
                               + f" ({r['time'] / t:.3g}×)")
    return out


def auto_choices(m):
    """Per case, each auto run: 'rtol: pair, error, loop time + time lost to the switch'; and the
    runs whose rounds did not all end on the same pair."""
    out, changed = [], []
    for c in m["cases"]:
        runs = [r for r in c["runs"] if r["engine"] == AUTO]
        if not runs:
            continue
        cells = []
        for r in runs:
            if "failed" in r:
                cells.append(f"{r['label']} failed")
                continue
            cells.append(f"{r['label']} ({r['error']:.2e} {c['unit']}, "
                         f"{fmt_time(r['time'])} + {fmt_time(r['lost'])} s"
                         + (f"; switched at t = {r['switched']['stopped_at']:.3g} s"
                            if r.get("switched") else "") + ")")
            picks = [x["chosen"] for x in r.get("rounds", []) if x.get("chosen")]
            if len(set(picks)) > 1:
                counts = {p: picks.count(p) for p in dict.fromkeys(picks)}
                changed.append(f"{c['case']} at rtol = {r['setting']['rtol']:g}: "
                               + ", ".join(f"{pair_name(p)} {n}×" for p, n in counts.items()))
        out.append(f"{c['case']}: " + ", ".join(cells))
    return out, changed


def auto_overhead(m):
    """Per case, the range over its auto runs of the process's wall-clock less the loop [s]."""
    out = []
    for c in m["cases"]:
        d = [r["process"] - r["time"] for r in c["runs"]
             if r["engine"] == AUTO and "failed" not in r and "process" in r]
        if d:
            out.append(f"{c['case']} {fmt_time(min(d))}" + (f"–{fmt_time(max(d))}" if len(d) > 1
                                                           else "") + " s")
    return out


def unreached(m):
    out = []
    for c in m["cases"]:
        for _, level in levels(c):
            for engine in PEERS + (AUTO,):
                if (any(r["engine"] == engine for r in c["runs"])
                        and not fastest(c["runs"], engine, level)):
                    out.append(f"{engine} on {c['case']} at {level:.2e} {c['unit']}")
    return out


def reset_settings(m):
    return [r["setting"] for c in m["cases"] for r in c["runs"]
            if r["engine"] == "MuJoCo" and not r["ok"] and "failed" not in r]


def table_entries(m, closures):
    """The MuJoCo runs the first table names, on the cases with (or without) closures."""
    out = []
    for c in m["cases"]:
        if c["closures"] == closures:
            out += [r for _, level in levels(c)
                    if (r := fastest(c["runs"], "MuJoCo", level)) is not None]
    return out


def resets(m):
    """'integrator at tc = …' groups of the MuJoCo runs that MuJoCo reset."""
    groups = {}
    for c in m["cases"]:
        for r in c["runs"]:
            if r["engine"] == "MuJoCo" and not r["ok"] and "failed" not in r:
                s = r["setting"]
                tc = "default softness" if s["tc"] is None else f"{s['tc']:g} h"
                groups.setdefault(s["integrator"], {}).setdefault(tc, set()).add(c["case"])
    return [f"{i} with tc = " + "; ".join(f"{tc} ({', '.join(sorted(cs))})"
                                           for tc, cs in tcs.items())
            for i, tcs in groups.items()]


def short_reason(text):
    """'stopped at t = … s: cause' from dynastep's message (the cause up to its advice)."""
    t = re.search(r"stopped at t = ([0-9.e+-]+) s", text)
    cause = text.split(";")[0].rsplit(": ", 1)[-1]
    return (f"stopped at t = {float(t.group(1)):.4g} s: " if t else "failed: ") + cause


def auto_reason(text):
    """A failed auto run's message, shortened: its first clause, and where each named run of it
    stopped ('failed: no automatic reference could be computed (msstc5 stopped at t = … s, …)');
    a chosen pair that stopped in the whole run as short_reason says it."""
    if not text.startswith("error: ") and "stopped at" in text:
        return short_reason(text)
    head = text.removeprefix("error: ").split(" (")[0].split(": ")[0]
    stops = re.findall(r"([\w/ .-]+?): (?:failed )?stopped at t = ([0-9.e+-]+) s", text)
    if stops:
        head += " (" + ", ".join(f"{n.strip()} stopped at t = {float(t):.4g} s"
                                 for n, t in stops) + ")"
    return "failed: " + head


def dynastep_trouble(m):
    out = []
    for c in m["cases"]:
        for r in c["runs"]:
            if r["engine"] not in ("dynastep", AUTO):
                continue
            name = ("auto, " if r["engine"] == AUTO else "") + r["label"]
            if "failed" in r:
                out.append(f"{c['case']}: {name} " + (short_reason(r["failed"])
                           if r["engine"] == "dynastep" else auto_reason(r["failed"])))
            elif c["unit"] == "m" and r["error"] > 0.1:
                out.append(f"{c['case']}: {name} ended {r['error']:.2f} m off the reference")
    return out


def tolerance_check(m):
    """(largest relative change of the error with tolerance 1e-12, most solver iterations of a
    sampled step over the MuJoCo runs with closures) or None."""
    change, iters = None, 0
    for c in m["cases"]:
        mj = [r for r in c["runs"] if r["engine"] == "MuJoCo" and r["ok"]]
        if c["closures"]:
            iters = max([iters] + [r.get("solver_iterations", 0) for r in mj])
        for r in mj:
            if r["setting"]["tolerance"] == 1e-8:
                continue
            base = next((b for b in mj if b["setting"] == r["setting"] | {"tolerance": 1e-8}), None)
            if base:
                rel = abs(r["error"] / base["error"] - 1)
                change = rel if change is None else max(change, rel)
    return change, iters


def findings(m):
    lines = ["- The fastest run of each engine at each level, fastest first (dynastep auto by its "
             "loop time): " + "; ".join(standings(m)) + "."]
    s = slower(m, generalized_alpha=False)
    lines.append("- Where dynastep's fastest run is slower than a peer's in this run: "
                 + ("; ".join(s) + "." if s else "nowhere."))
    s = slower(m, generalized_alpha=True)
    if s:
        lines.append("- Where dynastep's generalized-α (the first table's scheme; the level's own "
                     "run) is slower than a peer's fastest run: " + "; ".join(s) + ".")
    lines += auto_findings(m)
    u = unreached(m)
    if u:
        lines.append("- Not reached by any run of the sweep (the cell names the most accurate "
                     "run): " + "; ".join(u) + ".")
    lines += mujoco_findings(m) + drake_findings(m)
    t = dynastep_trouble(m)
    if t:
        lines.append("- dynastep runs that did not count: " + "; ".join(t) + ".")
    drake = any(r["engine"] == "Drake" for c in m["cases"] for r in c["runs"])
    return lines + CAVEATS[:1] + ([DRAKE_CAVEAT] if drake else []) + CAVEATS[1:]


def standings(m):
    """Per level: 'case at level: engine time < engine time < …' over the engines that reach it."""
    out = []
    for c in m["cases"]:
        for _, level in levels(c):
            best = [(r["time"], e) for e in ("dynastep", AUTO) + PEERS
                    if (r := fastest(c["runs"], e, level)) is not None]
            out.append(f"{c['case']} at {level:.2e} {c['unit']}: "
                       + " < ".join(f"{e} {fmt_time(t)} s" for t, e in sorted(best)))
    return out


def auto_findings(m):
    choices, changed = auto_choices(m)
    if not choices:
        return []
    lines = ["- dynastep auto's runs (`--scheme auto` at rtol = "
             + ", ".join(f"{r:g}" for r in m["settings"].get("auto_rtols", AUTO_RTOLS))
             + "; the pair it ended on, its end error, its loop time + the time lost to the "
             "switch, and when it switched): "
             + "; ".join(choices) + "."
             + (" The pair differed between rounds (each round runs anew; the "
                "times are those of the first round's pair): " + "; ".join(changed) + "."
                if changed else "")]
    s = auto_slower(m, with_lost=False)
    lines.append("- Where dynastep auto's run of the table is slower than a peer's fastest "
                 "run, by its loop time alone: " + ("; ".join(s) + "." if s else "nowhere."))
    s = auto_slower(m, with_lost=True)
    lines.append("- The same counting the time lost to the switch as well (the first pair's "
                 "loop when the run was made again from the start, in parentheses in the first "
                 "table): "
                 + ("; ".join(s) + "." if s else "nowhere."))
    lines.append("- The whole `dynastep run --scheme auto` process took this much longer than "
                 "its loop (the start-up, parsing and output, and a switch's first run): "
                 + "; ".join(auto_overhead(m)) + ".")
    return lines


def mujoco_findings(m):
    lines = []
    rs = resets(m)
    if rs:
        text = ("- MuJoCo reset the state (its bad-acceleration check: the run diverged) for "
                + "; ".join(rs) + ".")
        if all(s["tc"] is not None and s["tc"] < 2 for s in reset_settings(m)):
            text += (" Each had a time constant below 2 h, which MuJoCo's `refsafe` (on by "
                     "default) would have raised to 2 h.")
        lines.append(text)
    dflt = [(c, most_accurate(c["runs"], "MuJoCo", default_softness=True)) for c in m["cases"]
            if c["closures"]]
    dflt = [(c, r) for c, r in dflt if r]
    if dflt:
        from mujoco_peer import DEFAULT_SOLREF, DEFAULT_SOLIMP
        text = ("- With MuJoCo's default softness (solref (" + ", ".join(f"{x:g}" for x in
                DEFAULT_SOLREF) + "), solimp (" + ", ".join(f"{x:g}" for x in DEFAULT_SOLIMP)
                + ")), the most accurate run's end error and gap: "
                + "; ".join(f"{c['case']} {r['error']:.2e} {c['unit']}, gap {r['gap']:.1e} m"
                            for c, r in dflt) + ".")
        if not any(r["setting"].get("tc") is None for r in table_entries(m, closures=True)):
            text += (" Every MuJoCo entry of the first table on these cases uses a time "
                     "constant tuned per step instead (tc in multiples of h, solimp 0.9999, "
                     "refsafe off).")
        lines.append(text)
    change, iters = tolerance_check(m)
    if change is not None:
        lines.append(f"- MuJoCo's constraint solver (Newton) took at most {iters} iteration(s) "
                     "per sampled step on the models with loops, and its tolerance at 1e-12 "
                     f"instead of 1e-8 changed the error by at most {100 * change:.2g} %: with "
                     "equality constraints only, the problem it solves is quadratic, so neither "
                     "the tolerance nor the iteration limit is a setting to sweep.")
    return lines


def drake_group(s):
    """A Drake setting's integrator as the tables group it: SAP, or a scheme error-controlled or
    at fixed steps."""
    if s["integrator"] == "SAP":
        return "SAP (discrete plant)"
    return s["integrator"] + (" (error-controlled)" if s["accuracy"] is not None
                              else " (fixed step)")


def drake_value(r):
    """'h: error' or 'accuracy: error' of a Drake run ('over budget', 'skipped', 'failed')."""
    s = r["setting"]
    key = f"{s['h']:g}" if s["accuracy"] is None else f"{s['accuracy']:g}"
    if r.get("over_budget"):
        return f"{key}: over budget"
    if r.get("skipped"):
        return f"{key}: skipped"
    return f"{key}: " + (f"{r['error']:.1e}" if r["ok"] else "failed")


def drake_rows(m):
    rows = []
    for c in m["cases"]:
        dk = [r for r in c["runs"] if r["engine"] == "Drake"]
        for g in dict.fromkeys(drake_group(r["setting"]) for r in dk):
            runs = [r for r in dk if drake_group(r["setting"]) == g]
            over = sum(1 for r in runs if r.get("over_budget") or r.get("skipped"))
            best = most_accurate(runs)
            cells = ([best["label"], f"{best['error']:.2e}", fmt_time(best["time"]),
                      f"{best['gap']:.1e}" if c["closures"] else "—"] if best
                     else ["every run failed", "—", "—", "—"])
            rows.append(f"| {c['case']} | {g} | {len(runs)} | {over} | " + " | ".join(cells)
                        + " | " + ", ".join(drake_value(r) for r in runs) + " |")
    return rows


def sap_stalls(m):
    """Cases with loops where SAP's smallest end error is not at its finest step: phrases."""
    out = []
    for c in m["cases"]:
        sap = [r for r in c["runs"] if r["engine"] == "Drake" and r["ok"]
               and r["setting"]["integrator"] == "SAP"]
        if not c["closures"] or len(sap) < 2:
            continue
        best, finest = most_accurate(sap), min(sap, key=lambda r: r["setting"]["h"])
        if finest["error"] > 2 * best["error"]:
            out.append(f"{c['case']}: {best['error']:.1e} {c['unit']} at h = "
                       f"{best['setting']['h']:g}, {finest['error']:.1e} {c['unit']} at its "
                       f"finest h = {finest['setting']['h']:g}")
    return out


def drake_gaps(m):
    """Per case with loops: the closure gap of Drake's coarsest and finest finished SAP runs."""
    out = []
    for c in m["cases"]:
        sap = sorted((r for r in c["runs"] if r["engine"] == "Drake" and r["ok"]
                      and r["setting"]["integrator"] == "SAP"), key=lambda r: -r["setting"]["h"])
        if c["closures"] and sap:
            out.append(f"{c['case']} {sap[0]['gap']:.1e} m at h = {sap[0]['setting']['h']:g} to "
                       f"{sap[-1]['gap']:.1e} m at h = {sap[-1]['setting']['h']:g}")
    return out


def drake_flukes(m):
    """Drake's table entries whose neighbouring settings (next coarser and finer of the same
    integrator) both end more than ten times farther off and miss the level: phrases."""
    out = []
    for c in m["cases"]:
        for _, level in levels(c):
            r = fastest(c["runs"], "Drake", level)
            if r is None:
                continue
            fam = sorted((x for x in c["runs"] if x["engine"] == "Drake" and x["ok"]
                          and drake_group(x["setting"]) == drake_group(r["setting"])),
                         key=lambda x: -(x["setting"]["accuracy"] or x["setting"]["h"]))
            k = fam.index(r)
            near = fam[max(k - 1, 0):k] + fam[k + 1:k + 2]
            if len(near) == 2 and all(x["error"] > max(10 * r["error"], SAME_ERROR * level)
                                      for x in near):
                out.append(f"{c['case']} at {level:.2e} {c['unit']}: {r['label']} ends "
                           f"{r['error']:.1e} {c['unit']} off, its neighbours "
                           + " and ".join(f"{x['label']} {x['error']:.1e}" for x in near))
    return out


def drake_findings(m):
    if "drake" not in m["versions"]:
        return []  # measured before Drake joined the sweep
    if m["versions"]["drake"] is None:
        return ["- Drake did not run: pydrake is not installed (pip install drake)."]
    lines = []
    g = drake_gaps(m)
    if g:
        lines.append("- Drake closes the loops with SAP ball constraints, which are compliant: "
                     "the largest closure gap over a run, from its coarsest step to its finest: "
                     + "; ".join(g) + ".")
    fl = drake_flukes(m)
    if fl:
        lines.append("- Drake entries of the first table that meet their level by an end point "
                     "that happens to cross the reference (the runs beside them in the last table "
                     "end far off): " + "; ".join(fl) + ".")
    st = sap_stalls(m)
    if st:
        lines.append("- SAP's end error stops falling with the step on the loops, and grows at "
                     "the finest steps: " + "; ".join(st) + ". Presumably its solver's stopping "
                     "test, a momentum residual below 1e-6 of the momentum (Drake's "
                     "SapSolverParameters, which pydrake does not expose): the smaller the step, "
                     "the smaller the change of momentum a step must resolve against it. The "
                     "pendulum in the SAP plant, without constraints, converges at first order.")
    over = [f"{c['case']}: {r['label']} ({r['failed']})" for c in m["cases"] for r in c["runs"]
            if r["engine"] == "Drake" and r.get("over_budget")]
    skipped = [f"{c['case']}: {r['label']}" for c in m["cases"] for r in c["runs"]
               if r["engine"] == "Drake" and r.get("skipped")]
    if over:
        lines.append(f"- Drake runs stopped by their budget of {m['settings']['drake_budget_s']:g}"
                     " s: " + "; ".join(over) + "."
                     + (" Skipped after them (finer settings of the same integrator): "
                        + "; ".join(skipped) + "." if skipped else ""))
    failed = [f"{c['case']}: {r['label']} ({r['failed']})" for c in m["cases"] for r in c["runs"]
              if r["engine"] == "Drake" and "failed" in r
              and not (r.get("over_budget") or r.get("skipped"))]
    if failed:
        lines.append("- Drake runs that failed: " + "; ".join(failed) + ".")
    spent = sum(c.get("engine_s", {}).get("Drake", 0.0) for c in m["cases"])
    took = f"{spent / 60:.1f} minutes" if spent >= 120 else f"{spent:.0f} s"
    lines.append(f"- The Drake part of this sweep took {took} (every round; building, checking "
                 "and measuring the gaps included).")
    return lines


CAVEATS = [
    "- The engines do not integrate the same equations. MuJoCo's pendulum is one hinge, an ODE "
    "in one coordinate, and its loops are a tree of hinges closed by soft constraints, which "
    "hold only as tightly as tc makes them; dynastep integrates body coordinates with the "
    "constraints held to its Newton tolerance (index 3, projection) or fed back (Baumgarte, the "
    "hybrid formulation). MuJoCo has no error control: its runs are at fixed steps, chosen from "
    "a grid here, while dynastep's dopri5 and abm runs choose their own steps.",
    "- One number per run: the error at the end point. A run can meet a level by an end point "
    "that happens to lie close to the reference; the sweep's neighbouring steps in "
    "bench/results_peers.json show how smooth each engine's error is."]


DRAKE_CAVEAT = (
    "- Drake's plant is a tree of hinges as well. Its continuous plant (the pendulum) has "
    "error-controlled integrators but takes no constraints (\"Continuous time does not support "
    "constraints\"; its CENIC integrator refuses ball constraints too), so the loops run only in "
    "the discrete SAP plant: a first-order step, implicit in the velocities, with the closures as "
    "compliant ball constraints and no setting to sweep but the step. A loop could be closed in "
    "continuous time by a stiff bushing, a penalty spring that changes the model; that is not done "
    "here.")


def marker(ident, m, first):
    out = [f"<!-- table: performance/{ident}", "command: python3 bench/run.py --peers",
           "output: rewrites", "check: slow"]
    runs = sum(len(c["runs"]) for c in m["cases"])
    engines = {r["engine"] for c in m["cases"] for r in c["runs"]} - {AUTO}
    count = {2: "two", 3: "three", 4: "four"}.get(len(engines), str(len(engines)))
    out.append(f"time: {m['elapsed_s'] / 60:.0f} minutes for {runs} settings of {count} engines "
               "(needs MuJoCo, Exudyn, Drake, numpy, scipy)" if first
               else "time: with the first table")
    out.append(f"made: {m['date']}")
    if first:
        out.append(f"note: times depend on the machine: {m['machine']}")
    return out + ["-->"]


def section(m):
    """The page's section (Markdown lines) for the measurements `m` of `measure`."""
    from mujoco_peer import SAMPLES
    v = m["versions"]
    drake = v.get("drake") or ("not installed" if "drake" in v else "not run")
    budget = m["settings"].get("drake_budget_s")
    t40 = next(c["t_end"] for c in m["cases"] if c["case"] == "nfourbar40")
    lines = ["", HEADING, "",
             f"Written by `python3 bench/run.py --peers` on {m['date']} ({v['dynastep']}, "
             f"Exudyn {v['exudyn'] or 'not installed'}, MuJoCo {v['mujoco']}, Drake {drake}, "
             f"Python {v['python']}){' with --quick' if m['quick'] else ''}; raw numbers in "
             "bench/results_peers.json, the method in the docstrings of bench/peers.py, "
             "bench/mujoco_peer.py and bench/drake_peer.py. Four planar cases to their end "
             "times (pendulum 10 s, "
             f"Andrews' squeezer 0.03 s, double four-bar 10 s, N = 40 four-bar {t40:g} s), each "
             "engine swept over its settings: dynastep's generalized-α (index 3, "
             f"ρ∞ = {m['settings']['rho_inf']}) at fixed steps and its explicit pairs at "
             "tolerances; Exudyn's generalized-α at steps, with both Newton tolerances of the "
             "first table (\"Newton tol.\": the relative one); MuJoCo's integrators at steps "
             "and closure time constants (MuJoCo has "
             "no body-coordinate formulation: a tree of hinges, each loop closed by a soft "
             "`connect` constraint); Drake, a tree of hinges too: on the pendulum its continuous "
             "plant with its integrators, error-controlled at target accuracies or at fixed "
             "steps, and its discrete SAP plant at steps; on the loops only the SAP plant, the "
             "only one that takes their ball constraints"
             + (f"; each Drake run within a budget of {budget:g} s" if budget else "")
             + ". dynastep auto: `dynastep run --scheme auto` at rtol = "
             + ", ".join(f"{r:g}" for r in m["settings"].get("auto_rtols", AUTO_RTOLS))
             + ", the pair dynastep takes when given a tolerance and no scheme: Adams PECE with "
             "projection, going on with ESDIRK4(3)6L in stabilized index 2 from where its steps "
             "turn out bounded by stability, made again from the start with it when it fails "
             "(docs/schemes.md, \"The stiffness switch\"); "
             "the run is named by its tolerance and the pair it ended on, its time is the run's "
             "loop time (both pairs when it went on), and the time lost to the switch (the first "
             "pair's loop when the run was made again from the start) follows in parentheses. Error: the end point against the first table's references. "
             "Time: wall-clock of the integration only (dynastep's `loop_time_s`, Exudyn's "
             "`SolveDynamic`, MuJoCo's `mj_step` calls, Drake's `Simulator.AdvanceTo`), "
             + (f"minimum over {m['repeat']} interleaved rounds for runs under "
                f"{m['settings']['repeat_below_s']:g} s" if m["repeat"] > 1 else "one round")
             + ". Accuracy levels: the errors of dynastep's "
             "generalized-α at three steps; at each, the fastest run of each engine whose error "
             f"is at most {m['settings']['same_error']:g} times the level, and the peer's time "
             "over dynastep's fastest run's and over the auto run's time, loop and switch (above 1: dynastep "
             "faster). Gap: the largest distance between the two points of a loop closure over "
             f"the run ({SAMPLES} samples"
             + (f", Drake {ds}" if (ds := m["settings"].get("drake_samples")) else "")
             + ").", ""]
    lines += marker("peers", m, True) + [
        "| case | level: error of generalized-α | its time [s] | dynastep: fastest run | "
        "time [s] | dynastep auto: run | time [s] (lost to the switch [s]) | "
        "Exudyn: fastest run | time [s] | Exudyn / dynastep | Exudyn / auto | "
        "MuJoCo: fastest run | time [s] | MuJoCo / dynastep | MuJoCo / auto | MuJoCo gap [m] | "
        "Drake: fastest run | time [s] | Drake / dynastep | Drake / auto | Drake gap [m] |",
        "|" + "---|" * 21]
    lines += work_precision_rows(m)
    lines += ["", "MuJoCo's integrators one by one: how many runs of the sweep, how many MuJoCo "
              "reset, the most accurate run with a tuned time constant, and the most accurate with "
              "MuJoCo's default softness.", ""] + marker("peers-mujoco", m, False) + [
        "| case | integrator | runs | reset | most accurate run | error | time [s] | gap [m] | "
        "default softness: best error |", "|---|---|---|---|---|---|---|---|---|"]
    lines += mujoco_rows(m)
    rows = drake_rows(m)
    if rows:
        lines += ["", "Drake's integrators one by one: how many runs of the sweep, how many went "
                  "over budget or were skipped after one, the most accurate run, and the end "
                  "error of each run by its step h or target accuracy (coarse to fine).", ""]
        lines += marker("peers-drake", m, False) + [
            "| case | integrator | runs | over budget | most accurate run | error | time [s] | "
            "gap [m] | end error by h or accuracy |", "|---|---|---|---|---|---|---|---|---|"]
        lines += rows
    return lines + [""] + findings(m) + [""]


def run(binary, work, repeat, quick, have_exudyn, out, splice):
    """Measure, keep the raw numbers (raw_path), splice the section into the page `out`."""
    try:
        import mujoco  # noqa: F401
    except ImportError:
        print("mujoco is not installed (pip install mujoco): the section is not written",
              file=sys.stderr)
        return
    if drake_version() is None:
        print("drake is not installed (pip install drake): the sweep runs without it",
              file=sys.stderr)
    m = measure(binary, work, repeat, quick, have_exudyn,
                lambda s: print(s, file=sys.stderr, flush=True))
    with open(raw_path(out), "w") as f:
        json.dump(m, f, indent=1)
    splice(out, HEADING, section(m))


def splice_saved(out, splice):
    """Puts the section of the saved measurements back into a rewritten page (bench/run.py's
    full run writes the page anew and does not rerun this sweep)."""
    if os.path.exists(raw_path(out)):
        with open(raw_path(out)) as f:
            splice(out, HEADING, section(json.load(f)))
