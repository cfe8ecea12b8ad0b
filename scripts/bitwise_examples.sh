#!/usr/bin/env bash
# Runs every embedded example with its own settings and a few fixed-step scheme/formulation
# pairs, and prints one sha256 per history.csv (the timing columns of summary.json differ
# run to run, so only the histories are compared). Used to show a refactoring moved no result:
#
#   scripts/bitwise_examples.sh target/release/dynastep > before.txt   # on the old commit
#   scripts/bitwise_examples.sh target/release/dynastep > after.txt    # on the new one
#   diff before.txt after.txt
set -euo pipefail
BIN=${1:-target/release/dynastep}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
run() { # name, args...
  local name=$1; shift
  if "$BIN" run -q --out "$WORK/$name" "$@" >/dev/null 2>&1; then
    echo "$name $(sha256sum < "$WORK/$name/history.csv" | cut -c1-16)"
  else
    echo "$name failed $( (sha256sum < "$WORK/$name/history.csv" | cut -c1-16) 2>/dev/null)"
  fi
}
for ex in $("$BIN" examples | awk '/^[a-z]/ && $1 != "Run" {print $1}'); do
  run "$ex" --example "$ex" --t-end 0.5 --max-steps 200000
done
# Every formulation and a few schemes on one planar, one spatial and one equation-based model.
for ex in slider-crank spatial-slider-crank stiff-pendulum; do
  for f in index3 tangent-space; do
    run "$ex-$f" --example "$ex" --formulation "$f" --scheme generalized-alpha --dt 1e-3 --t-end 0.2
  done
  for f in direct baumgarte projection partitioning hybrid; do
    run "$ex-$f-rk4" --example "$ex" --formulation "$f" --scheme rk4 --dt 1e-3 --t-end 0.2
    run "$ex-$f-dopri5" --example "$ex" --formulation "$f" --scheme dopri5 --rtol 1e-6 --t-end 0.2
  done
  run "$ex-abm" --example "$ex" --formulation projection --scheme abm --rtol 1e-6 --t-end 0.2
  for s in hht newmark lms3 ss3 esdirk4-6 bathe msstc4 g4 central-difference; do
    run "$ex-$s" --example "$ex" --scheme "$s" --dt 1e-3 --t-end 0.2
  done
  run "$ex-lms2-rtol" --example "$ex" --scheme lms2 --formulation tangent-space --rtol 1e-5 --t-end 0.2
done
