#!/usr/bin/env python3
"""Checks that the library's layers only point down (ARCHITECTURE.md, "Layers").

Reads every `.rs` file under crates/dynastep/src and the paths it names in code (`use crate::…`,
`crate::…::` in expressions and types, `super::super::…`), skipping comments, doc comments and test
code (files named tests.rs and everything after a `#[cfg(test)]` line). A file in folder A that names
folder B is a violation when the rule for A forbids B.

Run: python3 scripts/check_layers.py  (exit 1 and one line per violation when a rule is broken).
"""

import pathlib
import re
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "crates" / "dynastep" / "src"

# layer folder -> folders it may not name. The order of the layers, bottom up:
# linalg, state -> scheme -> catalog -> model -> system -> formulation -> analysis -> io -> study.
# (Schemes work on vectors and the state alone; the model layer reads their registry. Systems do not
# name schemes although they sit above them: the state is what they share.)
RULES = {
    "linalg": {"state", "catalog", "model", "system", "scheme", "formulation", "analysis", "io", "study"},
    "scheme": {"catalog", "model", "system", "formulation", "analysis", "io", "study"},
    "catalog": {"model", "system", "formulation", "analysis", "io", "study"},
    "model": {"system", "analysis", "formulation", "io", "study"},
    "system": {"scheme", "analysis", "formulation", "io", "study"},
    "formulation": {"analysis", "io", "study"},
    "analysis": {"io", "study"},
    "io": {"study"},
}
# Top-level files that are layers of their own (bottom of the stack).
BOTTOM = {"state.rs": "state"}
BOTTOM_FORBIDS = {"catalog", "model", "system", "scheme", "formulation", "analysis", "io", "study"}

# Upward references still to remove, each with the reason; a new one fails the check, and one listed
# here that no longer occurs must be struck from the list.
KNOWN: dict = {}

PATH = re.compile(r"\bcrate::([a-z_]+)")
GROUP = re.compile(r"\bcrate::\{([^}]*)")


def code_lines(path: pathlib.Path):
    """The file's lines of non-test code, without comments."""
    in_block = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("#[cfg(test)]"):
            return
        if in_block:
            if "*/" in stripped:
                in_block = False
            continue
        if stripped.startswith("/*"):
            in_block = "*/" not in stripped
            continue
        code = line.split("//", 1)[0]
        if code.strip():
            yield number, code


def layer_of(path: pathlib.Path):
    rel = path.relative_to(SRC)
    if len(rel.parts) == 1:
        return BOTTOM.get(rel.name)
    return rel.parts[0]


def main() -> int:
    violations = []
    known_seen = set()
    for path in sorted(SRC.rglob("*.rs")):
        if path.name == "tests.rs":
            continue
        layer = layer_of(path)
        forbidden = BOTTOM_FORBIDS if layer in BOTTOM.values() else RULES.get(layer, set())
        for number, code in code_lines(path):
            named = PATH.findall(code)
            for group in GROUP.findall(code):
                named += [g.strip().split("::")[0] for g in group.split(",") if g.strip()]
            for target in named:
                if target in forbidden:
                    key = (path.relative_to(SRC).as_posix(), target)
                    if key in KNOWN:
                        known_seen.add(key)
                        continue
                    rel = path.relative_to(SRC.parent.parent.parent)
                    violations.append(f"{rel}:{number}: {layer}/ names {target}/: {code.strip()}")
    for key in sorted(set(KNOWN) - known_seen):
        violations.append(f"{key[0]} no longer names {key[1]}/: strike it from KNOWN")
    for v in violations:
        print(v)
    for key in sorted(known_seen):
        print(f"known, to remove: {key[0]} names {key[1]}/ ({KNOWN[key]})")
    print(f"layers: {len(violations)} new upward references, {len(known_seen)} known")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
