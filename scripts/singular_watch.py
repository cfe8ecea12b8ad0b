#!/usr/bin/env python3
"""Index-1 formulations at singular configurations: what the singularity watch sees, and the errors.

Runs `dynastep run --example MODEL --scheme S --formulation projection --rtol R --atol R` on the
two loop mechanisms that pass singular configurations (the double four-bar, 10 s, and the N = 40
chain, 20 s) with the watch's default policy (`warn`: the run goes on), and prints one Markdown
row per run:

- the passage summary.json reports (`closest_singularity`: the first one below the watch's
  threshold, else the closest), as the ratio of the smallest eigenvalue of [M Phi_q^T; Phi_q 0]
  to its largest in the run, and its time;
- the largest error of the marker B0 over the run against the independent reference (the 1-DOF
  reduction for the double four-bar, the official ADAMS file for the chain).

docs/acceleration_level.md ("Singular configurations") shows its output; the threshold of
crates/dynastep/src/formulation/singularity.rs was set from it.

Usage: python3 scripts/singular_watch.py [--bin target/release/dynastep]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from error_control import REF, double_fourbar, max_error, read_csv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = [("double-fourbar", 0.01), ("nfourbar40", 0.05)]
SCHEMES = ["dopri5", "abm"]
RTOLS = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8]


def nfourbar40(history):
    ref = read_csv(os.path.join(REF, "gdlc06_A02_N40_fourbar_B0_0-20s.csv"))
    return max_error(history, ref, [("B0.x", "x_B0_m"), ("B0.y", "y_B0_m")])


ERRORS = {"double-fourbar": double_fourbar, "nfourbar40": nfourbar40}


def run(binary, model, scheme, rtol, interval):
    """One run with the default policy; returns (summary or None, history rows, first stderr line)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "run", "--example", model, "--scheme", scheme, "--formulation", "projection",
               "--rtol", f"{rtol:g}", "--atol", f"{rtol:g}", "--output-interval", f"{interval:g}",
               "--out", out, "-q"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        path = os.path.join(out, "summary.json")
        if not os.path.exists(path):
            return None, [], proc.stderr.strip()
        return json.load(open(path)), read_csv(os.path.join(out, "history.csv")), proc.stderr.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "dynastep"))
    args = ap.parse_args()
    print("| model | scheme | rtol | passage: ratio (t [s]) | flagged | status | max B0 error [m] |")
    print("|---|---|---|---|---|---|---|")
    for model, interval in MODELS:
        for scheme in SCHEMES:
            for rtol in RTOLS:
                summary, history, err = run(args.bin, model, scheme, rtol, interval)
                if summary is None:
                    print(f"| {model} | {scheme} | {rtol:g} | - | - | refused: {err} | - |")
                    continue
                p = summary.get("closest_singularity") or {}
                passage = f"{p['ratio']:.1e} ({p['t']:.2f})" if p else "-"
                flagged = "yes" if p.get("singular") else "no"
                error = ERRORS[model](history)
                print(f"| {model} | {scheme} | {rtol:g} | {passage} | {flagged} | "
                      f"{summary['status']} | {error:.1e} |")


if __name__ == "__main__":
    main()
