#!/usr/bin/env python3
"""Lists the functions of crates/dynastep/src longer than a limit (default 80 lines).

    python3 scripts/long_functions.py [LIMIT] [--check]

A function runs from its `fn` line to the line of its closing brace, counted by brace depth after
comments and string literals are blanked. Test modules (`mod tests`, files named tests.rs) are
skipped: test bodies list cases. With --check the exit status is 1 when any function is longer
than the limit, or than 60 lines in analysis/dynamic.rs (the time loop, ARCHITECTURE.md).
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "crates", "dynastep", "src")
FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)")


def blank(line, in_block):
    """The line without comments and string contents; whether a block comment stays open."""
    out, i = [], 0
    while i < len(line):
        if in_block:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out), True
            i, in_block = j + 2, False
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block, i = True, i + 2
        elif line[i] == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif line[i] == "'" and i + 2 < len(line) and (line[i + 2] == "'" or line[i + 1] == "\\"):
            j = line.find("'", i + 2)
            out.append("' '")
            i = j + 1 if j > 0 else len(line)
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_block


def functions(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    in_block, depth, stack, skip_depth = False, 0, [], None
    for n, raw in enumerate(lines, 1):
        code, in_block = blank(raw, in_block)
        if skip_depth is None and re.match(r"^\s*mod tests\b", code):
            skip_depth = depth
        m = FN.match(code)
        if m and skip_depth is None:
            stack.append((m.group(5), n, depth))
        for ch in code:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if stack and depth == stack[-1][2] and "{" in "".join(lines[stack[-1][1] - 1 : n]):
                    name, start, _ = stack.pop()
                    yield name, start, n - start + 1
                if skip_depth is not None and depth == skip_depth:
                    skip_depth = None
        if stack and code.rstrip().endswith(";") and depth == stack[-1][2]:
            stack.pop()  # a declaration without a body


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    limit = int(args[0]) if args else 80
    bad = 0
    for dirpath, _, files in sorted(os.walk(ROOT)):
        for f in sorted(files):
            if not f.endswith(".rs") or f == "tests.rs":
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT)
            own = 60 if rel == os.path.join("analysis", "dynamic.rs") else limit
            for name, start, length in functions(path):
                if length > own:
                    bad += 1
                    print(f"{length:4d} {rel}:{start} {name}")
    if "--check" in sys.argv and bad:
        print(f"{bad} functions longer than allowed", file=sys.stderr)
        sys.exit(1)


main()
