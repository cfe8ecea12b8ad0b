#!/usr/bin/env python3
"""Every table of docs/*.md and README.md says how its numbers were made; the fast ones are rerun.

    python3 scripts/docs_tables.py --check              # every table has a valid marker
    python3 scripts/docs_tables.py --list               # one line per table: page:line, id, check, time
    python3 scripts/docs_tables.py --rerun-fast BIN     # rerun the fast tables with BIN as `dynastep`
    python3 scripts/docs_tables.py --rerun-fast BIN --only ID[,ID...] --keep DIR

--check and --rerun-fast exit 1 with one line per problem (page:line: ...). Standard library only.
CI (.ci/run) runs --check, and --rerun-fast on a release build.

The marker
----------
An HTML comment directly above the table (blank lines between them are allowed; inside a list item
the comment is indented like the table). A table that holds measured numbers gets

    <!-- table: acceleration-level/double-fourbar-fixed-steps
    command: dynastep sweep --example double-fourbar ... --formulation F   (F = each column)
    output: prints
    check: fast
    tolerance: 5%
    time: 4 s
    made: 2026-11-26
    -->

  table      an id, unique over the docs; the key of the rerun mapping below (RERUN).
  command    how the numbers are made (repeat the line for several commands), run from the
             repository root; capitals (F, H, R, S, T) stand for a row's or a column's value. `none`
             when no command makes them (measured by hand, by an old build, or with tools outside the
             repository); say how in `note`.
  output     `rewrites`: the command writes the table itself (bench/run.py writes
             docs/performance.md); `prints`: it prints the numbers or writes them to files
             (summary.json, sweep.csv, compare.csv, a CSV under docs/figures), and the table was
             copied from them.
  check      `fast`: a `dynastep` command of seconds that `--rerun-fast` reruns and compares, cell by
             cell, through the mapping in RERUN; `slow`: not rerun by CI, because it takes long, needs
             a cargo build (a test that prints the table), another program (Exudyn, numpy), or because
             its cells are sentences no script parses; `none`: no command makes it.
  tolerance  fast tables: how far a number may move, beyond the rounding of its printed digits:
             `5%` (relative), `abs 1e-12` (absolute), both (`5%, abs 1e-12`), or `digits` (the
             printed digits must hold). A cell of the mapping may set its own.
  time       how long the command takes (release build, one core of this 2-core machine).
  made       YYYY-MM-DD: when the numbers were last made (required unless check is fast; for a fast
             table it is the date the cells were last regenerated). Dates taken from the version
             history say so.
  note       anything else (optional, repeatable).

A table of definitions, options or defaults (no measurement) gets a one-line marker,
`<!-- table: reference -->` (optionally `<!-- table: reference: why -->`). Every table must have one
of the two, so that a new table is classified by whoever adds it; `--check` enforces it.

Which tables count as measured: a table is measured when any of its cells holds a number that
comes out of running something (an error, an energy, a count of steps or iterations, a time, a
spectral radius, a verdict about such numbers), including tables that set dynastep's numbers beside a
paper's. Tables of fields, defaults, registry properties, formulas and closed-form constants (the
scheme table's Ω_crit = √6 …) are reference tables even when they hold numbers.

Rerun
-----
`--rerun-fast BIN` runs, for each table with `check: fast`, the commands of its entry in RERUN with
BIN in place of `dynastep` (in a temporary directory; `--keep DIR` keeps the run folders), takes
the numbers from their summary.json, sweep.csv, compare.csv, history.csv or stability output as
the entry says, and compares them with the numbers printed in the named cells. A cell passes when
|binary − doc| <= rel·|doc| + abs + half a unit of the doc's last printed digit. A cell that says a
run stops or fails ("stops at 4.601 s", "fails at 7.6 s") passes when the run stops there, to the
printed digits (the tolerance does not apply: a failure moves or it does not). Run it
niced on a loaded machine: `nice python3 scripts/docs_tables.py --rerun-fast BIN`.
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(
    os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
KEYS = {"command", "output", "check", "tolerance", "time", "made", "note"}
SEPARATOR = re.compile(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}\b")


# ------------------------------------------------------------------------------ tables, markers
class Table:
    def __init__(self, page, line, rows, marker, marker_line):
        self.page, self.line, self.rows = page, line, rows  # line: 1-based, of the header row
        self.marker, self.marker_line = marker, marker_line
        self.header = rows[0]
        self.row_lines = [line] + [line + 1 + k for k in range(1, len(rows))]

    def where(self):
        return f"{self.page}:{self.line}"

    def row(self, key):
        """The row whose first cells are `key` (a string or a tuple of strings)."""
        k = self.row_index(key)
        return None if k is None else self.rows[k]

    def row_index(self, key):
        key = (key,) if isinstance(key, str) else tuple(key)
        for k, r in enumerate(self.rows[1:], 1):
            if tuple(label(c) for c in r[:len(key)]) == tuple(label(x) for x in key):
                return k
        return None


def label(cell):
    return re.sub(r"\s+", " ", cell.replace("**", "").replace("`", "")).strip()


def split_row(line):
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip().replace("\\|", "|") for c in cells[1:-1]]


def parse_marker(text):
    """The marker's fields from the comment's text (without <!-- and -->), or an error string."""
    lines = [ln.strip() for ln in text.strip().splitlines()]
    first = lines[0]
    if not first.startswith("table:"):
        return None
    ident = first[len("table:"):].strip()
    if ident == "reference" or ident.startswith("reference:") or ident.startswith("reference "):
        return {"table": "reference"}
    fields = {"table": ident, "command": [], "note": []}
    for ln in lines[1:]:
        if not ln:
            continue
        m = re.match(r"^([a-z]+):\s*(.*)$", ln)
        if not m or m.group(1) not in KEYS:
            return f"marker line not understood: {ln!r} (keys: {', '.join(sorted(KEYS))})"
        k, v = m.groups()
        if k in ("command", "note"):
            fields[k].append(v.strip("`") if k == "command" else v)
        elif k in fields:
            return f"marker repeats {k}"
        else:
            fields[k] = v
    return fields


def tables_of(page):
    path = os.path.join(ROOT, page)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i, fence = [], 0, False
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            fence = not fence
        if (not fence and lines[i].lstrip().startswith("|") and i + 1 < len(lines)
                and SEPARATOR.match(lines[i + 1])):
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            rows = [split_row(lines[i])] + [split_row(ln) for ln in lines[i + 2:j]]
            marker, marker_line = None, None
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            if k >= 0 and lines[k].rstrip().endswith("-->"):
                s = k
                while s >= 0 and "<!--" not in lines[s]:
                    s -= 1
                if s >= 0:
                    body = "\n".join(lines[s:k + 1])
                    body = body[body.index("<!--") + 4:body.rindex("-->")]
                    marker, marker_line = parse_marker(body), s + 1
            out.append(Table(page, i + 1, rows, marker, marker_line))
            i = j
        else:
            i += 1
    return out


def all_tables():
    return [t for p in PAGES for t in tables_of(p)]


def tolerance(text):
    """(relative, absolute) from a marker's tolerance field."""
    if text is None:
        return None
    rel, ab = None, 0.0
    for part in re.split(r"[,;]", text):
        part = part.strip()
        m = re.match(r"^([0-9.e+-]+)\s*%", part)
        if m:
            rel = float(m.group(1)) / 100
        elif part == "digits":
            rel = 0.0
        elif re.match(r"^abs\s+[0-9.e+-]+$", part):
            ab = float(part.split()[1])
        elif part:
            return None
    return (rel if rel is not None else 0.0, ab) if (rel is not None or ab) else None


def check_markers(tables):
    problems, seen = [], {}
    for t in tables:
        m = t.marker
        if m is None:
            problems.append(f"{t.where()}: table without a marker (<!-- table: ID ... --> or "
                            "<!-- table: reference -->) directly above it")
            continue
        if isinstance(m, str):
            problems.append(f"{t.page}:{t.marker_line}: {m}")
            continue
        if m["table"] == "reference":
            continue
        where = f"{t.page}:{t.marker_line}"
        ident = m["table"]
        if not re.match(r"^[a-z0-9][a-z0-9./-]*$", ident):
            problems.append(f"{where}: table id {ident!r}: use lower case, digits, - . /")
        if ident in seen:
            problems.append(f"{where}: table id {ident} also at {seen[ident]}")
        seen[ident] = where
        for key in ("check",) + (("output", "time") if m.get("check") != "none" else ()):
            if key not in m:
                problems.append(f"{where}: {ident}: no {key}")
        if not m["command"]:
            problems.append(f"{where}: {ident}: no command (write `command: none` and a note)")
        if m.get("output") not in (None, "prints", "rewrites"):
            problems.append(f"{where}: {ident}: output is prints or rewrites, not {m['output']!r}")
        check = m.get("check")
        if check not in (None, "fast", "slow", "none"):
            problems.append(f"{where}: {ident}: check is fast, slow or none, not {check!r}")
        if check == "none" and m["command"] != ["none"]:
            problems.append(f"{where}: {ident}: check none but a command is named")
        if m["command"] == ["none"] and check != "none":
            problems.append(f"{where}: {ident}: no command, so check must be none")
        if check != "fast" and not DATE.match(m.get("made", "")):
            problems.append(f"{where}: {ident}: check {check}: needs made: YYYY-MM-DD")
        if "made" in m and not DATE.match(m["made"]):
            problems.append(f"{where}: {ident}: made is YYYY-MM-DD, not {m['made']!r}")
        if check == "fast":
            if tolerance(m.get("tolerance")) is None:
                problems.append(f"{where}: {ident}: fast table without a tolerance it can parse")
            if not all(c.startswith("dynastep ") for c in m["command"]):
                problems.append(f"{where}: {ident}: a fast table's commands are dynastep commands")
            if ident not in RERUN:
                problems.append(f"{where}: {ident}: check fast but scripts/docs_tables.py has no "
                                "rerun mapping for it")
    for ident in RERUN:
        if ident not in seen:
            problems.append(f"scripts/docs_tables.py: rerun mapping for {ident}, which no table has")
    return problems


# ------------------------------------------------------------------------------------- numbers
NUMBER = re.compile(r"(?<![\w.])[-−+]?(?:\d{1,3}(?:[  \u202f]\d{3})+(?!\d)|\d+)(?:\.\d+)?"
                    r"(?:[eE][-−+]?\d+)?")


def numbers(cell):
    """The numbers of a cell, each with half a unit of its last printed digit."""
    out = []
    for m in NUMBER.finditer(cell.replace("**", "")):
        tok = re.sub(r"[  \u202f]", "", m.group(0)).replace("−", "-")
        mant, _, exp = tok.lower().partition("e")
        decimals = len(mant.split(".")[1]) if "." in mant else 0
        half = 0.5 * 10.0 ** ((int(exp) if exp else 0) - decimals)
        out.append((float(tok), half))
    return out


STOP = re.compile(r"\b(stops|fails|stalls|blows up)\b")


class Cell:
    """Expected cell: `values` are the binary's numbers for the cell's numbers at `index` (default
    0, 1, ...; every number of the cell counts, "√3 = 1.732051" holds 3 and 1.732051); `stopped`
    the time a failed run stopped at, or `stops`: `values` are the times several failed runs
    stopped at ("fails at 0.18 / 0.045 / 0.011 s"); the cell must then say so."""

    def __init__(self, row, col, values=(), index=None, stopped=None, stops=False, tol=None,
                 what=""):
        self.row, self.col, self.values = row, col, list(values)
        self.index = list(index) if index is not None else list(range(len(self.values)))
        self.stopped, self.stops, self.tol, self.what = stopped, stops, tol, what


def compare(table, cells, tol):
    problems = []
    for c in cells:
        k = table.row_index(c.row)
        row = None if k is None else table.rows[k]
        where = f"{table.page}:{table.row_lines[k]}" if k is not None else table.where()
        key = c.row if isinstance(c.row, str) else ", ".join(c.row)
        name = f"{where}: {table.marker['table']}: row {label(key)!r}, " \
               f"column {label(table.header[c.col]) or c.col!r}"
        if row is None or c.col >= len(row):
            problems.append(f"{name}: no such cell")
            continue
        text = row[c.col]
        nums = numbers(text)
        says_stop = bool(STOP.search(text))
        if c.stopped is not None or c.stops:
            values, index = ([c.stopped], [0]) if c.stopped is not None else (c.values, c.index)
            if not says_stop:
                problems.append(f"{name}: the doc gives {text!r}, the run stops at "
                                f"{', '.join(f'{v:.4g}' for v in values)} s")
                continue
        else:
            if says_stop:
                problems.append(f"{name}: the doc says {text[:60]!r}, the run completes "
                                f"({', '.join(f'{v:.3g}' for v in c.values)})")
                continue
            values, index = c.values, c.index
        # A time a run stops at is checked to the printed digits: a failure either moves or not.
        rel, ab = c.tol or ((0.0, 0.0) if c.stopped is not None or c.stops else tol)
        for v, k in zip(values, index):
            if k >= len(nums):
                problems.append(f"{name}: the doc cell {text!r} has no number {k}")
                continue
            d, half = nums[k]
            if not (math.isfinite(v) and abs(v - d) <= rel * abs(d) + ab + half):
                what = f" ({c.what})" if c.what else ""
                problems.append(f"{name}{what}: doc {d:.6g}, binary {v:.6g}")
    return problems


# ------------------------------------------------------------------------------------- running
class Runner:
    def __init__(self, binary, work):
        self.binary, self.work, self.count = binary, work, 0

    def run(self, args, name=None):
        """Runs `BIN args --quiet --out DIR`; returns DIR (the run may have failed: exit 1)."""
        self.count += 1
        out = os.path.join(self.work, name or f"run-{self.count:04d}")
        cmd = [self.binary] + list(args) + ["--quiet", "--out", out]
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if p.returncode not in (0, 1) or not os.path.isdir(out):
            raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return out

    def summary(self, args, name=None):
        with open(os.path.join(self.run(args, name), "summary.json")) as f:
            return json.load(f)

    def stdout(self, args):
        self.count += 1
        p = subprocess.run([self.binary] + list(args), cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return p.stdout


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def history(run_dir):
    return read_csv(os.path.join(run_dir, "history.csv"))


def reference(name):
    return read_csv(os.path.join(ROOT, "reference", name))


def stopped_at(summary):
    """The time a failed run reached, or None when it completed."""
    if summary["status"] == "completed":
        return None
    return summary["final_state"]["t"]


def at_times(rows, times, col="t"):
    """The history rows at the given times (to 1e-9 s)."""
    by_t = {round(float(r[col]), 9): r for r in rows}
    return [by_t[round(t, 9)] for t in times]


DOUBLE_FOURBAR_B0_10 = (0.3284581115, 0.9445185382)
ANDREWS_BODIES = ["OF", "FE", "EBD", "EG", "AG", "HE", "AH"]


def andrews_reference():
    return [float(r["y_at_t0.03"]) for r in reference("andrews_ivptestset_reference.csv")[:7]]


def andrews_angles(summary):
    """(β, Θ, γ, Φ, δ, Ω, ε) of the test set from the body angles (docs/examples.md)."""
    th = {b: summary["final_state"]["bodies"][b][2] for b in ANDREWS_BODIES}
    return [th["OF"], th["FE"] - th["OF"], th["EBD"], th["EG"] - th["AG"], th["AG"],
            th["HE"] - th["AH"], th["AH"]]


def crank_error(summary):
    return abs(summary["final_state"]["bodies"]["OF"][2] - andrews_reference()[0])


# ------------------------------------------------------------------- the mappings, one per table
def accel_double_fourbar_fixed(r):
    """acceleration_level.md, "Where it stops holding": B0 error and max |E − E0| per cell."""
    cells = []
    schemes = ["rk3", "rk4", "rkf45", "dopri5", "abm"]
    rows = ["rk3", "rk4", "rkf45", "dopri5", "abm (order 12)"]
    for col, f in enumerate(["direct", "baumgarte", "projection", "partitioning", "hybrid"], 1):
        out = r.run(["sweep", "--example", "double-fourbar", "--scheme", ",".join(schemes),
                     "--dt", "1e-3", "--formulation", f, "--jobs", "1"], f"double-fourbar-{f}")
        for row in read_csv(os.path.join(out, "sweep.csv")):
            k = int(row["case"])
            with open(os.path.join(out, f"case-{k:04d}", "summary.json")) as fh:
                s = json.load(fh)
            if row["status"] != "completed":
                cells.append(Cell(rows[k], col, stopped=float(row["t_reached"])))
                continue
            b0 = s["final_state"]["markers"]["B0"]
            values = [math.dist(b0, DOUBLE_FOURBAR_B0_10), float(row["max_energy_error"])]
            if s.get("repartitions"):
                values.append(s["repartitions"])
            cells.append(Cell(rows[k], col, values))
    return cells


def accel_double_fourbar_rtol(r):
    """acceleration_level.md, the rtol table: Adams PECE, partitioning and hybrid."""
    cells = []
    rtols = ["1e-5", "1e-6", "1e-7", "1e-8", "1e-9", "1e-10"]
    for f in ["partitioning", "hybrid"]:
        for col, rtol in enumerate(rtols, 1):
            s = r.summary(["run", "--example", "double-fourbar", "--scheme", "abm",
                           "--formulation", f, "--rtol", rtol])
            t = stopped_at(s)
            if t is not None:
                cells.append(Cell(f, col, stopped=t))
            else:
                b0 = s["final_state"]["markers"]["B0"]
                cells.append(Cell(f, col, [math.dist(b0, DOUBLE_FOURBAR_B0_10),
                                           s["max_energy_error"]]))
    return cells


def accel_andrews_rtol(r):
    """acceleration_level.md, Andrews at rtol = 1e-8: error, steps, rejected (times not checked)."""
    out = r.run(["compare", "--example", "andrews", "--schemes", "abm,dopri5,rkf45",
                 "--formulations", "direct,baumgarte,projection,partitioning,hybrid",
                 "--rtol", "1e-8", "--reference", "reference/andrews_ivptestset_crank_angle.csv"])
    cells = []
    table = CURRENT_TABLE[0]
    for row in read_csv(os.path.join(out, "compare.csv")):
        col = ["abm", "dopri5", "rkf45"].index(row["scheme"]) + 1
        values, index = [float(row["error"]), int(row["steps"])], [0, 1]
        doc = table.row(row["formulation"])
        if doc is not None and "rejected" in doc[col]:
            values.append(int(row["rejected_steps"]))
            index.append(2)
        cells.append(Cell(row["formulation"], col, values, index))
    return cells


def examples_pendulum(r):
    """examples.md, `pendulum`: generalized-α, h = 1e-3 s."""
    out = r.run(["run", "--example", "pendulum"])
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    p1 = s["final_state"]["markers"]["P1"]
    ref = (-0.2750874626, -0.9614192051)
    rows = history(out)

    def worst(refrows, xcol, ycol):
        refrows = [x for x in refrows if float(x["t_s"]) <= 10.0 + 1e-9
                   and abs(float(x["t_s"]) / 0.5 - round(float(x["t_s"]) / 0.5)) < 1e-9]
        got = at_times(rows, [float(x["t_s"]) for x in refrows])
        return max(max(abs(float(g["P1.x"]) - float(x[xcol])), abs(float(g["P1.y"]) - float(x[ycol])))
                   for g, x in zip(got, refrows))

    return [Cell("P1 at 10 s", 1, p1),
            Cell("error at 10 s", 1, [p1[0] - ref[0], p1[1] - ref[1]]),
            Cell("max |P1 − ref| every 0.5 s, derived file", 1,
                 [worst(reference("derived_simple_pendulum_10s_dt0.01.csv"), "x_m", "y_m")]),
            Cell("max |P1 − ref| every 0.5 s, official file", 1,
                 [worst(reference("gdlc06_A01_simple_pendulum_P1_0-2000s.csv"), "x_P1_m",
                        "y_P1_m")]),
            Cell("max |E − E0|", 1, [s["max_energy_error"]])]


def examples_double_fourbar(r):
    """examples.md, `double-fourbar`: generalized-α (ρ∞ = 0.95) at three steps."""
    cells = []
    ref = reference("derived_double_fourbar_N2_10s_dt0.01.csv")
    ref = [x for x in ref if abs(float(x["t_s"]) / 0.5 - round(float(x["t_s"]) / 0.5)) < 1e-9]
    for h in ["1e-2", "1e-3", "1.25e-4"]:
        out = r.run(["run", "--example", "double-fourbar", "--param", "rho_inf=0.95", "--dt", h,
                     "--output-interval", "0.01"])
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        b0 = s["final_state"]["markers"]["B0"]
        err = max(abs(b0[0] - DOUBLE_FOURBAR_B0_10[0]), abs(b0[1] - DOUBLE_FOURBAR_B0_10[1]))
        cells += [Cell(h, 1, b0), Cell(h, 2, [err]), Cell(h, 4, [s["max_energy_error"]])]
        if h != "1e-2":
            got = at_times(history(out), [float(x["t_s"]) for x in ref])
            worst = max(max(abs(float(g["B0.x"]) - float(x["x_B0_m"])),
                            abs(float(g["B0.y"]) - float(x["y_B0_m"]))) for g, x in zip(got, ref))
            cells.append(Cell(h, 3, [worst]))
    return cells


def examples_nfourbar40(r):
    """examples.md, `nfourbar40`: B0 against the ADAMS file every 0.05 s (wall times not checked)."""
    adams = reference("gdlc06_A02_N40_fourbar_B0_0-20s.csv")
    cells = []
    for key, h, t_end in [("0–0.5 s, h = 2e-3", "2e-3", 0.5), ("0–20 s, h = 2e-3", "2e-3", 20.0),
                          ("0–20 s, h = 1e-3", "1e-3", 20.0)]:
        out = r.run(["run", "--example", "nfourbar40", "--dt", h, "--t-end", repr(t_end),
                     "--output-interval", "0.05"])
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        rows = [x for x in adams if float(x["t_s"]) <= t_end + 1e-9]
        got = at_times(history(out), [float(x["t_s"]) for x in rows])
        worst = max(max(abs(float(g["B0.x"]) - float(x["x_B0_m"])),
                        abs(float(g["B0.y"]) - float(x["y_B0_m"]))) for g, x in zip(got, rows))
        values, index = [worst], [0]
        if t_end == 0.5 or h == "1e-3":
            values.append(len(rows))
            index.append(1)
        cells.append(Cell(key, 1, values, index))
        if t_end == 20.0:
            cells.append(Cell(key, 2, [s["max_energy_error"]]))
    return cells


def examples_andrews_angles(r):
    """examples.md, `andrews`: error of each angle at 0.03 s, generalized-α (ρ∞ = 0.8)."""
    ref = andrews_reference()
    cells = []
    for h in ["5e-5", "4e-5", "2e-5", "1e-5"]:
        s = r.summary(["run", "--example", "andrews", "--dt", h])
        errors = [a - b for a, b in zip(andrews_angles(s), ref)]
        cells += [Cell(h, k + 1, [e]) for k, e in enumerate(errors)]
        cells.append(Cell(h, 8, [s["max_energy_error"]]))
    return cells


def examples_andrews_implicit(r):
    """examples.md, every implicit family member at h = 9e-6 s on Andrews' squeezer."""
    groups = [["lms2"], ["lms3"], ["lms4"], ["ss2"], ["ss3"], ["ss4"], ["bathe"],
              ["msstc3", "msstc4", "msstc5"], ["mssth3", "mssth4", "mssth5"],
              ["esdirk3-4", "esdirk3-5", "esdirk4-6"]]
    cells = []
    for group in groups:
        runs = [r.summary(["run", "--example", "andrews", "--scheme", s, "--dt", "9e-6",
                           "--output-interval", "1e-3"]) for s in group]
        key = " / ".join(group)
        cells.append(Cell(key, 1, [crank_error(s) for s in runs]))
        cells.append(Cell(key, 2, [s["newton_iterations"]["total"] for s in runs],
                          tol=(0.01, 0.0)))
    return cells


def slider_x(t):
    th = math.pi / 4 + 2 * math.pi * t
    return 0.1 * math.cos(th) + math.sqrt(0.3 ** 2 - (0.1 * math.sin(th)) ** 2)


def examples_slider_crank(r):
    """examples.md, `slider-crank`: slider against its closed form, energy balance."""
    out = r.run(["run", "--example", "slider-crank", "--scheme", "generalized-alpha",
                 "--dt", "1e-3"])
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    rows = history(out)
    dx = max(abs(float(x["B.x"]) - slider_x(float(x["t"]))) for x in rows)
    dy = max(abs(float(x["B.y"])) for x in rows)
    cells = [Cell(("generalized-α", "1e-3"), 2, [dx], tol=(0.0, 1e-15)),
             Cell(("generalized-α", "1e-3"), 3, [dy], tol=(0.0, 1e-15)),
             Cell(("generalized-α", "1e-3"), 4, [s["max_energy_error"]])]
    for h in ["2e-3", "1e-3"]:
        s = r.summary(["run", "--example", "slider-crank", "--scheme", "trapezoidal", "--dt", h])
        cells.append(Cell(("trapezoidal", h), 4, [s["max_energy_error"]]))
    return cells


def examples_spring_linkage(r):
    """examples.md, `spring-linkage`: `dynastep equilibrium` by its three methods."""
    stable, unstable = -1.292423675411781, 2.140565244325428
    cases = [("newton", [], stable), ("potential", ["--method", "potential"], stable),
             ("settle", ["--method", "settle", "--dt", "1e-3", "--damping", "20",
                         "--v-tol", "1e-10", "--a-tol", "1e-7"], stable),
             ("newton from θ0 = 2.1", ["--set", "bodies.crank.theta=2.1"], unstable)]
    cells = []
    for key, args, want in cases:
        s = r.summary(["equilibrium", "--example", "spring-linkage"] + args)
        e = s["equilibrium"]
        err = abs(s["final_state"]["bodies"]["crank"][2] - want)
        row = next(x for x in CURRENT_TABLE[0].rows[1:] if label(x[0]).startswith(key))
        cells += [Cell(label(row[0]), 1, [err], tol=(0.1, 1e-13)),
                  Cell(label(row[0]), 2, [e["residual"]], tol=(0.1, 1e-13)),
                  Cell(label(row[0]), 3, [e["iterations"]], tol=(0.01, 0.0))]
        if "K_r" in row[4]:
            cells.append(Cell(label(row[0]), 4, [e["stability"]["eigenvalues"][0]], index=[0]))
    return cells


def cartpole_score(samples):
    ref = reference("derived_light_cartpole_10s_dt0.01.csv")
    assert len(samples) == len(ref), (len(samples), len(ref))
    total = 0.0
    for (t, x, th), row in zip(samples, ref):
        assert abs(t - float(row["t_s"])) < 1e-9
        total += (x - float(row["x_m"])) ** 2 + (th - float(row["theta_rad"])) ** 2
    return math.sqrt(total / len(ref))


def cartpole_rows(r, example, scheme, rtol):
    args = ["run", "--example", example, "--scheme", scheme, "--rtol", rtol, "--atol", rtol]
    if example == "light-cartpole":
        # The example's own pair is ESDIRK3(2)4 in stabilized index 2; this table is index 3.
        args += ["--h-min", "1e-14", "--formulation", "index3"]
    out = r.run(args)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    rows = history(out)
    if example == "light-cartpole":
        samples = [(float(x["t"]), float(x["cart.x"]),
                    math.atan2(float(x["tip.x"]) - float(x["cart.x"]),
                               float(x["cart.y"]) - float(x["tip.y"]))) for x in rows]
    else:
        samples = [(float(x["t"]), float(x["x"]), float(x["theta"])) for x in rows]
    return s, cartpole_score(samples)


def examples_light_cartpole(r):
    """examples.md, `light-cartpole` (index 3): steps, rejected, smallest h, e (times not checked)."""
    cells = []
    for row in CURRENT_TABLE[0].rows[1:]:
        scheme, rtol = label(row[0]), label(row[1])
        s, e = cartpole_rows(r, "light-cartpole", scheme, rtol)
        cells += [Cell((scheme, rtol), 2, [s["steps"]]), Cell((scheme, rtol), 3, [s["rejected_steps"]]),
                  Cell((scheme, rtol), 4, [s["h"]["min"]]), Cell((scheme, rtol), 5, [e])]
    return cells


def examples_light_cartpole_minimal(r):
    """examples.md, `light-cartpole-minimal`: steps, rejected, e (times not checked)."""
    cells = []
    for row in CURRENT_TABLE[0].rows[1:]:
        scheme, rtol = label(row[0]), label(row[1])
        s, e = cartpole_rows(r, "light-cartpole-minimal", scheme, rtol)
        cells += [Cell((scheme, rtol), 2, [s["steps"]]), Cell((scheme, rtol), 3, [s["rejected_steps"]],
                                                             tol=(0.0, 2.0)),
                  Cell((scheme, rtol), 4, [e])]
    return cells


def examples_flyball(r):
    """examples.md, `flyball-governor`: RMS and max error of the slider coordinate s."""
    ref = reference("spatial/flyball_governor.csv")
    cells = []
    for col, h in [(1, "1e-3"), (2, "5e-4")]:
        out = r.run(["run", "--example", "flyball-governor", "--dt", h])
        got = at_times(history(out), [float(x["t"]) for x in ref])
        d = [float(g["slider.z"]) - float(x["s"]) for g, x in zip(got, ref)]
        cells.append(Cell("RMS error of s", col, [math.sqrt(sum(v * v for v in d) / len(d))]))
        cells.append(Cell("max error of s", col, [max(abs(v) for v in d)]))
    return cells


def examples_andrews_rtol(r):
    """examples.md, Andrews' squeezer with error control, per unit step and per step."""
    cells = []
    for rtol in ["1e-3", "1e-4", "1e-5", "1e-6", "1e-7"]:
        for first, extra in [(1, []), (4, ["--step-control", "per-step"])]:
            s = r.summary(["run", "--example", "andrews", "--rtol", rtol] + extra)
            e = crank_error(s)
            cells += [Cell(rtol, first, [s["steps"]]), Cell(rtol, first + 1, [e]),
                      Cell(rtol, first + 2, [e / float(rtol)])]
    return cells


def examples_esdirk_rtol(r):
    """examples.md, the ESDIRK pairs and MSSTC(3) per unit step on Andrews' squeezer."""
    cells = []
    for row in CURRENT_TABLE[0].rows[1:]:
        scheme = label(row[0]).split(":")[0]
        for col, rtol in enumerate(["1e-3", "1e-4", "1e-5", "1e-6", "1e-7"], 1):
            s = r.summary(["run", "--example", "andrews", "--scheme", scheme, "--rtol", rtol])
            values = [crank_error(s) / float(rtol), s["steps"]]
            if "rejected" in row[0]:
                values.append(s["rejected_steps"])
            cells.append(Cell(label(row[0]), col, values))
    return cells


def schemes_lms_ss_iterations(r):
    """schemes.md, mean Newton iterations per step of LMS-k and SS-k."""
    cases = [("pendulum, 1e-3 s, 10 s", "pendulum", "1e-3", "10"),
             ("double four-bar, 1e-3 s, 10 s", "double-fourbar", "1e-3", "10"),
             ("Andrews, 1e-5 s, 0.03 s", "andrews", "1e-5", "0.03")]
    cells = []
    for key, example, h, t_end in cases:
        for col, scheme in enumerate(["lms2", "ss2", "lms3", "ss3", "lms4", "ss4"], 1):
            s = r.summary(["run", "--example", example, "--scheme", scheme, "--dt", h,
                           "--t-end", t_end])
            cells.append(Cell(key, col, [s["newton_iterations"]["mean_per_step"]]))
    return cells


def stability_json(r, scheme, params):
    args = ["stability", "--scheme", scheme, "--json"]
    for p in params:
        args += ["--param", p]
    return json.loads(r.stdout(args))


def stability_rho(r, scheme, params, omegas):
    out = os.path.join(r.work, f"stability-{scheme}-{len(os.listdir(r.work))}")
    args = ["stability", "--scheme", scheme, "--omega-min", repr(min(omegas)),
            "--omega-max", repr(max(omegas)), "--points", str(len(omegas)), "--out", out]
    for p in params:
        args += ["--param", p]
    r.stdout(args)
    return [float(x["spectral_radius"]) for x in read_csv(os.path.join(out, "stability.csv"))]


def schemes_g4_g5_stability(r):
    """schemes.md, stability of G4 and G5 from the scheme itself."""
    g4 = lambda a: stability_json(r, "g4", [f"alpha={a}"])["omega_crit"]  # noqa: E731
    rho_g4 = stability_rho(r, "g4", ["alpha=1.25"], [0.001, 0.01, 0.1])
    rho_g5 = stability_rho(r, "g5", [], [0.1, 0.6])
    g5_other = stability_json(r, "g5", ["alpha=1.2", "beta=0.25", "gamma=0.3333333333333333",
                                        "zeta=0.5"])
    digits = (0.0, 0.0)
    # Number k of a cell counts every number in it: "√3 = 1.732051" is 3 (k = 0), 1.732051 (1).
    cells = [Cell("G4(1/4, 1/3, 1/2)", 2, [g4(0.25)], tol=digits),
             Cell("G4(3/4, 1/3, 1/2)", 2, [g4(0.75)], index=[1], tol=digits),
             # "the same three values": ρ at Ω = 0.1, 0.01, 0.001 as the paper's column prints them
             Cell("G4(5/4, 1/3, 1/2)", 1, [rho_g4[2], rho_g4[1], rho_g4[0]], index=[1, 2, 3],
                  tol=digits, what="the dynastep column says: the same three values"),
             # "ρ − 1 = (4/15) Ω² (1.0027 at Ω = 0.1, 1.10 at 0.6)"
             Cell("G5(4/5, 1, 1, 1)", 2, [rho_g5[0], rho_g5[1]], index=[3, 5], tol=digits)]
    if g5_other["omega_crit"] != 0.0:
        cells.append(Cell("G5(6/5, 1/4, 1/3, 1/2)", 2, [g5_other["omega_crit"]],
                          what="the doc says unstable; Omega_crit > 0"))
    return cells


def tangent_double_fourbar(r):
    """tangent_space.md, double four-bar: energy balance in the tangent space and in index 3."""
    rows = [("Fox–Goodwin", "fox-goodwin"), ("trapezoidal", "trapezoidal"),
            ("generalized-α", "generalized-alpha")]
    cells = []
    for key, scheme in rows:
        for col, formulation in [(2, "tangent-space"), (3, "index3")]:
            values, stops = [], []
            for h in ["1e-2", "5e-3", "1e-3"]:
                s = r.summary(["run", "--example", "double-fourbar", "--formulation", formulation,
                               "--scheme", scheme, "--dt", h])
                t = stopped_at(s)
                (stops if t is not None else values).append(t if t is not None else
                                                            s["max_energy_error"])
            text = CURRENT_TABLE[0].row(key)[col]
            if len(stops) == 3:
                cells.append(Cell(key, col, stops, stops=True, what="the times the runs stop"))
            elif stops or not STOP.search(text):
                cells.append(Cell(key, col, values or stops, what=f"{len(stops)} of 3 runs stop"
                                  if stops else ""))
            else:
                cells.append(Cell(key, col, stopped=0.0, what="the doc says they stop"))
    return cells


def tangent_stiff_pendulum(r):
    """tangent_space.md, stiff pendulum: largest |θ| in the tangent space, stop of index 3."""
    cells = []
    for h in ["0.1", "0.6", "0.78", "0.79"]:
        key = f"Fox–Goodwin {h} s"
        out = r.run(["run", "--example", "stiff-pendulum", "--formulation", "tangent-space",
                     "--scheme", "fox-goodwin", "--dt", h, "--t-end", "120",
                     "--output-interval", "0", "--max-halvings", "0"])
        theta = max(abs(float(x["mass.theta"])) for x in history(out))
        cells.append(Cell(key, 1, [theta]))
        s = r.summary(["run", "--example", "stiff-pendulum", "--formulation", "index3",
                       "--scheme", "fox-goodwin", "--dt", h, "--t-end", "120",
                       "--max-halvings", "0"])
        t = stopped_at(s)
        if t is None:
            cells.append(Cell(key, 3, [], what="index 3 completes"))
        elif numbers(CURRENT_TABLE[0].row(key)[3]):
            cells.append(Cell(key, 3, stopped=t))
    return cells


def tangent_omega_max(r):
    """tangent_space.md, ω_max and the step limit of Fox–Goodwin."""
    runs = [("stiff pendulum, 120 s", ["--example", "stiff-pendulum", "--scheme", "fox-goodwin",
                                       "--formulation", "tangent-space", "--dt", "0.1",
                                       "--t-end", "120"]),
            # The pendulum row names no step or formulation: not rerun.
            ("Andrews' squeezer, 0.03 s (ω_max from an h = 1e-5 s run)",
             ["--example", "andrews", "--scheme", "fox-goodwin", "--formulation", "tangent-space",
              "--dt", "1e-5"])]
    cells = []
    for key, args in runs:
        s = r.summary(["run"] + args + ["--omega-max"])
        om = s["omega_max"]
        cells.append(Cell(key, 2, [om["max"]], index=[0]))
        cells.append(Cell(key, 3, [om["step_limit"]], index=[0]))
        if key.startswith("Andrews"):
            cells.append(Cell(key, 2, [om["t_at_max"]], index=[1], what="time of the largest value"))
    return cells


def schemes_slider_crank_multipliers(r):
    """schemes.md, slider-crank with the multi-stage schemes: the energy balance with the scheme's
    weights (the last column; LMS2's trapezoidal column is the same run)."""
    cells = []
    for row in CURRENT_TABLE[0].rows[1:]:
        scheme, h = label(row[0]).split(" ")[0], label(row[1])
        if not numbers(row[5]):
            continue
        s = r.summary(["run", "--example", "slider-crank", "--scheme", scheme, "--dt", h])
        cells.append(Cell((label(row[0]), h), 5, [s["max_energy_error"]]))
        if scheme == "lms2":
            cells.append(Cell((label(row[0]), h), 4, [s["max_energy_error"]]))
    return cells


def schemes_modified_newton(r):
    """schemes.md, the ESDIRKs on Andrews' squeezer at h = 1e-5 s, full and modified Newton:
    factorizations per step and the crank-angle error (the loop times are not checked)."""
    cells = []
    for row in CURRENT_TABLE[0].rows[1:]:
        scheme = label(row[0])
        runs = [r.summary(["run", "--example", "andrews", "--scheme", scheme, "--dt", "1e-5",
                           "--set", f'solver.newton.method="{method}"'])
                for method in ("full", "modified")]
        cells.append(Cell(scheme, 1, [s["newton_iterations"]["factorizations"] / s["steps"]
                                      for s in runs]))
        cells.append(Cell(scheme, 2, [crank_error(s) for s in runs]))
    return cells


RERUN = {
    "acceleration-level/double-fourbar-fixed-steps": accel_double_fourbar_fixed,
    "acceleration-level/double-fourbar-rtol": accel_double_fourbar_rtol,
    "acceleration-level/andrews-rtol-1e-8": accel_andrews_rtol,
    "examples/pendulum": examples_pendulum,
    "examples/double-fourbar": examples_double_fourbar,
    "examples/nfourbar40": examples_nfourbar40,
    "examples/andrews-angles": examples_andrews_angles,
    "examples/andrews-implicit-members": examples_andrews_implicit,
    "examples/slider-crank": examples_slider_crank,
    "examples/spring-linkage": examples_spring_linkage,
    "examples/light-cartpole": examples_light_cartpole,
    "examples/light-cartpole-minimal": examples_light_cartpole_minimal,
    "examples/flyball-governor": examples_flyball,
    "examples/andrews-rtol": examples_andrews_rtol,
    "examples/andrews-esdirk-rtol": examples_esdirk_rtol,
    "schemes/lms-ss-iterations": schemes_lms_ss_iterations,
    "schemes/g4-g5-stability": schemes_g4_g5_stability,
    "schemes/slider-crank-multipliers": schemes_slider_crank_multipliers,
    "schemes/modified-newton-esdirk": schemes_modified_newton,
    "tangent-space/double-fourbar": tangent_double_fourbar,
    "tangent-space/stiff-pendulum": tangent_stiff_pendulum,
    "tangent-space/omega-max": tangent_omega_max,
}
CURRENT_TABLE = [None]  # the table a mapping is producing cells for (some read its row labels)


def rerun_fast(binary, only, keep):
    binary = os.path.abspath(binary)
    work = keep or tempfile.mkdtemp(prefix="docs-tables-")
    os.makedirs(work, exist_ok=True)
    problems, start = [], time.time()
    try:
        for t in all_tables():
            m = t.marker
            if not isinstance(m, dict) or m.get("check") != "fast":
                continue
            if only and m["table"] not in only:
                continue
            if m["table"] not in RERUN:
                problems.append(f"{t.where()}: {m['table']}: no rerun mapping")
                continue
            t0, cells = time.time(), []
            CURRENT_TABLE[0] = t
            runner = Runner(binary, os.path.join(work, m["table"].replace("/", "_")))
            os.makedirs(runner.work, exist_ok=True)
            try:
                cells = RERUN[m["table"]](runner)
                found = compare(t, cells, tolerance(m["tolerance"]))
            except Exception as e:  # a mapping that cannot run is a problem, not a crash
                found = [f"{t.where()}: {m['table']}: rerun failed: {type(e).__name__}: {e}"]
            problems += found
            print(f"# {m['table']}: {len(cells)} cells, "
                  f"{runner.count} runs, {time.time() - t0:.1f} s, "
                  f"{len(found)} problem{'s' * (len(found) != 1)}", file=sys.stderr)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"# all fast tables: {time.time() - start:.1f} s", file=sys.stderr)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="every table has a valid marker")
    ap.add_argument("--list", action="store_true", help="list the tables and their markers")
    ap.add_argument("--rerun-fast", metavar="BIN", help="rerun the fast tables with this binary")
    ap.add_argument("--only", help="comma-separated table ids (with --rerun-fast)")
    ap.add_argument("--keep", metavar="DIR", help="keep the run folders here (with --rerun-fast)")
    args = ap.parse_args()
    if not (args.check or args.list or args.rerun_fast):
        ap.error("give --check, --list or --rerun-fast BIN")
    tables = all_tables()
    problems = []
    if args.list:
        for t in tables:
            m = t.marker
            if isinstance(m, dict) and m["table"] != "reference":
                print(f"{t.where()}\t{m['table']}\t{m.get('check')}\t{m.get('output')}\t"
                      f"{m.get('time')}\t{m.get('made', '')}\t{' && '.join(m['command'])}")
            else:
                print(f"{t.where()}\t{'reference' if isinstance(m, dict) else 'NO MARKER'}")
    if args.check:
        problems += check_markers(tables)
    if args.rerun_fast:
        only = set(args.only.split(",")) if args.only else None
        problems += rerun_fast(args.rerun_fast, only, args.keep)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
