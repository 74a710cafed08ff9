#!/usr/bin/env bash
# Kernel 3's DRAM: bench/sssp_memory.sh [SCALE...] (default 22 24), RUNS runs (default 3) of each of
# `strata run --kernel sssp` and `--kernel both`, ROOTS searches (default 2), every search validated: the
# peak RSS (/usr/bin/time's %M) per input tuple, the median of the runs. In-core, generated on the fly.
# Target (issue 23): an in-core SSSP run peaks at <= 17 bytes a tuple (BFS alone: <= 9, bench/generation.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"
roots=${ROOTS:-2}
command -v /usr/bin/time >/dev/null || { echo "/usr/bin/time not found: apt-get install time" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "scale,kernel,round,peak_rss_kib,bytes_per_tuple,validated"
for scale in ${@:-22 24}; do
  tuples=$((16 << scale))
  for kernel in sssp both; do
    per=()
    for ((r = 0; r < runs; r++)); do
      /usr/bin/time -f "%M" -o "$work/rss" "$strata" run --scale "$scale" --roots "$roots" --threads "$threads" \
        --kernel "$kernel" --json "$work/r.json" >/dev/null 2>&1
      kib=$(tail -1 "$work/rss")
      valid=$(json_get "$work/r.json" '["validated"]')
      b=$(awk -v k="$kib" -v t="$tuples" 'BEGIN {printf "%.2f", k * 1024 / t}')
      per+=("$b")
      echo "$scale,$kernel,$r,$kib,$b,$valid"
    done
    m=$(printf '%s\n' "${per[@]}" | median)
    echo "$scale,$kernel,median,,$m,"
    echo "# SCALE $scale --kernel $kernel: $m bytes a tuple (target <= 17)"
  done
done
