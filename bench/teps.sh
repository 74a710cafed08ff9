#!/usr/bin/env bash
# Whole Graph500 runs (64 roots, validated): bench/teps.sh [SCALE...] (default 20 22), THREADS=2, RUNS=3.
# Targets (issue 3): harmonic-mean TEPS >= 9e8 at SCALE 20 and >= 1.1e9 at SCALE 22; SCALE 24 peak RSS
# <= 9 bytes per input tuple. Extra flags for strata run go in STRATA_FLAGS.
set -euo pipefail
source "$(dirname "$0")/common.sh"
echo "scale,threads,harmonic_mean_TEPS_median,runs,peak_rss_bytes,rss_bytes_per_tuple"
for scale in "${@:-20 22}"; do
  teps=() rss=()
  for ((r = 0; r < runs; r++)); do
    out=$(/usr/bin/time -f "rss_kib %M" "$strata" run --scale "$scale" --threads "$threads" ${STRATA_FLAGS:-} 2>&1)
    teps+=("$(awk '/^bfs_harmonic_mean_TEPS:/ {print $2}' <<<"$out")")
    rss+=("$(awk '/^rss_kib/ {print $2 * 1024}' <<<"$out")")
  done
  t=$(printf '%s\n' "${teps[@]}" | median)
  m=$(printf '%s\n' "${rss[@]}" | median)
  echo "$scale,$threads,$t,$runs,$m,$(awk -v m="$m" -v s="$scale" 'BEGIN {printf "%.2f", m / (16 * 2^s)}')"
done
