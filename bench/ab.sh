#!/usr/bin/env bash
# A/B of two strata binaries on one graph, interleaved round by round so both see the same machine noise:
#   BASE=/path/to/other/strata bench/ab.sh SCALE [placement ...]   (default placements: in-core dax)
# A placement may carry flags joined by '+', e.g. out-of-core+--on-mem-edges+4.
# Prints per placement the median harmonic-mean TEPS of each binary over RUNS rounds and their ratio
# (this build / BASE). Used to price changes to the search (e.g. the range checks on ids read from storage).
# MPI=P runs both under `mpirun -np P` (each rank's rows under the graph directory; THREADS a rank); KERNEL=sssp
# compares kernel 3's harmonic-mean TEPS instead; KERNEL=both METRIC=bfs (or sssp) runs both kernels and compares
# the one named (kernel 2 over the lists kernel 3's run builds).
set -euo pipefail
source "$(dirname "$0")/common.sh"
[[ -n ${BASE:-} && -x ${BASE:-} ]] || { echo "set BASE to the other strata binary" >&2; exit 1; }
scale=${1:?SCALE}
shift
placements=("${@:-in-core}")
(($#)) || placements=(in-core dax)
roots=${ROOTS:-16} kernel=${KERNEL:-bfs}
metric=${METRIC:-$kernel}
kernel_flag=()
[[ -n ${KERNEL:-} ]] && kernel_flag=(--kernel "$KERNEL")  # left out by default: builds before kernel 3 lack it
mpi=()
[[ -n ${MPI:-} ]] && mpi=(mpirun --allow-run-as-root --oversubscribe -np "$MPI")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$strata" generate --scale "$scale" --out "$dir/g" 2>/dev/null
cp -r "$dir/g" "$dir/g-base"  # each binary builds and reads its own on-disk CSR (formats may differ by version)
for p in "${placements[@]}"; do  # build the on-disk CSRs once, untimed
  [[ $p == in-core* ]] && continue
  "${mpi[@]}" "$strata" run --graph "$dir/g" --roots 1 --placement ${p//+/ } --threads "$threads" \
    "${kernel_flag[@]}" >/dev/null 2>&1
  "${mpi[@]}" "$BASE" run --graph "$dir/g-base" --roots 1 --placement ${p//+/ } --threads "$threads" \
    "${kernel_flag[@]}" >/dev/null 2>&1
done
echo "placement,round,binary,harmonic_mean_TEPS"
for ((r = 1; r <= runs; ++r)); do
  for p in "${placements[@]}"; do
    order=(new base)
    ((r % 2)) || order=(base new)  # alternate who goes first: no position bias
    for side in "${order[@]}"; do
      bin=$strata graph=$dir/g
      [[ $side == base ]] && bin=$BASE graph=$dir/g-base
      rm -f "$dir/r.json"
      "${mpi[@]}" "$bin" run --graph "$graph" --roots "$roots" --threads "$threads" --placement ${p//+/ } --no-validate \
        "${kernel_flag[@]}" --json "$dir/r.json" >/dev/null 2>&1
      echo "$p,$r,$side,$(json_get "$dir/r.json" "[\"${metric}_harmonic_mean_TEPS\"]")" | tee -a "$dir/all.csv"
    done
  done
done
for p in "${placements[@]}"; do
  new=$(grep "^$p,.*,new," "$dir/all.csv" | cut -d, -f4 | median)
  base=$(grep "^$p,.*,base," "$dir/all.csv" | cut -d, -f4 | median)
  echo "median $p: new $new base $base ratio $(python3 -c "print(round($new / $base, 3))")"
done
