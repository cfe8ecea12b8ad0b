#!/usr/bin/env bash
# Regenerates the figures in docs/figures/: the work-precision diagram of Andrews' squeezer (the
# default `dynastep compare --example andrews`) and the default time-history panels of every
# embedded example (`dynastep run --example NAME --plot`), and the screenshot of the 3-D player
# (docs/visualization.md) in headless Chromium (Debian's chromium). Runs take about a minute in
# all; the run folders stay in target/figures/.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p dynastep-cli
bin=target/release/dynastep
work=target/figures
mkdir -p docs/figures "$work"
$bin compare --example andrews --out "$work/andrews-compare"
cp "$work/andrews-compare/work-precision.png" docs/figures/andrews-work-precision.png
cp "$work/andrews-compare/work-precision.svg" docs/figures/andrews-work-precision.svg
cp "$work/andrews-compare/compare.csv" docs/figures/andrews-work-precision.csv
for ex in $($bin examples | awk 'NF == 1 || /^[a-z0-9-]+ / {print $1}' | grep -v '^Run$'); do
    $bin run --example "$ex" --quiet --plot --out "$work/$ex" || true   # a failed run is drawn too
    cp "$work/$ex/plot.png" "docs/figures/$ex.png"
done
# The 3-D player: Bricard's mechanism at t = 2 s.
$bin run --example bricard --t-end 4 --quiet --out "$work/bricard-3d"
$bin animate "$work/bricard-3d"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/chromium-profile" --virtual-time-budget=2000 --window-size=1000,700 \
    --screenshot=docs/figures/bricard-3d.png "file://$PWD/$work/bricard-3d/animation.html#t=2"
echo "figures written to docs/figures/"
