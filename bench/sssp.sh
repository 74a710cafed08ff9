#!/usr/bin/env bash
# Kernel 3 (SSSP) against its peers: bench/sssp.sh [SCALE...] (default 20 22), RUNS rounds (default 3), ROOTS
# searches each (default 16). Each round runs, in an order that rotates:
#   - the Graph500 reference 3.0.1 `graph500_reference_bfs_sssp`, 2 ranks x 1 thread (SKIP_BFS=1,
#     SKIP_VALIDATION=1; stopped after its ROOTS-th SSSP): the harmonic mean of its per-search TEPS lines;
#   - GAPBS `sssp` (delta-stepping, its own Kronecker graph of the same SCALE and degree 16, its own integer
#     weights 1-255 and delta): its undirected edges over its average trial time (a loose comparison);
#   - Strata `run --kernel sssp`, one process, THREADS threads, every search validated: sssp_harmonic_mean_TEPS.
# Medians of the rounds and the ratios. Peers are built outside the repo with their own build files:
#   REFERENCE (default /srv/peers/g500/src/graph500_reference_bfs_sssp):
#     git clone --branch 3.0.1 https://github.com/graph500/graph500 /srv/peers/g500
#     make -C /srv/peers/g500/src CFLAGS="-Drestrict=__restrict__ -O3 -DGRAPH_GENERATOR_MPI -DREUSE_CSR_FOR_VALIDATION -I../aml -fcommon" graph500_reference_bfs_sssp
#   GAPBS (default /srv/peers/gapbs/sssp):
#     git clone https://github.com/sbeamer/gapbs /srv/peers/gapbs
#     make -C /srv/peers/gapbs sssp CXX_FLAGS="-std=c++11 -O3 -Wall -march=native -fopenmp"
# NO_REFERENCE=1 leaves the reference out (its column 0; it takes most of the time).
# Targets (issue 23): Strata >= 20x the reference; Strata >= 1.0x GAPBS.
set -euo pipefail
source "$(dirname "$0")/common.sh"
reference=${REFERENCE:-/srv/peers/g500/src/graph500_reference_bfs_sssp}
gapbs=${GAPBS:-/srv/peers/gapbs/sssp}
roots=${ROOTS:-16}
[[ -n ${NO_REFERENCE:-} || -x $reference ]] || { echo "no Graph500 reference at $reference (see the comment at the top of $0)" >&2; exit 1; }
[[ -x $gapbs ]] || { echo "no GAPBS sssp at $gapbs (see the comment at the top of $0)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "mpirun not found: apt-get install openmpi-bin" >&2; exit 1; }
mpi=(mpirun --allow-run-as-root --oversubscribe -np 2)
work=$(mktemp -d)
export OMPI_MCA_orte_tmpdir_base=$work/ompi
mkdir -p "$OMPI_MCA_orte_tmpdir_base"
trap 'pkill -f graph500_reference_bfs_sssp 2>/dev/null || true; rm -rf "$work"' EXIT

reference_teps() {
  local out=$work/ref.out
  SKIP_BFS=1 SKIP_VALIDATION=1 OMP_NUM_THREADS=1 "${mpi[@]}" "$reference" "$1" 16 >"$out" 2>&1 &
  local pid=$!
  while kill -0 $pid 2>/dev/null && (($(grep -c '^TEPS for SSSP' "$out") < roots)); do sleep 0.2; done
  pkill -f graph500_reference_bfs_sssp 2>/dev/null || true
  wait $pid 2>/dev/null || true
  awk -v n="$roots" '/^TEPS for SSSP/ && c < n {s += 1 / $NF; c++} END {if (c < n) exit 1; printf "%.6g\n", c / s}' "$out"
}
gapbs_teps() {
  OMP_NUM_THREADS=$threads "$gapbs" -g "$1" -k 16 -n "$roots" >"$work/gapbs.out" 2>&1
  awk '/undirected edges/ {e = $6} /^Average Time/ {t = $3} END {printf "%.6g\n", e / t}' "$work/gapbs.out"
}
strata_teps() {
  "$strata" run --scale "$1" --roots "$roots" --threads "$threads" --kernel sssp --json "$work/s.json" >/dev/null 2>&1
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['validated']; print(j['sssp_harmonic_mean_TEPS'])" "$work/s.json"
}

reference_or_none() { if [[ -n ${NO_REFERENCE:-} ]]; then echo 0; else reference_teps "$1"; fi; }

echo "scale,round,reference_2x1_teps,gapbs_teps,strata_teps"
for scale in ${@:-20 22}; do
  three_way "$scale" reference_or_none gapbs_teps strata_teps
  awk -v s="$scale" -v r="$median_a" -v g="$median_b" -v a="$median_c" \
    'BEGIN {printf "# SCALE %s: Strata / reference %.1fx (target >= 20); Strata / GAPBS %.2fx (target >= 1.0, graphs and weights differ)\n", s, a / r, a / g}'
done
