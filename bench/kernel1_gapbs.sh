#!/usr/bin/env bash
# In-core kernel 1 against GAPBS's graph build, side by side (issue 24: Strata within 1.5x at SCALE 22):
# bench/kernel1_gapbs.sh [SCALE...] (default 20 22). GAPBS's "Build Time" (`bfs -g S -k 16 -n 1`, its generation
# apart, its edge list held in DRAM) against Strata's construction_time (`run --scale S --roots 1 --no-validate`:
# the tuples regenerated, as Strata keeps <= 9 bytes a tuple instead of the list, and kernel 0's degree count
# included). Alternating, the order swapped each round; prints CSV scale,round,gapbs_build_s,strata_kernel1_s,
# ratio, then the medians. Env: RUNS (5), THREADS (2), GAPBS (the bfs binary, default /srv/peers/gapbs/bfs):
#     git clone https://github.com/sbeamer/gapbs /srv/peers/gapbs
#     make -C /srv/peers/gapbs bfs CXX_FLAGS="-std=c++11 -O3 -Wall -march=native -fopenmp"
set -euo pipefail
source "$(dirname "$0")/common.sh"
runs=${RUNS:-5}
gapbs=${GAPBS:-/srv/peers/gapbs/bfs}
[[ -x $gapbs ]] || { echo "no GAPBS bfs at $gapbs (see the comment at the top of $0)" >&2; exit 1; }
scales=("$@")
[[ $# -eq 0 ]] && scales=(20 22)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gapbs_build() {
  OMP_NUM_THREADS=$threads "$gapbs" -g "$1" -k 16 -n 1 >"$work/gapbs.out" 2>&1
  awk '/^Build Time/ {print $3}' "$work/gapbs.out"
}
strata_build() {
  "$strata" run --scale "$1" --roots 1 --no-validate --threads "$threads" --json "$work/s.json" >/dev/null 2>&1
  json_get "$work/s.json" '["construction_time"]'
}

echo "scale,round,gapbs_build_s,strata_kernel1_s,ratio"
for scale in "${scales[@]}"; do
  rows=()
  for ((r = 0; r < runs; r++)); do
    if ((r % 2 == 0)); then g=$(gapbs_build "$scale"); s=$(strata_build "$scale")
    else s=$(strata_build "$scale"); g=$(gapbs_build "$scale"); fi
    row=$(awk -v g="$g" -v s="$s" 'BEGIN {printf "%.3f,%.3f,%.3f", g, s, s / g}')
    echo "$scale,$r,$row"
    rows+=("$row")
  done
  g_med=$(printf '%s\n' "${rows[@]}" | cut -d, -f1 | median)
  s_med=$(printf '%s\n' "${rows[@]}" | cut -d, -f2 | median)
  r_med=$(printf '%s\n' "${rows[@]}" | cut -d, -f3 | median)
  echo "$scale,median,$g_med,$s_med,$r_med"
done
