#!/usr/bin/env python3
"""Error control on constrained models: which scheme x formulation pairs to use with rtol.

Runs `dynastep run --example MODEL --scheme S --formulation F --rtol R --atol R` for every pair
and tolerance below, measures the error of each completed run against an independent reference
(the files in reference/, or a closed form), and prints one Markdown table per model plus a
summary verdict per pair. docs/schemes.md ("Error control on constrained models") shows its output.

Usage: python3 scripts/error_control.py [--bin target/release/dynastep] [--models a,b] [--pairs s/f,...]

A pair is "good" on a model when every tolerance completes, the error falls as the tolerance is
tightened (each error at most 2x the previous one, and the tightest at least 100x below the
loosest, or at the reference's floor), and "poor" otherwise. The errors are measured, not asserted;
tests/error_control.rs asserts the claims docs/schemes.md makes from them.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "reference")

# Andrews' crank angle beta at t = 0.03 s (IVP Test Set, PSIDE at rtol 1e-14).
ANDREWS_BETA = 15.81077119629904


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def samples(history, columns):
    """{round(t, 6): [values of columns]} of a history.csv."""
    out = {}
    for row in history:
        out[round(float(row["t"]), 6)] = [float(row[c]) for c in columns]
    return out


def max_error(history, reference, pairs, time_column="t_s"):
    """Largest |history column - reference column| over the reference times found in history."""
    got = samples(history, [p[0] for p in pairs])
    worst, found = 0.0, 0
    for row in reference:
        t = round(float(row[time_column]), 6)
        if t in got:
            found += 1
            for value, (_, ref_col) in zip(got[t], pairs):
                worst = max(worst, abs(value - float(row[ref_col])))
    return worst if found > 1 else math.nan


def pendulum(history):
    ref = read_csv(os.path.join(REF, "derived_simple_pendulum_10s_dt0.01.csv"))
    return max_error(history, ref, [("P1.x", "x_m"), ("P1.y", "y_m")])


def double_fourbar(history):
    ref = read_csv(os.path.join(REF, "derived_double_fourbar_N2_10s_dt0.01.csv"))
    return max_error(history, ref, [("B0.x", "x_B0_m"), ("B0.y", "y_B0_m")])


def slider_crank(history):
    worst = 0.0
    for row in history:
        t = float(row["t"])
        th = math.pi / 4 + 2 * math.pi * t
        exact = 0.1 * math.cos(th) + math.sqrt(0.09 - (0.1 * math.sin(th)) ** 2)
        worst = max(worst, abs(float(row["B.x"]) - exact))
    return worst


def andrews(history):
    last = history[-1]
    if abs(float(last["t"]) - 0.03) > 1e-9:
        return math.nan
    return abs(float(last["OF.theta"]) - ANDREWS_BETA)


def spatial_slider_crank(history):
    ref = read_csv(os.path.join(REF, "spatial", "slider_crank_3d.csv"))
    return max_error(history, ref, [("slider.x", "slider_x")], time_column="t")


def light_cartpole(history):
    """The benchmark's score e (docs/examples.md)."""
    ref = read_csv(os.path.join(REF, "derived_light_cartpole_10s_dt0.01.csv"))
    got = samples(history, ["cart.x", "cart.y", "tip.x", "tip.y"])
    total, count = 0.0, 0
    for row in ref:
        t = round(float(row["t_s"]), 6)
        if t not in got:
            return math.nan
        cx, cy, tx, ty = got[t]
        theta = math.atan2(tx - cx, cy - ty)
        d_theta = math.remainder(theta - float(row["theta_rad"]), 2 * math.pi)
        total += (cx - float(row["x_m"])) ** 2 + d_theta**2
        count += 1
    return math.sqrt(total / count)


# model: (error function, output interval [s], tolerances, what the error is)
MODELS = {
    "pendulum": (pendulum, 0.01, [1e-4, 1e-6, 1e-8, 1e-10], "max |P1 − DOP853| over 10 s [m]"),
    "slider-crank": (slider_crank, 0.01, [1e-4, 1e-6, 1e-8, 1e-10], "max |x_B − closed form| [m]"),
    "double-fourbar": (double_fourbar, 0.01, [1e-4, 1e-6, 1e-8, 1e-10], "max |B0 − 1-DOF reduction| over 10 s [m]"),
    "andrews": (andrews, 1e-3, [1e-3, 1e-4, 1e-5, 1e-6, 1e-7], "|β(0.03 s) − IVP Test Set| [rad]"),
    "spatial-slider-crank": (spatial_slider_crank, 0.01, [1e-4, 1e-6, 1e-8, 1e-10], "max |x_slider − minimal-coordinate DOP853| over 5 s [m]"),
}

PAIRS = [
    ("generalized-alpha", "stabilized-index2"),
    ("hht", "stabilized-index2"),
    ("lms2", "stabilized-index2"),
    ("lms3", "stabilized-index2"),
    ("ss2", "stabilized-index2"),
    ("bathe", "stabilized-index2"),
    ("esdirk3-4", "stabilized-index2"),
    ("generalized-alpha", "index3"),
    ("lms2", "index3"),
    ("ss2", "index3"),
    ("esdirk3-4", "index3"),
    ("generalized-alpha", "tangent-space"),
    ("dopri5", "projection"),
]


def all_pairs(binary):
    """Every scheme x formulation pair `dynastep formulations` lists as compatible."""
    text = subprocess.run([binary, "formulations"], capture_output=True, text=True, check=True).stdout
    pairs, formulation = [], None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            formulation = line.split()[0]
        elif line.strip().startswith("schemes:"):
            for scheme in line.split(":", 1)[1].split(","):
                pairs.append((scheme.strip(), formulation))
    return pairs


def run(binary, model, scheme, formulation, rtol, interval, extra, timeout):
    """One run; returns (status, steps, history rows or None, note)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "run", "--example", model, "--scheme", scheme, "--formulation", formulation,
               "--rtol", f"{rtol:g}", "--atol", f"{rtol:g}", "--output-interval", f"{interval:g}",
               "--out", out, "-q"] + extra
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timeout", None, None, f"over {timeout} s"
        summary_path = os.path.join(out, "summary.json")
        if not os.path.exists(summary_path):
            return "refused", None, None, proc.stderr.strip().splitlines()[0] if proc.stderr else ""
        summary = json.load(open(summary_path))
        history = read_csv(os.path.join(out, "history.csv"))
        status = "ok" if proc.returncode == 0 else "failed"
        note = "" if status == "ok" else proc.stderr.strip().splitlines()[0]
        return status, summary.get("steps"), history, note


def verdict(errors, floor):
    """good when every run completed and the errors fall (see the module documentation)."""
    if any(e is None or math.isnan(e) for e in errors):
        return "poor"
    falls = all(b <= 2 * max(a, floor) for a, b in zip(errors, errors[1:]))
    overall = errors[-1] <= errors[0] / 100 or errors[-1] <= 10 * floor
    return "good" if falls and overall else "poor"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "dynastep"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--pairs", default=",".join(f"{s}/{f}" for s, f in PAIRS))
    ap.add_argument("--step-control", default=None, help="per-step or per-unit-step for every model (default: each example's own)")
    ap.add_argument("--all-pairs", action="store_true", help="every compatible pair instead of --pairs")
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    pairs = all_pairs(args.bin) if args.all_pairs else [tuple(p.split("/")) for p in args.pairs.split(",")]
    extra = ["--step-control", args.step_control] if args.step_control else []
    verdicts = {}
    for model in args.models.split(","):
        measure, interval, tolerances, what = MODELS[model]
        # The references' own accuracy: Andrews' PSIDE value to ~1e-10, the DOP853 files to ~1e-9.
        floor = 1e-9
        print(f"\n### {model}: {what}\n")
        print("| scheme | formulation | " + " | ".join(f"rtol {r:g}" for r in tolerances) + " | verdict |")
        print("|---|---|" + "---|" * len(tolerances) + "---|")
        for scheme, formulation in pairs:
            cells, errors = [], []
            for rtol in tolerances:
                status, steps, history, note = run(args.bin, model, scheme, formulation, rtol,
                                                   interval, extra, args.timeout)
                if status == "ok":
                    e = measure(history)
                    errors.append(e)
                    cells.append(f"{e:.1e} ({steps} steps)")
                else:
                    errors.append(None)
                    cells.append(status)
                    if status == "refused":
                        print(f"<!-- {scheme}/{formulation}: {note} -->", file=sys.stderr)
                sys.stderr.write(f"{model} {scheme}/{formulation} {rtol:g}: {cells[-1]} {note[:120]}\n")
            v = verdict(errors, floor)
            verdicts.setdefault((scheme, formulation), []).append(v)
            print(f"| {scheme} | {formulation} | " + " | ".join(cells) + f" | {v} |")
    print("\n### Summary\n")
    print("| scheme | formulation | models where the error falls with rtol |")
    print("|---|---|---|")
    for (scheme, formulation), vs in verdicts.items():
        print(f"| {scheme} | {formulation} | {vs.count('good')} of {len(vs)} |")


if __name__ == "__main__":
    main()
