"""The flexible-beam case of the benchmark harness (bench/run.py): the cantilever of
examples/cantilever.toml (a 1 m steel beam, 10 mm square, clamped, falling under gravity from
straight), 1000 steps of h = 1e-4 s with generalized-α, in dynastep (three-node beams, full and
modified Newton) and in Exudyn (its two-node geometrically exact `Beam3D` on Euler-parameter
nodes, sparse solver, modified Newton), over a range of meshes.

Speed is compared at equal accuracy: each run's tip deflection u_z(0.1 s) against a converged
reference, Exudyn's Beam3D with REFERENCE_ELEMENTS elements (independent of dynastep; dynastep's
own meshes converge to within 0.01 % of it). For each dynastep run the page names the fastest
Exudyn run at least as accurate, and the ratio of their times.
"""
import json
import os
import subprocess
import time

import numpy as np

H = 1e-4
STEPS = 1000
RHO_INF = 0.8
DYNASTEP_ELEMENTS = (8, 16, 32, 64)
EXUDYN_ELEMENTS = (8, 16, 32, 64, 128)
REFERENCE_ELEMENTS = 256
# Exudyn fails on 256 and 512 elements with its tolerance at 1e-6; 1e-5 runs 256 (it moves the
# 128-element tip by 1e-5 of itself).
REFERENCE_RTOL = 1e-5
# Exudyn's Newton tolerance (relative; absolute 1e-2 of it): its default 1e-8 stalls on these
# beams (its Newton error stays at 3e-8 with 16 elements), 1e-6 converges on every mesh.
EXUDYN_RTOL = 1e-6
# dynastep's Newton position tolerance: its default, and Exudyn's default relative tolerance (which
# Exudyn itself cannot hold on these beams). The tip moves by less than 1e-7 of itself between them,
# far below the mesh errors compared here.
DYNASTEP_TOLERANCES = (None, 1e-8)

# The section of examples/cantilever.toml.
L, A_SIDE, E, RHO = 1.0, 0.01, 2.1e11, 7800.0
G = E / 2.6



def exudyn_settings(steps, h, rho_inf, rtol, atol, write_period):
    """Exudyn's simulation settings of the beam cases: `steps` fixed steps of h with generalized-α
    (spectral radius rho_inf, initial accelerations computed), modified Newton at the relative and
    absolute tolerances rtol and atol, EigenSparse, sensors written every write_period, no file."""
    import exudyn as exu
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps, ti.endTime, ti.verboseMode = steps, steps * h, 0
    ti.adaptiveStep = ti.automaticStepSize = False
    ti.generalizedAlpha.spectralRadius = rho_inf
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.useModifiedNewton = True
    ti.newton.relativeTolerance = rtol
    ti.newton.absoluteTolerance = atol
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    s.solution.file.write = False
    s.solution.sensors.writePeriod = write_period
    return s


def timed_solve(mbs, s):
    """Runs Exudyn's generalized-α on `mbs` with settings `s` (statistics off); returns the wall
    time of `SolveDynamic` [s], or None when it fails."""
    import exudyn as exu
    s.show.computationTime = s.show.statistics = False
    t0 = time.perf_counter()
    try:
        ok = mbs.SolveDynamic(s, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    except exu.SolverError:
        ok = False
    wall = time.perf_counter() - t0
    return wall if ok else None

def exudyn_cantilever(n_el, steps=STEPS, rtol=EXUDYN_RTOL):
    """Exudyn's Beam3D cantilever with n_el elements: (wall time of SolveDynamic, tip z) or None."""
    import exudyn as exu
    from exudyn.itemInterface import (GenericJoint, LoadMassProportional, MarkerBodyMass,
                                      MarkerBodyRigid, MarkerNodeRigid, NodeRigidBodyEP,
                                      ObjectBeamGeometricallyExact, ObjectGround, SensorNode)
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    a2, i2 = A_SIDE * A_SIDE, A_SIDE ** 4 / 12
    sec = exu.BeamSection()
    sec.stiffnessMatrix = np.diag([E * a2, G * a2, G * a2, G * 0.1406 * A_SIDE ** 4, E * i2,
                                   E * i2])
    sec.dampingMatrix = np.zeros((6, 6))
    sec.massPerLength = RHO * a2
    sec.inertia = RHO * np.diag([2 * i2, i2, i2])
    le = L / n_el
    nodes = [mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=[k * le, 0, 0, 1, 0, 0, 0]))
             for k in range(n_el + 1)]
    for k in range(n_el):
        b = mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[nodes[k], nodes[k + 1]],
                                                       length=le, sectionData=sec))
        mm = mbs.AddMarker(MarkerBodyMass(bodyNumber=b))
        mbs.AddLoad(LoadMassProportional(markerNumber=mm, loadVector=[0, 0, -9.81]))
    ground = mbs.AddObject(ObjectGround())
    mg = mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localPosition=[0, 0, 0]))
    mn = mbs.AddMarker(MarkerNodeRigid(nodeNumber=nodes[0]))
    mbs.AddObject(GenericJoint(markerNumbers=[mg, mn], constrainedAxes=[1, 1, 1, 1, 1, 1]))
    sensor = mbs.AddSensor(SensorNode(nodeNumber=nodes[-1], storeInternal=True,
                                      outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()
    s = exudyn_settings(steps, H, RHO_INF, rtol, rtol * 1e-2, steps * H)
    wall = timed_solve(mbs, s)
    if wall is None:
        return None
    return wall, float(np.asarray(mbs.GetSensorStoredData(sensor))[-1][3])


def dynastep_cantilever(binary, work, n_el, method, tol=None):
    """dynastep's cantilever with n_el elements, Newton `method` and position tolerance `tol`
    (None: the default): (loop time, tip z)."""
    out = os.path.join(work, f"cantilever-{n_el}-{method}-{tol}")
    tip = f"beam.{2 * n_el}"
    extra = ["--set", f"solver.newton.position_tol={tol!r}"] if tol else []
    subprocess.run([binary, "run", "--example", "cantilever", "--dt", repr(H),
                    "--t-end", repr(H * STEPS), "--output-interval", repr(H * STEPS),
                    "--param", f"rho_inf={RHO_INF}",
                    "--set", f"spatial.beams.beam.elements={n_el}",
                    "--set", f'spatial.markers.tip.body="{tip}"',
                    "--set", f'solver.newton.method="{method}"', *extra, "-q", "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return s["loop_time_s"], s["final_state"]["markers"]["tip"][2]


def measure(binary, work, repeat, have_exudyn):
    """Every run, minimum time over `repeat` interleaved repeats: {"reference": z,
    "dynastep": [...], "exudyn": [...]} (errors relative to the reference)."""
    runs = {("dynastep", n, m, tol): None for n in DYNASTEP_ELEMENTS
            for m in ("full", "modified") for tol in DYNASTEP_TOLERANCES}
    if have_exudyn:
        runs.update({("exudyn", n, None, EXUDYN_RTOL): None for n in EXUDYN_ELEMENTS})
    for _ in range(repeat):
        for key in runs:
            engine, n, method, tol = key
            got = (dynastep_cantilever(binary, work, n, method, tol) if engine == "dynastep"
                   else exudyn_cantilever(n))
            if got is not None and (runs[key] is None or got[0] < runs[key][0]):
                runs[key] = got
    ref = exudyn_cantilever(REFERENCE_ELEMENTS, rtol=REFERENCE_RTOL) if have_exudyn else None
    reference = ref[1] if ref else None
    out = {"reference": reference, "dynastep": [], "exudyn": []}
    for (engine, n, method, tol), got in runs.items():
        if got is None:
            out[engine].append({"elements": n, "method": method, "tol": tol, "failed": True})
            continue
        err = abs(got[1] / reference - 1.0) if reference else None
        out[engine].append({"elements": n, "method": method, "tol": tol, "time": got[0],
                            "tip_z": got[1], "error": err})
    return out


def fastest_as_accurate(exudyn_runs, run):
    """The fastest of the (not failed) Exudyn runs whose error is at most `run`'s, or None."""
    match = [e for e in exudyn_runs if not e.get("failed") and e["error"] <= run["error"]]
    return min(match, key=lambda e: e["time"]) if match else None


def ratio_lines(ratios, what_runs):
    """One line per (Newton method, tolerance) of `ratios` {(method, tol): [Exudyn / dynastep]}:
    the range of the ratio over its `what_runs`."""
    lines = []
    for (method, tol), rs in sorted(ratios.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        what = f"position_tol {tol:g}" if tol else "default tolerance"
        lines.append(f"- {method} Newton, {what}: Exudyn / dynastep {min(rs):.2f}–{max(rs):.2f}× "
                     f"over the {len(rs)} {what_runs}.")
    return lines


def section(m, date, marker):
    """The page's section (Markdown lines) for the measurements `m` of `measure`."""
    lines = ["", "## Flexible beams: the cantilever", "",
             f"examples/cantilever.toml, {STEPS} steps of h = {H:g} s, generalized-α with "
             f"ρ∞ = {RHO_INF}, in dynastep (three-node beams, MBDyn's finite-volume element, "
             "full and modified Newton) and Exudyn (two-node `Beam3D` on Euler-parameter nodes, "
             f"EigenSparse, modified Newton, relative tolerance {EXUDYN_RTOL:g}: its default "
             "1e-8 stalls on these beams). Error: |u_z(0.1 s) / u_ref − 1| with u_ref = "
             f"{m['reference']:.6e} m, Exudyn's Beam3D with {REFERENCE_ELEMENTS} elements (tolerance "
             f"{REFERENCE_RTOL:g}). "
             "Time: dynastep's `loop_time_s`, Exudyn's `SolveDynamic` (minimum over the repeats). "
             "Equal accuracy: beside each dynastep run, the fastest Exudyn run at least as "
             "accurate, and Exudyn's time over dynastep's.", ""] + marker + [
             "| engine | elements | Newton | tolerance | time [s] | tip z [m] | error | fastest Exudyn run as accurate | ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    exu = [r for r in m["exudyn"] if not r.get("failed")]
    for r in m["exudyn"]:
        if r.get("failed"):
            lines.append(f"| Exudyn | {r['elements']} | modified | {EXUDYN_RTOL:g} | failed | | | | |")
            continue
        lines.append(f"| Exudyn | {r['elements']} | modified | {EXUDYN_RTOL:g} | {r['time']:.3f} | "
                     f"{r['tip_z']:.6e} | {r['error']:.2e} | | |")
    ratios = {}
    for r in m["dynastep"]:
        if r.get("failed"):
            continue
        best = fastest_as_accurate(exu, r)
        cell = (f"{best['elements']} elements, {best['time']:.3f} s" if best
                else "none of the meshes run")
        ratio = f"{best['time'] / r['time']:.2f}" if best else "—"
        if best:
            ratios.setdefault((r["method"], r.get("tol")), []).append(best["time"] / r["time"])
        tol = f"{r['tol']:g}" if r.get("tol") else "default (1e-10)"
        lines.append(f"| dynastep | {r['elements']} | {r['method']} | {tol} | {r['time']:.3f} | "
                     f"{r['tip_z']:.6e} | {r['error']:.2e} | {cell} | {ratio} |")
    lines += ["", "Tolerance: Exudyn's relative Newton tolerance; dynastep's "
              "`[solver.newton] position_tol` (relative to 1 + ‖q‖∞; its test also bounds the "
              "velocity change and the residual), at its default and at 1e-8, Exudyn's default, "
              "which Exudyn cannot hold here."]
    lines += ratio_lines(ratios, "meshes")
    tips = {}
    for r in m["dynastep"]:
        if not r.get("failed"):
            tips.setdefault((r["elements"], r["method"]), []).append(r["tip_z"])
    spread = max(abs(max(t) / min(t) - 1.0) for t in tips.values() if len(t) > 1)
    lines += ["", f"Between the two tolerances dynastep's tip moves by at most {spread:.1e} of itself "
              "(every mesh and Newton method), far below the mesh errors compared here. Both "
              "engines converge at about order 2 under refinement; a three-node element with lumped "
              "mass is about as accurate as Exudyn's two-node Beam3D with the same number of nodes, "
              "and the cost per element is what differs. Full Newton forms the Jacobian (the "
              "analytic tangent of docs/beams.md) and refactors the sparse matrix for every "
              "correction; modified Newton keeps both over many steps.", ""]
    return lines
