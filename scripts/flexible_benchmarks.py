#!/usr/bin/env python3
"""The implicit schemes of Zhang, Zhang, Zanoni & Masarati (Multibody System Dynamics 2022) on
dynastep's flexible-beam benchmarks, with the paper's settings: Δt/n = 1e-3 s (the four-bar:
4e-3 s; n the number of implicit stages per step), ρ∞ = 0 and 0.6 where the scheme has it.

Runs `dynastep run --example MODEL --scheme S [--param rho_inf=R] --dt H` for every scheme and
prints one Markdown table per model: whether the run reached its end time (or where it stopped)
and how many of its steps dynastep took in halves (a fixed step whose Newton iteration fails, or
needs more than 8 iterations, is taken again in halves by default), the steps, the loop time and
the largest energy-balance error; a run that halved a step or stopped is run again at the
paper's step throughout (`--max-halvings 0`), and the last column says how that run ended. docs/reproductions.md shows the
output beside the paper's reported failures. Nothing is asserted here: the outcomes are observed.

Usage: python3 scripts/flexible_benchmarks.py [--bin target/release/dynastep] [--models a,b]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (scheme, implicit stages per step, has rho_inf), in the paper's order.
SCHEMES = [
    ("lms2", 1, True), ("lms3", 1, True), ("lms4", 1, True),
    ("ss2", 1, True), ("ss3", 1, True), ("ss4", 1, True),
    ("bathe", 2, True),
    ("msstc3", 3, True), ("msstc4", 4, True), ("msstc5", 5, True),
    ("mssth3", 3, False), ("mssth4", 4, False), ("mssth5", 5, False),
    ("esdirk3-4", 3, False), ("esdirk3-5", 4, False), ("esdirk4-6", 5, False),
    ("generalized-alpha", 1, True), ("hht", 1, True),
]

# Δt/n of the paper per model [s].
STEP_PER_STAGE = {"lateral-buckling": 1e-3, "flexible-fourbar": 4e-3, "cantilever": 1e-3}

# The paper runs MSSTH with rho_inf = 0 only.
MSSTH_RHO = 0.0


def runs(scheme, has_rho):
    """The (label, params) of each run of a scheme."""
    if scheme == "hht":
        # HHT reaches only rho_inf in [1/2, 1].
        return [("ρ∞ = 0.6", ["rho_inf=0.6"])]
    if scheme.startswith("ss"):
        # The paper's (and MBDyn's) start: every auxiliary equal to its derivative. dynastep's
        # default consistent start needs the jerk at the start (central differences of the
        # index-1 accelerations), which fails on the flexible four-bar.
        return [(f"ρ∞ = {r}, start = 0", [f"rho_inf={r}", "start=0"]) for r in (0.0, 0.6)]
    if has_rho:
        return [(f"ρ∞ = {r}", [f"rho_inf={r}"]) for r in (0.0, 0.6)]
    if scheme.startswith("mssth"):
        return [(f"ρ∞ = {MSSTH_RHO}", [f"rho_inf={MSSTH_RHO}"])]
    return [("", [])]


def run(binary, model, scheme, params, dt, out, max_halvings=None):
    """The run's summary.json; a run refused before it starts has none: its message instead.
    `max_halvings` None leaves dynastep's default, which takes a step whose Newton iteration fails
    (or needs more than 8 iterations) again in halves; 0 keeps the paper's fixed step throughout."""
    summary = os.path.join(out, "summary.json")
    if os.path.exists(summary):
        os.remove(summary)
    cmd = [binary, "run", "--example", model, "--scheme", scheme, "--dt", repr(dt),
           "--out", out, "-q"]
    if max_halvings is not None:
        cmd += ["--max-halvings", str(max_halvings)]
    for p in params:
        cmd += ["--param", p]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if not os.path.exists(summary):
        return {"status": "refused: " + p.stderr.strip().splitlines()[-1]}
    with open(summary) as f:
        return json.load(f)


def outcome(s):
    if s.get("status") == "completed":
        return "completes"
    t = s.get("failed_at")
    return f"stops at {t:.3f} s" if t is not None else s.get("status", "?")


def halved(s):
    """The outcome of a run, with how many steps it split."""
    split = s.get("halved_steps", 0)
    return outcome(s) + (f", {split} step{'s' if split != 1 else ''} halved" if split else "")


def table(binary, model):
    print(f"\n### {model}\n")
    print("| scheme | setting | Δt [s] | outcome | steps | loop time [s] | max energy error [J] "
          "| without halving |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for scheme, stages, has_rho in SCHEMES:
            dt = round(stages * STEP_PER_STAGE.get(model, 1e-3), 6)
            for label, params in runs(scheme, has_rho):
                out = os.path.join(tmp, "run")
                s = run(binary, model, scheme, params, dt, out)
                energy = s.get("max_energy_error")
                energy = f"{energy:.2e}" if isinstance(energy, (int, float)) else "–"
                # The same run at the paper's step throughout. A run that halved no step and
                # solved no point again is that run already: the iteration limit of a step that
                # could be halved changed nothing in it.
                fixed = "same"
                again = any("solved again" in n for n in s.get("notes", []))
                if s.get("halved_steps", 0) or again or s.get("status") != "completed":
                    fixed = outcome(run(binary, model, scheme, params, dt, out, 0))
                print(f"| {scheme} | {label} | {dt:g} | {halved(s)} | {s.get('steps', '–')} "
                      f"| {s.get('loop_time_s', 0):.2f} | {energy} | {fixed} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "dynastep"))
    ap.add_argument("--models", default="lateral-buckling")
    args = ap.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"no dynastep binary at {args.bin}: cargo build --release -p dynastep-cli")
    for model in args.models.split(","):
        table(args.bin, model)


if __name__ == "__main__":
    main()
