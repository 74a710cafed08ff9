#!/usr/bin/env bash
# Strata across MPI ranks against the Graph500 MPI reference 3.0.1 and against one Strata process:
# bench/mpi.sh [SCALE...] (default 20 22), RUNS rounds (default 3), ROOTS searches each (default 64). Each round
# runs, in an order that rotates: the reference with 2 ranks (its own generator and kernels; SKIP_VALIDATION=1,
# stopped after its ROOTS-th search: the harmonic mean of its per-search TEPS lines), Strata with 2 ranks x 1
# thread (every search validated), Strata in one process with 2 threads (validated). Medians of the rounds.
# REFERENCE: the reference's binary (default /tmp/g500/src/graph500_reference_bfs; build it outside the repo:
#   git clone --branch 3.0.1 https://github.com/graph500/graph500 /tmp/g500 && make -C /tmp/g500/src).
# TRACE_DIR: where each Strata 2-rank run's --trace lines and JSON are kept (for the network model).
# Targets (issue 12): Strata 2x1 >= 20x the reference's harmonic-mean TEPS; Strata 2x1 >= 0.6 of Strata 1x2.
set -euo pipefail
source "$(dirname "$0")/common.sh"
reference=${REFERENCE:-/tmp/g500/src/graph500_reference_bfs}
roots=${ROOTS:-64}
trace_dir=${TRACE_DIR:-$(mktemp -d)}
mkdir -p "$trace_dir"
[[ -x $reference ]] || { echo "no Graph500 reference at $reference (see the comment at the top of $0)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "mpirun not found: apt-get install openmpi-bin" >&2; exit 1; }
"$strata" --version | grep -q "Open MPI" || { echo "$strata was built without MPI: install libopenmpi-dev, rebuild" >&2; exit 1; }
mpi=(mpirun --allow-run-as-root --oversubscribe -np 2)
work=$(mktemp -d)
trap 'pkill -f graph500_reference_bfs 2>/dev/null || true; rm -rf "$work"' EXIT

# The reference's harmonic-mean TEPS over its first $roots searches (it runs 64, then validation and SSSP:
# stopped once the searches we compare are done).
reference_teps() {
  local out=$work/ref.out
  SKIP_VALIDATION=1 OMP_NUM_THREADS=1 "${mpi[@]}" "$reference" "$1" >"$out" 2>&1 &
  local pid=$!
  while kill -0 $pid 2>/dev/null && (($(grep -c '^TEPS for BFS' "$out") < roots)); do sleep 0.2; done
  pkill -f graph500_reference_bfs 2>/dev/null || true
  wait $pid 2>/dev/null || true
  awk -v n="$roots" '/^TEPS for BFS/ && c < n {s += 1 / $NF; c++} END {if (c < n) exit 1; printf "%.6g\n", c / s}' "$out"
}
strata_teps() {  # strata_teps SCALE ranks|one ROUND
  local json=$trace_dir/s$1-$2-r$3.json
  if [[ $2 == ranks ]]; then
    "${mpi[@]}" "$strata" run --scale "$1" --roots "$roots" --threads 1 --trace --json "$json" >/dev/null 2>"$trace_dir/s$1-ranks-r$3.trace"
  else
    "$strata" run --scale "$1" --roots "$roots" --threads 2 --json "$json" >/dev/null 2>&1
  fi
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['validated']; print(j['bfs_harmonic_mean_TEPS'])" "$json"
}

two_ranks() { strata_teps "$1" ranks "$2"; }
one_process() { strata_teps "$1" one "$2"; }

echo "scale,round,reference_2x1_teps,strata_2x1_teps,strata_1x2_teps"
for scale in ${@:-20 22}; do
  three_way "$scale" reference_teps two_ranks one_process
  awk -v s="$scale" -v r="$median_a" -v a="$median_b" -v b="$median_c" \
    'BEGIN {printf "# SCALE %s: Strata 2x1 / reference %.1fx (target >= 20); Strata 2x1 / 1x2 %.2f (target >= 0.6)\n", s, a / r, a / b}'
done
echo "# traces and JSON of the 2-rank runs: $trace_dir" >&2
