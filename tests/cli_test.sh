#!/usr/bin/env bash
# The strata command line end to end: output contracts and every bad input's one-line error.
set -uo pipefail
strata=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
pass=0

# expect_error "what" "message fragment" command...: non-zero exit, one stderr line naming the cause.
expect_error() {
  local what=$1 fragment=$2
  shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if ((rc == 0)); then echo "FAIL: $what: exit 0"; ((failures++)); return; fi
  if [[ $err != *"$fragment"* ]]; then echo "FAIL: $what: stderr lacks '$fragment': $err"; ((failures++)); return; fi
  if (($(printf '%s\n' "$err" | wc -l) != 1)); then echo "FAIL: $what: not one line: $err"; ((failures++)); return; fi
  ((pass++))
}
expect() {
  local what=$1
  shift
  if "$@"; then ((pass++)); else echo "FAIL: $what"; ((failures++)); fi
}

# --checksum prints the contract lines (values from GRAPH500.md section 6)
out=$("$strata" generate --scale 10 --checksum)
expect "checksum edges" grep -qx "edges: 16384" <<<"$out"
expect "checksum self_loops" grep -qx "self_loops: 144" <<<"$out"
expect "checksum fnv line" grep -qE "^fnv1a64: 0x[0-9a-f]{16}$" <<<"$out"

expect_error "SCALE 0" "SCALE must be in 1..40" "$strata" generate --scale 0 --checksum
expect_error "SCALE 41" "SCALE must be in 1..40" "$strata" run --scale 41
expect_error "edgefactor 0" "edgefactor must be at least 1" "$strata" generate --scale 5 --edgefactor 0 --checksum
expect_error "malformed seed" "malformed --seed" "$strata" generate --scale 5 --seed 7 --checksum
expect_error "malformed seed number" "malformed seed" "$strata" generate --scale 5 --seed 1,x --checksum
expect_error "negative seed" "malformed seed" "$strata" generate --scale 5 --seed -1,2 --checksum
expect_error "unknown flag" "--bogus" "$strata" run --scale 5 --bogus
expect_error "too big for memory" "of memory for an in-core run" "$strata" run --scale 36
expect_error "unwritable out" "cannot create" "$strata" generate --scale 5 --out /proc/strata-graph
expect_error "missing graph" "does not exist" "$strata" run --graph "$tmp/nothing"

"$strata" generate --scale 8 --out "$tmp/g" 2>/dev/null
expect "generate writes a directory" test -f "$tmp/g/graph.hdr"
expect_error "existing out" "already exists" "$strata" generate --scale 8 --out "$tmp/g"
expect "info ok" bash -c "'$strata' info '$tmp/g' | grep -qx 'checksums: ok'"
expect "force replaces" "$strata" generate --scale 9 --out "$tmp/g" --force
expect "info sees new SCALE" bash -c "'$strata' info '$tmp/g' | grep -qx 'SCALE: 9'"

# A full disk (here a file-size limit) fails the write and leaves nothing behind.
expect_error "full disk" "cannot write" bash -c "ulimit -f 64; exec '$strata' generate --scale 12 --out '$tmp/full'"
expect "no partial output" bash -c "! ls '$tmp' | grep -q full"

cp -r "$tmp/g" "$tmp/trunc" && truncate -s -16 "$tmp/trunc/edges.bin"
expect_error "truncated" "truncated" "$strata" info "$tmp/trunc"
expect_error "truncated run" "truncated" "$strata" run --graph "$tmp/trunc" --roots 2
cp -r "$tmp/g" "$tmp/flip" && printf '\x55' | dd of="$tmp/flip/edges.bin" bs=1 seek=1000 conv=notrunc 2>/dev/null
expect_error "bit flip info" "checksum mismatch" "$strata" info "$tmp/flip"
expect_error "bit flip run" "checksum mismatch" "$strata" run --graph "$tmp/flip" --roots 2
cp -r "$tmp/g" "$tmp/magic" && printf 'X' | dd of="$tmp/magic/graph.hdr" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_error "bad magic" "bad magic" "$strata" info "$tmp/magic"

# A run prints every statistics key and writes the JSON contract.
"$strata" run --graph "$tmp/g" --roots 8 --numa-nodes 2 --json "$tmp/r.json" >"$tmp/run.txt" 2>/dev/null
expect "run exit 0" test $? -eq 0
for key in SCALE edgefactor NBFS graph_generation num_mpi_processes construction_time bfs_min_time \
  bfs_firstquartile_time bfs_median_time bfs_thirdquartile_time bfs_max_time bfs_mean_time bfs_stddev_time \
  min_nedge firstquartile_nedge median_nedge thirdquartile_nedge max_nedge mean_nedge stddev_nedge bfs_min_TEPS \
  bfs_firstquartile_TEPS bfs_median_TEPS bfs_thirdquartile_TEPS bfs_max_TEPS bfs_harmonic_mean_TEPS \
  bfs_harmonic_stddev_TEPS bfs_min_validate bfs_firstquartile_validate bfs_median_validate \
  bfs_thirdquartile_validate bfs_max_validate bfs_mean_validate bfs_stddev_validate; do
  expect "block has $key" grep -q "^$key: " "$tmp/run.txt"
done
expect "json contract" python3 - "$tmp/r.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
need = ["scale", "edgefactor", "seed", "nbfs", "placement", "threads", "graph_generation", "construction_time",
        "bfs_harmonic_mean_TEPS", "bfs_median_time", "searches"]
assert all(k in j for k in need), [k for k in need if k not in j]
assert j["placement"] == "in-core" and j["nbfs"] == 8 and j["scale"] == 9 and j["seed"] == [2, 3]
for s in j["searches"]:
    assert set(["root", "time", "nedge", "teps", "validate_time", "valid"]) <= set(s) and s["valid"] is True
PY
"$strata" run --scale 10 --roots 3 --trace >/dev/null 2>"$tmp/trace.txt"
expect "trace lines" grep -qE "^trace: search 0 root 458 level 0 top-down frontier 1 edges [0-9]+ time" "$tmp/trace.txt"

# A planted error in one search: the statistics are withheld, the search, root and rule are named, exit 1.
"$strata" run --scale 10 --roots 4 --debug-corrupt-search 2 >"$tmp/bad.txt" 2>"$tmp/bad.err"
expect "corrupted run exits 1" test $? -eq 1
expect "names search, root and rule" grep -qE "^validation failed for search 2 \(root 220\): rule 1: .*cycle" "$tmp/bad.txt"
expect "no statistics after a failure" bash -c "! grep -q TEPS '$tmp/bad.txt'"
expect "one error line on stderr" bash -c "grep -c . '$tmp/bad.err' | grep -qx 1"

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
assert [s["nedge"] for s in oc["searches"]] == [s["nedge"] for s in ic["searches"]]
for s in oc["searches"]:
    assert s["valid"] is True and s["edges_dram"] + s["edges_storage"] == s["edges_examined"] and s["bytes_read"] > 0
PY
"$strata" run --graph "$tmp/o12" --roots 2 --placement out-of-core --dram-budget 40M --json "$tmp/oc2.json" >/dev/null
expect "the CSR is reused, K from the budget" python3 -c "
import json; j = json.load(open('$tmp/oc2.json')); assert j['csr_reused'] and j['on_mem_edges_all'], j"
"$strata" run --graph "$tmp/o12" --roots 2 --placement out-of-core --dram-budget 40M --trace >/dev/null 2>"$tmp/otrace.txt"
expect "out-of-core trace has I/O" grep -qE "^trace: .* storage_edges [0-9]+ bytes_read [0-9]+ io_requests [0-9]+$" "$tmp/otrace.txt"
expect_error "out-of-core needs a graph dir" "needs a graph directory" "$strata" run --scale 10 --placement out-of-core
expect_error "unknown placement" "unknown --placement" "$strata" run --scale 10 --placement nvram
expect_error "budget below I/O buffers" "is below the minimum" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 1M
expect_error "malformed budget" "malformed --dram-budget" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 12Q
expect_error "cache larger than the budget" "more than --dram-budget" "$strata" run --graph "$tmp/o12" --placement out-of-core --dram-budget 100K --io-depth 1 --io-request 4K --on-mem-edges 100000
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

# DAX on a plain file forced to count as pmem: the in-core answers, read in place, is_pmem reported.
rm -rf "$tmp/o12/csr-p1"
PMEM_IS_PMEM_FORCE=1 "$strata" run --graph "$tmp/o12" --roots 6 --placement dax --json "$tmp/dax.json" >"$tmp/dax.txt"
expect "dax run succeeds" test $? -eq 0
expect "dax says is_pmem" grep -qx "is_pmem: true" "$tmp/dax.txt"
expect "dax JSON" python3 - "$tmp/ic.json" "$tmp/dax.json" <<'PY'
import json, sys
ic, dx = (json.load(open(f)) for f in sys.argv[1:3])
assert dx["placement"] == "dax" and dx["is_pmem"] is True and dx["on_mem_edges"] == 0 and dx["edge_cache_bytes"] == 0
assert [s["nedge"] for s in dx["searches"]] == [s["nedge"] for s in ic["searches"]]
assert all(s["valid"] and s["edges_storage"] == s["edges_examined"] for s in dx["searches"])
PY
"$strata" run --graph "$tmp/o12" --roots 2 --placement dax --on-mem-edges 4 >"$tmp/dax2.txt" 2>"$tmp/dax2.err"
expect "dax off pmem warns and still runs" bash -c "grep -qx 'is_pmem: false' '$tmp/dax2.txt' && grep -q 'is not on persistent memory' '$tmp/dax2.err'"

# A graph directory on tmpfs: out-of-core still answers, with a warning that its files live in DRAM.
if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]]; then
  shm=$(mktemp -d /dev/shm/strata-test-XXXXXX)
  "$strata" generate --scale 10 --out "$shm/g" 2>/dev/null
  "$strata" run --graph "$shm/g" --roots 2 --placement out-of-core --dram-budget 40M --on-mem-edges 1 >/dev/null 2>"$tmp/shm.err"
  expect "tmpfs: runs and warns" bash -c "grep -q 'is on tmpfs: the file itself lives in DRAM' '$tmp/shm.err'"
  rm -rf "$shm"
else
  echo "skip: /dev/shm is not tmpfs (tmpfs warning not checked)"
fi

# Expanded memory: node ids are checked; the JSON says where each structure lives.
expect_error "missing NUMA node" "NUMA node 999 does not exist" "$strata" run --scale 10 --mem-nodes 999
expect_error "malformed node list" "malformed --mem-nodes" "$strata" run --scale 10 --mem-nodes 2-1
expect_error "mem-nodes is in-core only" "do not apply to --placement out-of-core" "$strata" run --graph "$tmp/o12" --placement out-of-core --mem-nodes 0
"$strata" run --scale 10 --roots 2 --mem-nodes 0 --json "$tmp/mem.json" >/dev/null
expect "adjacency on the chosen node" python3 -c "
import json; j = json.load(open('$tmp/mem.json'))
assert j['mem_nodes'] == [0] and j['memory_placement']['adjacency'] == 'bound to nodes 0', j['memory_placement']
assert j['memory_placement']['parents'].startswith('partitioned over CPU nodes')"
"$strata" run --scale 10 --roots 2 --interleave --json "$tmp/il.json" >/dev/null
expect "interleave recorded" python3 -c "
import json; j = json.load(open('$tmp/il.json')); assert j['interleave'] and j['memory_placement']['adjacency'].startswith('interleaved')"

# compare: one row per placement, the same nedge everywhere, JSON per placement, a real PNG.
PMEM_IS_PMEM_FORCE=1 "$strata" compare --graph "$tmp/o12" --roots 4 --dram-budget 20M --json "$tmp/cmp.json" \
  --plot "$tmp/cmp.png" >"$tmp/cmp.txt" 2>/dev/null
expect "compare succeeds" test $? -eq 0
expect "compare table" bash -c "head -1 '$tmp/cmp.txt' | grep -q 'placement.*harmonic_mean_TEPS.*ratio.*dram_bytes.*storage_bytes_read.*construction_time.*validated' && grep -cE '^(in-core|out-of-core|dax) .* yes$' '$tmp/cmp.txt' | grep -qx 3"
expect "compare JSON" python3 -c "
import json; j = json.load(open('$tmp/cmp.json')); p = j['placements']
assert [x['placement'] for x in p] == ['in-core', 'out-of-core', 'dax']
assert len({tuple(s['nedge'] for s in x['searches']) for x in p}) == 1 and all(x['nbfs'] == 4 for x in p)"
expect "compare PNG" bash -c "head -c 8 '$tmp/cmp.png' | od -An -c | grep -q 'P   N   G'"
expect_error "compare bad placement" "unknown placement 'ssd'" "$strata" compare --graph "$tmp/o12" --placements in-core,ssd
PATH=/nonexistent "$strata" compare --graph "$tmp/o12" --roots 1 --placements in-core --plot "$tmp/none.png" >/dev/null 2>"$tmp/noplot.err"
expect "no gnuplot: warned, still succeeds" bash -c "grep -q 'gnuplot not found' '$tmp/noplot.err' && ! test -e '$tmp/none.png'"

# tune: >= 5 points including K = 1, 2, 4, 8, 16, a CSV, a PNG, a recommendation.
"$strata" tune --graph "$tmp/o12" --dram-budget 20M --roots 2 --csv "$tmp/tune.csv" --plot "$tmp/tune.png" >"$tmp/tune.txt" 2>/dev/null
expect "tune succeeds" test $? -eq 0
expect "tune CSV" python3 -c "
import csv; rows = list(csv.DictReader(open('$tmp/tune.csv')))
ks = [int(r['on_mem_edges']) for r in rows]
assert len(rows) >= 5 and {0, 1, 2, 4, 8, 16} <= set(ks), ks
assert all(r['validated'] == 'yes' and float(r['harmonic_mean_TEPS']) > 0 for r in rows)
sizes = [int(r['cache_bytes']) for r in rows]; assert sizes == sorted(sizes) and sizes[-1] <= 20 << 20"
expect "tune recommends" grep -qE "^recommended: --on-mem-edges [0-9]+ \(edge cache .*within 5% of the best TEPS" "$tmp/tune.txt"
expect "tune PNG" bash -c "head -c 8 '$tmp/tune.png' | od -An -c | grep -q 'P   N   G'"
expect_error "tune budget too small" "leaves nothing for the edge cache" "$strata" tune --graph "$tmp/o12" --dram-budget 1M
expect_error "tune placement" "tune sweeps --placement out-of-core or dax" "$strata" tune --graph "$tmp/o12" --dram-budget 1G --placement in-core

echo "$pass passed, $failures failed"
((failures == 0))
