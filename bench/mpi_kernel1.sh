#!/usr/bin/env bash
# Kernel 1 of out-of-core ranks at one fixed budget a rank across SCALEs (issue 24's growth law under mpirun;
# root): bench/mpi_kernel1.sh [SCALE...] (default 20 21 22), RANKS (2) ranks of one thread, RANK_BUDGET_MIB (32) each,
# each rank's rows built afresh on xfs over a direct-io loop device (no cgroup: the budget bounds the rows a
# range, and the point is how the build grows with graph / budget). The graph directories hold the spec alone.
# STRATA_B=other/strata interleaves a second binary, round by round, the order alternating. Prints CSV:
# scale,binary,round,construction_s,ranges_rank0,bucket_bytes_rank0,TEPS, then the medians and the seconds per
# tuple relative to the smallest SCALE. Env: RUNS (3), KEEP=1.
set -euo pipefail
source "$(dirname "$0")/common.sh"
scales=("$@")
[[ $# -eq 0 ]] && scales=(20 21 22)
ranks=${RANKS:-2}
budget=$(( ${RANK_BUDGET_MIB:-32} << 20 ))
binaries=("$strata"); [[ -n ${STRATA_B:-} ]] && binaries+=("$STRATA_B")
source "$(dirname "$0")/loopfs.sh"
mpi=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 -np "$ranks")

out=/tmp/strata-mpi-kernel1.csv
echo "scale,binary,round,construction_s,ranges_rank0,bucket_bytes_rank0,TEPS" | tee "$out"
for scale in "${scales[@]}"; do
  g=$mnt/k1-$scale
  ensure_graph "$g" "$scale" --no-tuples
  for ((r = 0; r < runs; r++)); do
    for ((k = 0; k < ${#binaries[@]}; k++)); do
      b=$(( (k + r) % ${#binaries[@]} ))
      remove_and_trim "$mnt/ranks"
      "${mpi[@]}" "${binaries[$b]}" run --graph "$g" --roots 4 --threads 1 --placement out-of-core \
        --dram-budget "$budget" --rank-dir "$mnt/ranks" --json /tmp/strata-mpi-k1.json >/dev/null 2>/tmp/strata-mpi-k1.err ||
        { tail -3 /tmp/strata-mpi-k1.err >&2; exit 1; }
      python3 - /tmp/strata-mpi-k1.json "$scale" "$b" "$r" <<'PY' | tee -a "$out"
import json, sys
j = json.load(open(sys.argv[1]))
assert j['validated'], 'a run that did not validate'
r0 = j['mpi']['ranks'][0]
print(",".join([sys.argv[2], sys.argv[3], sys.argv[4], f"{j['construction_time']:.2f}", str(r0['build_passes']),
                str(r0.get('build_bucket_bytes', 0)), f"{j['bfs_harmonic_mean_TEPS']:.4g}"]))
PY
    done
  done
done
growth_medians "$out" construction_s "kernel 1"
