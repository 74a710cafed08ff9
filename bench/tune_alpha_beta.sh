#!/usr/bin/env bash
# Direction-switch parameters, interleaved so machine noise hits every setting alike:
# bench/tune_alpha_beta.sh [SCALE] (default 20), ROUNDS=3, ROOTS=64. Prints the median harmonic-mean TEPS and,
# as a noise-free measure of work, the adjacency entries examined over all searches (from --trace).
set -euo pipefail
source "$(dirname "$0")/common.sh"
scale=${1:-20}
rounds=${ROUNDS:-3}
roots=${ROOTS:-64}
settings=("64 4" "64 18" "15 4" "15 18" "30 18" "15 30" "8 18")
declare -A teps examined
for ((r = 0; r < rounds; r++)); do
  for s in "${settings[@]}"; do
    set -- $s
    out=$("$strata" run --scale "$scale" --roots "$roots" --alpha "$1" --beta "$2" --no-validate --trace 2>&1)
    teps[$s]+="$(awk '/^bfs_harmonic_mean_TEPS:/ {print $2}' <<<"$out") "
    examined[$s]=$(awk '/^trace:/ {sum += $12} END {printf "%.0f", sum}' <<<"$out")
  done
done
echo "alpha,beta,harmonic_mean_TEPS_median,edges_examined_total"
for s in "${settings[@]}"; do
  set -- $s
  echo "$1,$2,$(tr ' ' '\n' <<<"${teps[$s]}" | grep . | median),${examined[$s]}"
done
