#!/usr/bin/env bash
# Kernel 1 on storage at one fixed DRAM cap across SCALEs (issue 24's growth law, kernel 1 alone; root):
# bench/kernel1.sh [SCALE...] (default 22 23 24) with CAP_MIB (448: the flagship's 7 GiB at SCALE 28 scaled to
# SCALE 24, so 22-24 here are 26-28 there). Each SCALE's graph directory holds the spec alone (tuples regenerated,
# as at SCALE 28 on this disk); each run builds the on-disk CSR afresh under the cap (budget = cap - 16 bytes a
# vertex - 96 MiB, as bench/scale.sh), one root, no validation. STRATA_B=other/strata interleaves a second
# binary, round by round, the order alternating. Prints CSV: scale,binary,round,csr_build_s,passes,
# tuple_passes,bucket_bytes,csr_bytes,peak_bytes and the build's phases (count_s ... write_s), then the medians
# and the seconds per tuple relative to the smallest SCALE. Env: RUNS (3), THREADS (2), KEEP=1.
set -euo pipefail
source "$(dirname "$0")/common.sh"
scales=("$@")
[[ $# -eq 0 ]] && scales=(22 23 24)
cap=$(( ${CAP_MIB:-448} << 20 ))
binaries=("$strata"); [[ -n ${STRATA_B:-} ]] && binaries+=("$STRATA_B")
max=0; for s in "${scales[@]}"; do ((s > max)) && max=$s; done
image_size=$(( (1 << max) * 16 * 8 * 3 + (2 << 30) ))  # the CSR and the buckets beside it, with room
source "$(dirname "$0")/loopfs.sh"

out=/tmp/strata-kernel1.csv
echo "scale,binary,round,csr_build_s,passes,tuple_passes,bucket_bytes,csr_bytes,peak_bytes,count_s,distribute_s,fill_s,sort_s,write_s" | tee "$out"
for scale in "${scales[@]}"; do
  g=$mnt/k1-$scale
  ensure_graph "$g" "$scale" --no-tuples
  budget=$(( cap - (1 << scale) * 16 - (96 << 20) ))
  for ((r = 0; r < runs; r++)); do
    for ((k = 0; k < ${#binaries[@]}; k++)); do
      b=$(( (k + r) % ${#binaries[@]} ))
      remove_and_trim "$g"/csr-p*
      res=$(run_capped "$cap" "${binaries[$b]}" run --graph "$g" --roots 1 --no-validate --threads "$threads" \
        --placement out-of-core --dram-budget "$budget" --json /tmp/strata-k1.json 2>&1) || { echo "$res" | tail -3 >&2; exit 1; }
      peak=$(grep -E "^peak_bytes" <<<"$res" | awk '{print $2}')
      python3 - /tmp/strata-k1.json "$scale" "$b" "$r" "$peak" <<'PY' | tee -a "$out"
import json, sys
j = json.load(open(sys.argv[1]))
print(",".join([sys.argv[2], sys.argv[3], sys.argv[4], f"{j['csr_build_time']:.2f}", str(j['csr_build_passes']),
                str(j.get('csr_build_tuple_passes', j['csr_build_passes'])), str(j['csr_build_renumbered_bytes']),
                str(j['csr_disk_bytes']), sys.argv[5]] +
               [f"{j['csr_build_phase_seconds'][k]:.2f}" for k in ('count', 'distribute', 'fill', 'sort', 'write')]))
PY
    done
  done
done
growth_medians "$out" csr_build_s "kernel 1 CSR build"
