#!/usr/bin/env bash
# Kernel 0 and kernel 1 times and peak RSS: bench/generation.sh [SCALE...] (default 20 22), THREADS=2, RUNS=3.
# Targets (issue 2): SCALE 20 generation <= 1 s, construction <= 1 s, SCALE 22 construction <= 4 s on 2 threads;
# SCALE 24 generate+construct peak RSS <= 9 bytes per input tuple.
set -euo pipefail
source "$(dirname "$0")/common.sh"
echo "scale,threads,graph_generation_s,construction_s,peak_rss_bytes,rss_bytes_per_tuple"
for scale in "${@:-20 22}"; do
  gens=() cons=() rss=()
  for ((r = 0; r < runs; r++)); do
    out=$(/usr/bin/time -f "rss_kib %M" "$strata" run --scale "$scale" --threads "$threads" --roots 1 --no-validate 2>&1)
    gens+=("$(awk '/^graph_generation:/ {print $2}' <<<"$out")")
    cons+=("$(awk '/^construction_time:/ {print $2}' <<<"$out")")
    rss+=("$(awk '/^rss_kib/ {print $2 * 1024}' <<<"$out")")
  done
  g=$(printf '%s\n' "${gens[@]}" | median)
  c=$(printf '%s\n' "${cons[@]}" | median)
  m=$(printf '%s\n' "${rss[@]}" | median)
  echo "$scale,$threads,$g,$c,$m,$(awk -v m="$m" -v s="$scale" 'BEGIN {printf "%.2f", m / (16 * 2^s)}')"
done
