#!/usr/bin/env bash
# Out-of-core runs: the in-core answers, the contract keys, CSR reuse, every refusal and I/O fault.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp

# Out-of-core: same answers as in-core (nedge per root), the contract keys, and every refusal.
"$strata" generate --scale 11 --out "$tmp/o11" 2>/dev/null
"$strata" generate --scale 12 --out "$tmp/o12" 2>/dev/null
"$strata" run --graph "$tmp/o12" --roots 6 --json "$tmp/ic.json" >/dev/null
"$strata" run --graph "$tmp/o12" --roots 6 --placement out-of-core --dram-budget 40M --on-mem-edges 2 \
  --json "$tmp/oc.json" >"$tmp/oc.txt"
expect "out-of-core run succeeds" test $? -eq 0
expect "out-of-core summary lines" grep -qx "on_mem_edges: 2" "$tmp/oc.txt"
expect "out-of-core builds its CSR" test -f "$tmp/o12/csr-p1/csr.hdr"
expect "out-of-core JSON" python3 - "$tmp/ic.json" "$tmp/oc.json" <<'PY'
import json, sys
ic, oc = (json.load(open(f)) for f in sys.argv[1:3])
for k in ["placement", "dram_budget", "on_mem_edges", "edge_cache_bytes", "bytes_read", "io_requests", "csr_reused"]:
    assert k in oc, k
assert oc["placement"] == "out-of-core" and oc["on_mem_edges"] == 2 and oc["bytes_read"] > 0 and not oc["csr_reused"]
assert oc["tuple_file_bytes"] == 2**12 * 16 * 8 and oc["csr_disk_bytes"] > oc["adjacency_bytes"], oc
assert [s["nedge"] for s in oc["searches"]] == [s["nedge"] for s in ic["searches"]]
# the cache cut from the prefixes the build kept (K = 2: 2 entries a list, far below half the adjacency)
assert oc["cache_source"] == "build" and 0 < oc["csr_build_bytes"]["cache_prefixes_written"] <= 2 * 4 * 2**12, oc
for s in oc["searches"]:
    assert s["valid"] is True and s["edges_dram"] + s["edges_storage"] == s["edges_examined"] and s["bytes_read"] > 0
# Lean O(N) state (issue 11): at most 16 bytes a vertex outside the edge cache and the I/O buffers.
assert 12 * 2**12 < oc["state_bytes"] <= 16 * 2**12, oc["state_bytes"] / 2**12
PY
"$strata" run --graph "$tmp/o12" --roots 2 --placement out-of-core --dram-budget 40M --json "$tmp/oc2.json" >/dev/null
expect "the CSR is reused, K from the budget" python3 -c "
import json; j = json.load(open('$tmp/oc2.json')); assert j['csr_reused'] and j['on_mem_edges_all'] and j['cache_source'] == 'csr', j"
"$strata" run --graph "$tmp/o12" --roots 2 --placement out-of-core --dram-budget 40M --trace >/dev/null 2>"$tmp/otrace.txt"
expect "out-of-core trace has I/O" grep -qE "^trace: .* storage_edges [0-9]+ bytes_read [0-9]+ io_requests [0-9]+$" "$tmp/otrace.txt"
expect_error "out-of-core needs a graph dir" "needs a graph directory" "$strata" run --scale 10 --placement out-of-core
expect_error "unknown placement" "unknown --placement" "$strata" run --scale 10 --placement nvram
expect_error "budget below I/O buffers" "is below the minimum" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 1M
# O(N) state no machine of this kind holds (SCALE 36: 1.7 TiB): refused before kernel 0, which would regenerate
# its 2^40 tuples first (the refusal came only after it: 2.5 minutes at SCALE 29 under a 7 GiB cap).
"$strata" generate --scale 36 --no-tuples --out "$tmp/s36" 2>/dev/null
for tier in out-of-core dax; do
  start=$SECONDS
  expect_error "$tier, O(N) state beyond the memory" "$tier SCALE 36 needs" timeout 10 "$strata" run --graph "$tmp/s36" --placement $tier
  expect "$tier, O(N) state beyond the memory: refused before any work" test $((SECONDS - start)) -lt 5
done
expect "nothing built for it" test ! -e "$tmp/s36/csr-p1"
expect_error "malformed budget" "malformed --dram-budget" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 12Q
expect_error "cache larger than the budget" "more than --dram-budget" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 100K --io-depth 1 --io-request 4K --on-mem-edges 100000
expect_error "hubs larger than the budget" "cannot hold the hubs' lists (--hub-degree 1)" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 100K --io-depth 1 --io-request 4K --hub-degree 1
for ask in "--hub-degree 1" "--on-mem-edges 100000"; do
  # shellcheck disable=SC2086  # ask: a flag and its value
  "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 100K --io-depth 1 --io-request 4K $ask 2>"$tmp/ask.err"
  expect "$ask over the budget: the good CSR is not to be removed" bash -c "! grep -q remove '$tmp/ask.err'"
done
expect_error "budget flags need out-of-core" "apply to --placement out-of-core and dax" "$strata" run --scale 10 --dram-budget 1G
expect_error "bad request size" "multiple of 4K" "$strata" run --graph "$tmp/o12" --placement out-of-core --io-request 1000
expect_error "failed read" "read failed: $tmp/o12/csr-p1/adj.0.bin at offset" "$strata" run --graph "$tmp/o12" --roots 2 --placement out-of-core --dram-budget 40M --on-mem-edges 0 --io-request 4K --debug-io-faults eio:30
"$strata" run --graph "$tmp/o12" --roots 2 --placement out-of-core --dram-budget 40M --on-mem-edges 0 --io-request 16K --debug-io-faults short:2 >/dev/null
expect "short reads completed, run validated" test $? -eq 0
cp -r "$tmp/o11/csr-p1" "$tmp/o11-csr" 2>/dev/null || true
"$strata" run --graph "$tmp/o11" --roots 1 --placement out-of-core --dram-budget 40M >/dev/null
rm -rf "$tmp/o12/csr-p1" && cp -r "$tmp/o11/csr-p1" "$tmp/o12/csr-p1"
expect_error "a CSR of another graph" "was built from another graph (SCALE 11" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 40M
rm -rf "$tmp/o12/csr-p1"
"$strata" run --graph "$tmp/o12" --roots 1 --placement out-of-core --dram-budget 40M >/dev/null
printf 'X' | dd of="$tmp/o12/csr-p1/adj.0.bin" bs=1 seek=5000 conv=notrunc status=none
expect_error "corrupted adjacency" "adj.0.bin is corrupted: checksum mismatch" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 40M
truncate -s 4096 "$tmp/o12/csr-p1/adj.0.bin"
expect_error "truncated adjacency" "adj.0.bin has 4096 bytes, expected" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 40M
rm "$tmp/o12/csr-p1/adj.0.bin"
expect_error "missing adjacency" "cannot open $tmp/o12/csr-p1/adj.0.bin" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 40M
rm -rf "$tmp/o12/csr-p1"
expect_error "a CSR build that cannot write" "cannot write $tmp/o12/csr-p1.tmp-" bash -c "ulimit -f 100; exec '$strata' run --graph '$tmp/o12' --roots 1 --placement out-of-core --dram-budget 40M"
expect "nothing half-built is left" bash -c "! ls -d '$tmp/o12/csr-p1'* 2>/dev/null | grep -q ."
mkdir "$tmp/o12/csr-p1.tmp-999999999"
"$strata" run --graph "$tmp/o12" --roots 1 --placement out-of-core --dram-budget 40M >/dev/null 2>"$tmp/crash.err"
expect "an interrupted build is redone" bash -c "grep -q 'removed 1 unfinished CSR build' '$tmp/crash.err' && test -f '$tmp/o12/csr-p1/csr.hdr' && ! test -e '$tmp/o12/csr-p1.tmp-999999999'"
"$strata" run --graph "$tmp/o12" --roots 3 --placement out-of-core --numa-nodes 3 --dram-budget 40M --on-mem-edges 1 --json "$tmp/oc3.json" >/dev/null
expect "three partitions, three files, same nedge" python3 -c "
import json, os
a = json.load(open('$tmp/oc3.json')); b = json.load(open('$tmp/ic.json'))
assert all(os.path.exists('$tmp/o12/csr-p3/adj.%d.bin' % p) for p in range(3))
assert [s['nedge'] for s in a['searches']] == [s['nedge'] for s in b['searches']][:3]"

# A directory with the spec alone (issue 11: SCALE 28's tuples do not fit beside its CSR): every pass
# regenerates the tuples; answers equal the stored list's; validation in packed batches catches a planted cycle.
"$strata" generate --scale 12 --out "$tmp/s12" --no-tuples 2>/dev/null
expect "a spec-alone directory has no tuple file" bash -c "! test -e '$tmp/s12/edges.bin'"
expect "info says the tuples are regenerated" bash -c "'$strata' info '$tmp/s12' | grep -q '^tuples: regenerated'"
"$strata" run --graph "$tmp/s12" --roots 6 --placement out-of-core --dram-budget 40M --validate-batch 4 \
  --json "$tmp/s12.json" >/dev/null
expect "spec alone: out-of-core answers equal the stored list's, checked in packed passes" python3 -c "
import json; a = json.load(open('$tmp/s12.json')); b = json.load(open('$tmp/ic.json'))
assert [s['nedge'] for s in a['searches']] == [s['nedge'] for s in b['searches']]
assert a['validated'] and a['validate_batch'] == 4 and a['validation_tuple_passes'] == 2, a
assert a['validation_batch_bytes'] > 0 and a['tuple_file_bytes'] == 0 and a['csr_disk_bytes'] > 0"
expect_error "a planted cycle in a packed batch" "validation failed for search 5" "$strata" run --graph "$tmp/s12" \
  --roots 6 --placement out-of-core --dram-budget 40M --validate-batch 4 --debug-corrupt-search 5
# A packed batch that cannot fit is refused before kernel 0, not after kernel 1 (SCALE 30's header alone: 392
# GiB for 64 searches; no CSR is started).
"$strata" generate --scale 30 --out "$tmp/s30" --no-tuples 2>/dev/null
expect_error "a tiered --validate-batch that cannot fit, before any work" "--validate-batch 64 needs" timeout 20 \
  "$strata" run --graph "$tmp/s30" --placement out-of-core --validate-batch 64
expect "nothing was built for it" bash -c "! ls -d '$tmp/s30'/csr-* 2>/dev/null"

# Validation against the on-disk CSR (issue 11): spilled batches, one sequential pass each, the edge cache lent
# to the pass and reloaded (a budget the cache fills); answers equal in-core; a planted cycle caught; a scratch
# file that cannot be reserved refused by name; a tight budget left to choose takes it (fewer passes).
"$strata" generate --scale 16 --out "$tmp/o16" 2>/dev/null
"$strata" run --graph "$tmp/o16" --roots 6 --json "$tmp/ic16.json" >/dev/null
tight=(--placement out-of-core --dram-budget 4M --io-depth 4 --io-request 8K)
"$strata" run --graph "$tmp/o16" --roots 6 "${tight[@]}" --numa-nodes 3 --validate-against csr --validate-batch 3 \
  --json "$tmp/vc.json" >"$tmp/vc.txt"
expect "on-disk CSR validation: same answers, 2 passes, the cache lent and reloaded" python3 -c "
import json; a = json.load(open('$tmp/vc.json')); b = json.load(open('$tmp/ic16.json'))
assert [s['nedge'] for s in a['searches']] == [s['nedge'] for s in b['searches']]
assert a['validated'] and a['validation_method'] == 'csr' and not a['validation_csr_certified'], a
assert a['validation_csr_passes'] == 2 and a['validation_tuple_passes'] == 0 and a['validate_batch'] == 3, a
assert a['validation_lent_cache'] and a['validation_cache_reload_time'] > 0 and a['validation_spill_bytes'] > 0, a
assert all(s['valid'] for s in a['searches'])"
expect "the output says the CSR is not certified" grep -q "^validation: every search checked against kernel 1's on-disk CSR .*not certified" "$tmp/vc.txt"
expect "no scratch file is left" bash -c "! ls -a '$tmp/o16/csr-p3' | grep -q spill"
expect_error "a planted cycle in a spilled batch" "validation failed for search 4 (root" "$strata" run --graph "$tmp/o16" \
  --roots 6 "${tight[@]}" --validate-against csr --validate-batch 3 --debug-corrupt-search 4
"$strata" run --graph "$tmp/o16" --roots 1 --placement out-of-core --no-validate >/dev/null
expect_error "scratch space that cannot be reserved" "of scratch space for validation in $tmp/o16/csr-p1" \
  bash -c "ulimit -f 100; exec '$strata' run --graph '$tmp/o16' --roots 2 ${tight[*]} --validate-against csr"
"$strata" run --graph "$tmp/o16" --roots 6 "${tight[@]}" --json "$tmp/va.json" >/dev/null
expect "a tight budget left to choose validates against the on-disk CSR" python3 -c "
import json; a = json.load(open('$tmp/va.json'))
assert a['validated'] and a['validation_method'] == 'csr' and a['validation_csr_passes'] < 6, a"

# Kernel 1 distributes the renumbered tuples once into a bucket a range on disk and builds each range from its
# bucket (issues 11, 24): the same answers as in-core, the tuples read once after the degree pass, the buckets
# coded below the 5 bytes an entry reserved, nothing left behind, and scratch that cannot be reserved refused.
"$strata" generate --scale 16 --out "$tmp/s16" --no-tuples 2>/dev/null
"$strata" run --graph "$tmp/s16" --roots 6 "${tight[@]}" --json "$tmp/rn.json" >/dev/null
expect "tuple buckets: same answers, several ranges, one pass over the tuples, the scratch reported" python3 -c "
import json; a = json.load(open('$tmp/rn.json')); b = json.load(open('$tmp/ic16.json'))
assert [s['nedge'] for s in a['searches']] == [s['nedge'] for s in b['searches']]
assert a['validated'] and a['csr_build_passes'] >= 2 and a['csr_build_tuple_passes'] == 1, a
assert 0 < a['csr_build_renumbered_bytes'] <= 10 << 20, a"
expect "no bucket scratch file is left" bash -c "! ls -a '$tmp/s16' | grep -q spill"
rm -rf "$tmp/s16/csr-p1"
expect_error "bucket scratch that cannot be reserved" "of scratch space for kernel 1's tuple buckets in $tmp/s16" \
  bash -c "ulimit -f 100; exec '$strata' run --graph '$tmp/s16' --roots 2 ${tight[*]}"
expect "a refused build leaves no CSR" bash -c "! test -e '$tmp/s16/csr-p1'"

finish
