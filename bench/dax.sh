#!/usr/bin/env bash
# DAX placement against in-core on the same graph: bench/dax.sh [SCALE...] (default 22).
# Without DCPMM here the graph file sits in the page cache, so the mapping is DRAM-backed: this measures the
# cost of reading lists in place through a file mapping (target, issue 5: DAX/in-core >= 0.9 at SCALE 22).
# On a real DAX filesystem set DIR to a directory on it. Env: DIR (/var/tmp/strata-dax), RUNS (3),
# ROOTS (64), THREADS (2), STRATA_FLAGS (extra run flags, e.g. --on-mem-edges 4). CSV on stdout.
set -euo pipefail
source "$(dirname "$0")/common.sh"
dir=${DIR:-/var/tmp/strata-dax} roots=${ROOTS:-64}
mkdir -p "$dir"
echo "scale,in_core_TEPS,dax_TEPS,ratio,is_pmem,runs,roots"
for scale in "${@:-22}"; do
  g=$dir/g$scale
  [[ -f $g/graph.hdr ]] || "$strata" generate --scale "$scale" --out "$g" 2>/dev/null
  ic=() dx=()
  for ((r = 0; r < runs; r++)); do  # interleaved, so both see the same machine
    "$strata" run --graph "$g" --roots "$roots" --threads "$threads" --json "$dir/ic.json" >/dev/null
    ic+=("$(json_get "$dir/ic.json" '["bfs_harmonic_mean_TEPS"]')")
    "$strata" run --graph "$g" --roots "$roots" --threads "$threads" --placement dax ${STRATA_FLAGS:-} \
      --json "$dir/dax.json" >/dev/null 2>&1
    dx+=("$(json_get "$dir/dax.json" '["bfs_harmonic_mean_TEPS"]')")
  done
  a=$(printf '%s\n' "${ic[@]}" | median) b=$(printf '%s\n' "${dx[@]}" | median)
  echo "$scale,$a,$b,$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}'),$(json_get "$dir/dax.json" '["is_pmem"]'),$runs,$roots"
done
