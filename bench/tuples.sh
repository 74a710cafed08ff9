#!/usr/bin/env bash
# Stored tuples or the spec alone, on this device (root): bench/tuples.sh [SCALE...] (default 24).
#
# Issue 11: a graph directory may hold only the spec (`generate --no-tuples`), every pass then regenerating
# the tuples; which is faster depends on the device and the CPUs. On xfs over a `losetup --direct-io=on` loop
# device (loopfs.sh), per round and in alternating order, each way runs the same out-of-core run from a cold
# cache inside a cgroup cap (budget + 16 bytes a vertex + SLACK_MB): kernel 0 (verifying or generating), kernel
# 1's on-disk CSR built afresh, ROOTS searches, each validated in a pass of its own (--validate-batch 1, so a
# pass's cost is measured). CSV on stdout: the medians of kernel 0, the CSR build and a validation pass.
# Env: RUNS (3), ROOTS (4), BUDGET_PCT (25: the budget as a share of the tuple list's bytes), THREADS (2),
# KEEP=1 (keep the filesystem and graphs), SLACK_MB (96).
set -euo pipefail
source "$(dirname "$0")/common.sh"
roots=${ROOTS:-4} slack=$((${SLACK_MB:-96} << 20)) pct=${BUDGET_PCT:-25}
scales=("${@:-24}")
SIZE_SCALE=${SIZE_SCALE:-$(( $(printf '%s\n' "${scales[@]}" | sort -n | tail -1) + 1 ))}  # two graphs, two CSRs
source "$(dirname "$0")/loopfs.sh"

echo "scale,tuples,kernel0_s,csr_build_s,csr_build_passes,validation_pass_s,tuple_file_bytes,csr_disk_bytes,budget_bytes,cap_bytes,runs,roots"
for scale in "${scales[@]}"; do
  n=$((1 << scale))
  budget=$(( n * 16 * 8 * pct / 100 )) cap=$(( n * 16 * 8 * pct / 100 + n * 16 + slack ))
  ensure_graph "$mnt/g$scale" "$scale"
  ensure_graph "$mnt/s$scale" "$scale" --no-tuples
  declare -A k0=() build=() passes=() pass=() sizes=()
  for ((r = 0; r < runs; r++)); do
    order=(stored regenerated); ((r % 2)) && order=(regenerated stored)
    for way in "${order[@]}"; do
      dir=$mnt/g$scale; [[ $way == regenerated ]] && dir=$mnt/s$scale
      remove_and_trim "$mnt"/g"$scale"/csr-p* "$mnt"/s"$scale"/csr-p*  # each run builds its CSR (and the disk holds one)
      out=$(run_capped "$cap" "$strata" run --graph "$dir" --roots "$roots" --threads "$threads" --placement out-of-core \
        --dram-budget "$budget" --validate-batch 1 --json /tmp/strata-bench-tuples.json 2>&1) || { echo "$out" >&2; exit 1; }
      read -r a b c d e f <<<"$(python3 - /tmp/strata-bench-tuples.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(j["graph_generation"], j["csr_build_time"], j["csr_build_passes"],
      j["validation_time"] / j["validation_tuple_passes"], j["tuple_file_bytes"], j["csr_disk_bytes"])
PY
)"
      k0[$way]+="$a " build[$way]+="$b " passes[$way]=$c pass[$way]+="$d " sizes[$way]="$e,$f"
      log "SCALE $scale round $r $way: kernel 0 $a s, CSR build $b s ($c passes), validation pass $d s"
    done
  done
  for way in stored regenerated; do
    med() { tr ' ' '\n' <<<"$1" | grep . | median; }
    echo "$scale,$way,$(med "${k0[$way]}"),$(med "${build[$way]}"),${passes[$way]},$(med "${pass[$way]}"),${sizes[$way]},$budget,$cap,$runs,$roots"
  done
  unset k0 build passes pass sizes
done
