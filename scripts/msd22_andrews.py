#!/usr/bin/env python3
"""Andrews' squeezer as in section 5.1 and 5.5 of Zhang, Zhang, Zanoni & Masarati (2022),
"Implicit A-stable time integration methods for multibody system dynamics", Multibody System
Dynamics, doi:10.1007/s11044-021-09806-9: every implicit family member at the same step per implicit
point (Delta t/n = 1e-4 and 1e-5 s; n = 1 for LMS-k and SS-k, s - 1 for an s-stage ESDIRK) over
[0, 0.05] s. Prints, per run: the largest error of the crank's angular velocity (body OF) against
LMS4 (rho_inf = 0.6) at 1e-6 s, as the paper's reference; the largest |E - E0 - W_nc|, its value at
0.05 s and the slope of a linear fit over the second half (the paper's "increasing trend"); and the
Newton iterations per implicit point. Table and comparison with the paper: docs/reproductions.md.

Usage: DYNASTEP=target/release/dynastep python3 scripts/msd22_andrews.py   (about 3 minutes)
Needs numpy. Runs go to ./msd22-andrews/.
"""
import csv
import json
import os
import subprocess

import numpy as np

B = os.environ.get("DYNASTEP", "target/release/dynastep")
OUT = "msd22-andrews"
# (scheme, rho_inf or None, implicit points per step n)
CFG = [("lms2", 0, 1), ("lms2", 0.6, 1), ("ss2", 0, 1), ("ss2", 0.6, 1),
       ("lms3", 0, 1), ("lms3", 0.6, 1), ("ss3", 0, 1), ("ss3", 0.6, 1),
       ("lms4", 0, 1), ("lms4", 0.6, 1), ("ss4", 0, 1), ("ss4", 0.6, 1),
       ("bathe", 0, 2), ("bathe", 0.6, 2), ("msstc3", 0, 3), ("msstc3", 0.6, 3),
       ("msstc4", 0, 4), ("msstc4", 0.6, 4), ("msstc5", 0, 5), ("msstc5", 0.6, 5),
       ("mssth3", 0, 3), ("mssth4", 0, 4), ("mssth5", 0, 5),
       ("esdirk3-4", None, 3), ("esdirk3-5", None, 4), ("esdirk4-6", None, 5)]


def run(scheme, rho, h, out):
    """One run over [0, 0.05] s, every step written; returns summary.json."""
    args = [B, "run", "--example", "andrews", "--scheme", scheme, "--dt", repr(h),
            "--t-end", "0.05", "--output-interval", "0", "-q", "--out", out]
    if rho is not None:
        args += ["--param", f"rho_inf={rho}"]
    subprocess.run(args, check=False)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def column(out, name):
    """(t, value) rows of one history column."""
    with open(os.path.join(out, "history.csv")) as f:
        rows = list(csv.reader(f))
    t, j = rows[0].index("t"), rows[0].index(name)
    return np.array([(float(r[t]), float(r[j])) for r in rows[1:]])


def main():
    ref_dir = os.path.join(OUT, "reference")
    run("lms4", 0.6, 1e-6, ref_dir)
    ref = column(ref_dir, "OF.omega")
    for per_point in (1e-4, 1e-5):
        for scheme, rho, n in CFG:
            out = os.path.join(OUT, f"{scheme}_{rho}_{per_point}")
            summary = run(scheme, rho, n * per_point, out)
            if summary["status"] != "completed":
                print(scheme, rho, per_point, "status", summary["status"])
                continue
            w, e = column(out, "OF.omega"), column(out, "energy.balance")
            err = np.abs(w[:, 1] - np.interp(w[:, 0], ref[:, 0], ref[:, 1])).max()
            half = e[:, 0] > 0.025
            slope = np.polyfit(e[half, 0], e[half, 1], 1)[0]
            iterations = summary["newton_iterations"]["total"] / (summary["steps"] * n)
            print(f"{scheme:10s} {str(rho):5s} {per_point:g} omega error {err:.2e} "
                  f"max balance {np.abs(e[:, 1]).max():.2e} at end {e[-1, 1]:+.2e} "
                  f"slope {slope:+.2e} iterations/point {iterations:.2f}")


if __name__ == "__main__":
    main()
