#!/usr/bin/env bash
# Kernel 3 out-of-core on a real block device under a hard DRAM cap (root): bench/sssp_out_of_core.sh [SCALE...]
# (default 24). Issue 23's target: under a cgroup cap of a quarter of the weighted adjacency (CAP=25, percent of
# its bytes: 8 a directed entry), the sssp harmonic-mean TEPS >= 0.5x the in-core run's on the same graph; and
# the bytes read per search against the bytes the edge cache leaves on storage.
#
# xfs on a loop device with --direct-io=on (bench/loopfs.sh); the graph generated there; the weighted on-disk
# CSR built once by a one-root run under the cap; then RUNS interleaved rounds of an in-core run (uncapped) and
# the out-of-core run inside the capped cgroup (page cache included, caches dropped before each), ROOTS roots,
# every search validated. The edge cache gets what the cap leaves beyond kernel 3's O(N) state (STATE_BYTES a
# vertex, default 24: offsets, labels, duplicate counts, the search's state word -- its result --, the distances
# by label that validation then reuses, the validation's confirmed bits, the tails' bitmap; JSON state_bytes
# measured 19.7 at SCALE 18; 28 until 2026-11-26, when the result was also copied by label) and SLACK_MB
# (default 96).
# Env: RUNS (3), ROOTS (8), THREADS (2), CAP (25), DELTA (strata's default), IMAGE, MNT, KEEP=1 (bench/loopfs.sh).
# CSV on stdout, progress on stderr.
set -euo pipefail
source "$(dirname "$0")/common.sh"
roots=${ROOTS:-8} slack=$((${SLACK_MB:-96} << 20)) cap_pct=${CAP:-25} per_vertex=${STATE_BYTES:-24}
scales=("${@:-24}")
delta=(); [[ -n ${DELTA:-} ]] && delta=(--delta "$DELTA")
top=${SIZE_SCALE:-$(printf '%s\n' "${scales[@]}" | sort -n | tail -1)}
image_size=$(( (1 << top) * 16 * (2 * 8 + 16) + (2 << 30) ))  # the weighted CSR, the stored tuples, room
source "$(dirname "$0")/loopfs.sh"

echo "scale,cap_pct,cap_bytes,dram_budget_bytes,adjacency_bytes,on_mem_edges,edge_cache_bytes,uncached_bytes,sssp_TEPS,in_core_sssp_TEPS,ratio_to_in_core,bytes_read_per_search,storage_entries_per_search,cgroup_peak_bytes,delta,runs,roots"
for scale in "${scales[@]}"; do
  g=$mnt/g$scale
  ensure_graph "$g" "$scale"
  n=$((1 << scale))
  # The weighted adjacency's bytes: 8 a directed entry, about 2 x 16 x n x 0.94 after self-loops and duplicates;
  # the first run measures it and the cap follows from the measured figure.
  adj=$((n * 16 * 2 * 8 * 94 / 100))
  for pass in 1 2; do
    cap=$((adj * cap_pct / 100)); budget=$((cap - n * per_vertex - slack))
    ((budget > (24 << 20))) || { echo "SCALE $scale: a $cap_pct% cap leaves no edge-cache budget beyond the state" >&2; exit 1; }
    [[ $pass == 2 ]] && break
    out=$(run_capped "$cap" "$strata" run --graph "$g" --roots 1 --threads "$threads" --kernel sssp "${delta[@]}" \
      --placement out-of-core --dram-budget "$budget" --no-validate --json /tmp/strata-bench-sssp-oc.json)
    adj=$(json_get /tmp/strata-bench-sssp-oc.json '["adjacency_bytes"]')
    log "SCALE $scale: weighted adjacency $adj bytes; CSR $( [[ $(json_get /tmp/strata-bench-sssp-oc.json '["csr_reused"]') == True ]] && echo reused || echo built) in $(json_get /tmp/strata-bench-sssp-oc.json '["csr_build_time"]') s, cgroup peak $(awk '/^peak_bytes:/ {print $2}' <<<"$out")"
  done
  ic=() oc=() peak=()
  for ((r = 0; r < runs; r++)); do
    sync; echo 3 >/proc/sys/vm/drop_caches
    "$strata" run --graph "$g" --roots "$roots" --threads "$threads" --kernel sssp "${delta[@]}" --json /tmp/strata-bench-sssp-ic.json >/dev/null
    ic+=("$(json_get /tmp/strata-bench-sssp-ic.json '["sssp_harmonic_mean_TEPS"]')")
    out=$(run_capped "$cap" "$strata" run --graph "$g" --roots "$roots" --threads "$threads" --kernel sssp "${delta[@]}" \
      --placement out-of-core --dram-budget "$budget" --json /tmp/strata-bench-sssp-oc.json)
    oc+=("$(json_get /tmp/strata-bench-sssp-oc.json '["sssp_harmonic_mean_TEPS"]')")
    peak+=("$(awk '/^peak_bytes:/ {print $2}' <<<"$out")")
    log "SCALE $scale round $r: in-core ${ic[-1]}, out-of-core ${oc[-1]} TEPS (cap $cap, peak ${peak[-1]})"
  done
  info=$(python3 - /tmp/strata-bench-sssp-oc.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["sssp_searches"]
assert all(x["valid"] for x in s)
print(j["on_mem_edges"], j["edge_cache_bytes"], j["adjacency_bytes"] - j["edge_cache_bytes"],
      sum(x["bytes_read"] for x in s) // len(s), sum(x["edges_storage"] for x in s) // len(s), j["sssp_delta"])
PY
)
  read -r k cache uncached bytes entries d <<<"$info"
  t=$(printf '%s\n' "${oc[@]}" | median) i=$(printf '%s\n' "${ic[@]}" | median)
  echo "$scale,$cap_pct,$cap,$budget,$adj,$k,$cache,$uncached,$t,$i,$(awk -v a="$t" -v b="$i" 'BEGIN {printf "%.3f", a / b}'),$bytes,$entries,$(printf '%s\n' "${peak[@]}" | median),$d,$runs,$roots"
done
