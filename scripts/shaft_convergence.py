#!/usr/bin/env python3
"""Convergence orders on the rotating shaft, as §5.4 of Zhang, Zhang, Zanoni & Masarati
(Multibody System Dynamics 2022) measures them (its eq. 26): the relative error

    RE(x) = sqrt( Σ_j (x(t_j) − x_j)² / Σ_j x(t_j)² )

of the mid-span displacement u₃ (`mid.z`), velocity v₃ (`mid.vz`) and acceleration a₃
(`shaft.16.az`, written with `[solver] accelerations = true`) over the samples t_j, against
a reference run of ESDIRK4(3)6L[2]SA₂ at Δt = 1e-5 s (the paper's), for each scheme at Δt/n =
1e-3, 5e-4 and 2.5e-4 s (n implicit stages per step), ρ∞ = 0. The samples are every 0.06 s, a
multiple of every step size, so that no row is interpolated; the runs end at 2.4 s.

Prints a Markdown table: per scheme and step the three errors, and the observed orders between
consecutive steps. docs/reproductions.md shows its output beside the paper's findings. The
reference takes about ten minutes on one core; pass --reference-dt 2e-5 for a quicker, coarser
one. Standard library only.

Usage: python3 scripts/shaft_convergence.py [--bin target/release/dynastep] [--reference-dt 1e-5]
"""

import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T_END = 2.4
SAMPLE = 0.06
COLUMNS = ["mid.z", "mid.vz", "shaft.16.az"]

# (scheme, implicit stages, has rho_inf): the paper's families.
SCHEMES = [
    ("lms2", 1, True), ("ss2", 1, True), ("generalized-alpha", 1, True), ("bathe", 2, True),
    ("msstc3", 3, True), ("mssth3", 3, True), ("esdirk3-4", 3, False),
    ("msstc4", 4, True), ("mssth4", 4, True), ("esdirk3-5", 4, False),
    ("msstc5", 5, True), ("mssth5", 5, True), ("esdirk4-6", 5, False),
]
STEPS = [1e-3, 5e-4, 2.5e-4]


def run(binary, scheme, params, dt, out):
    """{round(t, 6): [u3, v3]} of a run, or None when it stops early."""
    cmd = [binary, "run", "--example", "rotating-shaft", "--scheme", scheme, "--dt", repr(dt),
           "--t-end", repr(T_END), "--output-interval", repr(SAMPLE), "--out", out, "-q",
           # Modified Newton: the same converged points, the Jacobian kept across iterations.
           "--set", 'solver.newton.method="modified"', "--set", "solver.accelerations=true"]
    for p in params:
        cmd += ["--param", p]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None
    with open(os.path.join(out, "history.csv")) as f:
        rows = list(csv.DictReader(f))
    return {round(float(r["t"]), 6): [float(r[c]) for c in COLUMNS] for r in rows}


def relative_errors(got, ref):
    out = []
    for k in range(len(COLUMNS)):
        num = sum((ref[t][k] - got[t][k]) ** 2 for t in ref if t in got)
        den = sum(ref[t][k] ** 2 for t in ref if t in got)
        out.append(math.sqrt(num / den))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "dynastep"))
    ap.add_argument("--reference-dt", type=float, default=1e-5)
    args = ap.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"no dynastep binary at {args.bin}: cargo build --release -p dynastep-cli")
    with tempfile.TemporaryDirectory() as tmp:
        ref = run(args.bin, "esdirk4-6", [], args.reference_dt, os.path.join(tmp, "ref"))
        if ref is None:
            sys.exit("the reference run stopped early")
        print(f"reference: esdirk4-6 at Δt = {args.reference_dt:g} s, {len(ref)} samples\n")
        print("| scheme | Δt/n [s] | RE(u₃) | RE(v₃) | RE(a₃) | order u₃ | order v₃ | order a₃ |")
        print("|---|---|---|---|---|---|---|---|")
        for scheme, stages, has_rho in SCHEMES:
            params = ["rho_inf=0"] if has_rho else []
            prev = None
            for h in STEPS:
                got = run(args.bin, scheme, params, stages * h, os.path.join(tmp, "run"))
                if got is None:
                    print(f"| {scheme} | {h:g} | stops | | | | | |")
                    prev = None
                    continue
                e = relative_errors(got, ref)
                orders = [""] * len(COLUMNS)
                if prev is not None:
                    orders = [f"{math.log2(p / c):.2f}" if c > 0 else "" for p, c in zip(prev, e)]
                errors = " | ".join(f"{x:.2e}" for x in e)
                print(f"| {scheme} | {h:g} | {errors} | {' | '.join(orders)} |")
                prev = e
            sys.stdout.flush()


if __name__ == "__main__":
    main()
