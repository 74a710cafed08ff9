#!/usr/bin/env bash
# Kernel 0 and kernel 1 times and peak RSS: bench/generation.sh [SCALE...] (default 20 22), THREADS=2, RUNS=3.
# Targets (issues 2, 25): SCALE 20 generation <= 1 s, construction <= 1 s, SCALE 22 construction <= 4 s on 2
# threads; at SCALE 24 generate+construct, and a whole validated in-core run (--roots 4, against the CSR), each
# peak at <= 9 bytes of RSS per input tuple.
set -euo pipefail
source "$(dirname "$0")/common.sh"
echo "scale,threads,graph_generation_s,construction_s,peak_rss_bytes,rss_bytes_per_tuple,validated_peak_rss_bytes,validated_rss_bytes_per_tuple"
for scale in "${@:-20 22}"; do
  gens=() cons=() rss=() vrss=()
  for ((r = 0; r < runs; r++)); do
    out=$(/usr/bin/time -f "rss_kib %M" "$strata" run --scale "$scale" --threads "$threads" --roots 1 --no-validate 2>&1)
    gens+=("$(awk '/^graph_generation:/ {print $2}' <<<"$out")")
    cons+=("$(awk '/^construction_time:/ {print $2}' <<<"$out")")
    rss+=("$(awk '/^rss_kib/ {print $2 * 1024}' <<<"$out")")
    out=$(/usr/bin/time -f "rss_kib %M" "$strata" run --scale "$scale" --threads "$threads" --roots 4 2>&1)
    grep -q "4 of 4 searches validated" <<<"$out" || { echo "validated run failed: $out" >&2; exit 1; }
    vrss+=("$(awk '/^rss_kib/ {print $2 * 1024}' <<<"$out")")
  done
  g=$(printf '%s\n' "${gens[@]}" | median)
  c=$(printf '%s\n' "${cons[@]}" | median)
  m=$(printf '%s\n' "${rss[@]}" | median)
  v=$(printf '%s\n' "${vrss[@]}" | median)
  per_tuple() { awk -v m="$1" -v s="$scale" 'BEGIN {printf "%.2f", m / (16 * 2^s)}'; }
  echo "$scale,$threads,$g,$c,$m,$(per_tuple "$m"),$v,$(per_tuple "$v")"
done
