#!/usr/bin/env python3
"""Reproduction of section 5.1 (Andrews' squeezer) and section 5.5 (average number of Newton
iterations) of

    Zhang, Zhang, Zanoni & Masarati (2022), "Implicit A-stable time integration methods for
    multibody system dynamics", Multibody System Dynamics, doi:10.1007/s11044-021-09806-9 ([MSD22]).

What is run (as in the paper): Andrews' squeezer (the embedded example `andrews`, IVP test-set data,
constant torque 0.033 N m on the crank O-F) over [0, 0.05] s with every implicit family member at
the same step per implicit point, Delta t/n = 1e-4 s and 1e-5 s. n is the number of implicit points
per step: 1 for LMS-k and SS-k, s - 1 for an s-stage ESDIRK (2 for Bathe), so the step is
h = n * (Delta t/n). Second-order members at rho_inf = 0 and 0.6, MSSTH(3, 4, 5) at rho_inf = 0, the
Kennedy-Carpenter ESDIRKs have no parameter.

Reference for omega (the crank's angular velocity, column OF.omega): LMS4, rho_inf = 0.6, h = 1e-6 s,
as in the paper; cross-checked against ESDIRK4(3)6L[2]SA2 at h = 2e-6 s (their largest difference
is printed and written as the "cross-check" row of the table).

Per run the table has: the largest |omega - omega_ref| on [0, 0.05] s and the error at 0.05 s; the
energy balance Delta E = E - E0 - W_nc (dynastep's column energy.balance; W_nc is the torque's work,
so this is the paper's eq. 23), its largest modulus, its value at 0.05 s and the slope of a linear
fit over the second half [0.025, 0.05] s (the paper's "increasing trend": trend = up if the slope is
positive); the average number of Newton iterations per implicit point,
newton_iterations / (steps * n) (the paper's Fig. 28); the wall time of the run.

Usage (from the repository root; about 10 s here, 7 s measured, and 350 MB of run files):
    DYNASTEP=target/release/dynastep python3 scripts/msd22_andrews.py
DYNASTEP defaults to target/release/dynastep in the repository. The runs go to $MSD22_RUNS
(default /tmp/msd22-andrews); the table to docs/figures/msd22-andrews.csv. Needs numpy.
Comparison with the paper's statements: docs/reproductions.md, section [MSD22].
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("DYNASTEP", os.path.join(REPO, "target", "release", "dynastep"))
RUNS = os.environ.get("MSD22_RUNS", "/tmp/msd22-andrews")
TABLE = os.path.join(REPO, "docs", "figures", "msd22-andrews.csv")
T_END = 0.05

# (scheme, rho_inf or None, n = implicit points per step). n from `dynastep schemes`: Bathe is a
# 3-stage ESDIRK, MSSTC(k) and MSSTH(k) have k + 1 stages, the Kennedy-Carpenter pairs 4, 5 and 6
# stages; the first stage of every ESDIRK is explicit.
SECOND_ORDER = [("lms2", 1), ("lms3", 1), ("lms4", 1), ("ss2", 1), ("ss3", 1), ("ss4", 1),
                ("bathe", 2), ("msstc3", 3), ("msstc4", 4), ("msstc5", 5)]
CONFIGS = ([(s, rho, n) for s, n in SECOND_ORDER for rho in (0.0, 0.6)]
           + [("mssth3", 0.0, 3), ("mssth4", 0.0, 4), ("mssth5", 0.0, 5)]
           + [("esdirk3-4", None, 3), ("esdirk3-5", None, 4), ("esdirk4-6", None, 5)])
PER_POINT = (1e-4, 1e-5)  # Delta t/n [s]


def run(scheme, rho, h, out):
    """One run over [0, T_END] with every step written; returns its summary.json."""
    args = [BIN, "run", "--example", "andrews", "--scheme", scheme, "--dt", repr(h),
            "--t-end", repr(T_END), "--output-interval", "0", "-q", "--out", out]
    if rho is not None:
        args += ["--param", f"rho_inf={rho}"]
    shutil.rmtree(out, ignore_errors=True)  # no stale files from an earlier run
    done = subprocess.run(args, check=False, capture_output=True, text=True)
    path = os.path.join(out, "summary.json")
    if not os.path.exists(path):  # the CLI refused the run: no summary at all
        return {"status": "refused: " + done.stderr.strip().replace("\n", " ")[:200]}
    with open(path) as f:
        return json.load(f)


def columns(out, names):
    """Array of the history columns t and names (one row per output step)."""
    with open(os.path.join(out, "history.csv")) as f:
        reader = csv.reader(f)
        header = next(reader)
        idx = [header.index("t")] + [header.index(n) for n in names]
        return np.array([[float(r[i]) for i in idx] for r in reader])


def omega_errors(hist, ref):
    """Largest |omega - omega_ref| and the error at the last output (reference interpolated)."""
    err = np.abs(hist[:, 1] - np.interp(hist[:, 0], ref[:, 0], ref[:, 1]))
    return err.max(), err[-1]


def row(scheme, rho, per_point, n, role, summary, hist, ref):
    """One line of the table; the metrics are empty when the run produced no history."""
    r = {"role": role, "scheme": scheme, "rho_inf": "" if rho is None else rho,
         "dt_per_point": per_point, "n": n, "h": n * per_point, "status": summary["status"]}
    if hist is None or len(hist) < 2:
        return r
    t, balance = hist[:, 0], hist[:, 2]
    half = t >= T_END / 2
    slope = np.polyfit(t[half], balance[half], 1)[0] if half.sum() >= 2 else float("nan")
    err_max, err_end = omega_errors(hist, ref)
    r.update({
        "t_reached": t[-1],
        "omega_err_max": err_max,
        "omega_err_end": err_end,
        "balance_max_abs": np.abs(balance).max(),
        "balance_end": balance[-1],
        "balance_slope_2nd_half": slope,
        "trend": "up" if slope > 0 else "down",
        "iterations_per_point": summary["newton_iterations"]["total"] / (summary["steps"] * n),
        "steps": summary["steps"],
        "wall_time_s": summary["wall_time_s"],
    })
    return r


def main():
    if not os.path.exists(BIN):
        sys.exit(f"no dynastep binary at {BIN} (set DYNASTEP)")
    start = time.time()
    names = ["OF.omega", "energy.balance"]
    rows = []

    # Reference (the paper's): LMS4, rho_inf = 0.6, h = 1e-6 s.
    ref_dir = os.path.join(RUNS, "reference_lms4_0.6_1e-6")
    ref_summary = run("lms4", 0.6, 1e-6, ref_dir)
    ref_hist = columns(ref_dir, names)
    ref = ref_hist[:, :2]
    rows.append(row("lms4", 0.6, 1e-6, 1, "reference", ref_summary, ref_hist, ref))

    # Cross-check of the reference: ESDIRK4(3)6L[2]SA2 (fourth order) at h = 2e-6 s.
    chk_dir = os.path.join(RUNS, "crosscheck_esdirk4-6_2e-6")
    chk_summary = run("esdirk4-6", None, 2e-6, chk_dir)
    chk_hist = columns(chk_dir, names)
    rows.append(row("esdirk4-6", None, 2e-6 / 5, 5, "cross-check", chk_summary, chk_hist, ref))
    print(f"reference check: max |omega(lms4, 1e-6) - omega(esdirk4-6, 2e-6)| = "
          f"{rows[-1]['omega_err_max']:.3e} rad/s, at 0.05 s {rows[-1]['omega_err_end']:.3e} rad/s "
          f"(|omega| up to {np.abs(ref[:, 1]).max():.0f} rad/s)")

    for per_point in PER_POINT:
        for scheme, rho, n in CONFIGS:
            out = os.path.join(RUNS, f"{scheme}_{rho}_{per_point:g}")
            summary = run(scheme, rho, n * per_point, out)
            hist = None
            if os.path.exists(os.path.join(out, "history.csv")):
                hist = columns(out, names)
            r = row(scheme, rho, per_point, n, "run", summary, hist, ref)
            rows.append(r)
            if "omega_err_max" in r:
                print(f"{scheme:10s} {str(rho):5s} {per_point:g}  {r['status']:10s} "
                      f"omega err max {r['omega_err_max']:9.3e} end {r['omega_err_end']:9.3e}  "
                      f"|dE| max {r['balance_max_abs']:8.2e} end {r['balance_end']:+9.2e} "
                      f"{r['trend']:4s}  it/point {r['iterations_per_point']:.2f}")
            else:
                print(f"{scheme:10s} {str(rho):5s} {per_point:g}  {r['status']}")

    fields = ["role", "scheme", "rho_inf", "dt_per_point", "n", "h", "status", "t_reached", "steps",
              "omega_err_max", "omega_err_end", "balance_max_abs", "balance_end",
              "balance_slope_2nd_half", "trend", "iterations_per_point", "wall_time_s"]
    os.makedirs(os.path.dirname(TABLE), exist_ok=True)
    with open(TABLE, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    print(f"wrote {TABLE} ({len(rows)} rows) in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
