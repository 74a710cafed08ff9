#!/usr/bin/env bash
# Direction-switch parameters, interleaved so machine noise hits every setting alike:
# bench/tune_alpha_beta.sh [SCALE] (default 20), ROUNDS=3, ROOTS=16. Prints the median harmonic-mean TEPS.
set -euo pipefail
source "$(dirname "$0")/common.sh"
scale=${1:-20}
rounds=${ROUNDS:-3}
roots=${ROOTS:-16}
settings=("64 4" "64 18" "15 4" "15 18" "30 18" "15 30" "8 18")
declare -A results
for ((r = 0; r < rounds; r++)); do
  for s in "${settings[@]}"; do
    set -- $s
    t=$("$strata" run --scale "$scale" --roots "$roots" --alpha "$1" --beta "$2" --no-validate 2>/dev/null |
      awk '/^bfs_harmonic_mean_TEPS:/ {print $2}')
    results[$s]+="$t "
  done
done
echo "alpha,beta,harmonic_mean_TEPS_median"
for s in "${settings[@]}"; do
  set -- $s
  echo "$1,$2,$(tr ' ' '\n' <<<"${results[$s]}" | grep . | median)"
done
