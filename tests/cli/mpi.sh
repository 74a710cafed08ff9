#!/usr/bin/env bash
# `mpirun -np P strata run` (P is $2): roots, nedge and validity equal the single-process run's, generated, from
# graph directories, out-of-core and dax (each rank's rows on its storage); the block and JSON name P and each rank;
# a planted fault on one rank fails the run; a bad file read by one rank ends every rank at once, with a message
# naming the rank; unsupported options refused.
source "$(dirname "$0")/lib.sh"
P=$2
need_mpi
mpi() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$P" "$strata" "$@"; }

# same_searches A.json B.json: the same roots, nedge and verdicts, in order.
same_searches() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda j: [(s["root"], s["nedge"], s["valid"]) for s in j["searches"]]
assert key(a) == key(b), (key(a)[:3], key(b)[:3])
assert a["directed_edges"] == b["directed_edges"], (a["directed_edges"], b["directed_edges"])
PY
}

# Generated on the fly, every direction policy.
"$strata" run --scale 11 --roots 12 --json "$tmp/one.json" >/dev/null 2>&1
mpi run --scale 11 --roots 12 --threads 1 --json "$tmp/mpi.json" >"$tmp/mpi.txt" 2>"$tmp/mpi.err"
expect "mpirun -np $P run exits 0" test $? -eq 0
expect "same roots, nedge, validity as one process" same_searches "$tmp/one.json" "$tmp/mpi.json"
expect "block names $P processes" grep -qx "num_mpi_processes:              $P" "$tmp/mpi.txt"
expect "every search validated" grep -q "12 of 12 searches validated" "$tmp/mpi.txt"
expect "an mpi line" grep -qE "^mpi: $P ranks? x 1 thread" "$tmp/mpi.txt"
expect "json: each rank and the bytes each search sent" python3 - "$tmp/mpi.json" "$P" <<'PY'
import json, sys
j, p = json.load(open(sys.argv[1])), int(sys.argv[2])
assert j["num_mpi_processes"] == p and j["mpi"]["processes"] == p
ranks = j["mpi"]["ranks"]
assert [r["rank"] for r in ranks] == list(range(p))
for r in ranks:
    assert r["dram_bytes"] > 0 and r["threads"] == 1 and "host" in r and "search_bytes_sent" in r
assert sum(r["directed_edges"] for r in ranks) == j["directed_edges"]
assert all("bytes_sent" in s for s in j["searches"])
if p > 1: assert all(s["bytes_sent"] > 0 for s in j["searches"])
PY
# 64-bit ids (SCALE 32 and above; --debug-id-bytes 8 forces them): the same searches.
mpi run --scale 11 --roots 12 --threads 1 --debug-id-bytes 8 --json "$tmp/mpi64.json" >/dev/null 2>&1
expect "64-bit ids: exit 0" test $? -eq 0
expect "64-bit ids: same as one process" same_searches "$tmp/one.json" "$tmp/mpi64.json"
expect "json id_bytes: 4, and 8 when forced" python3 -c "
import json; assert json.load(open('$tmp/mpi.json'))['id_bytes'] == 4 and json.load(open('$tmp/mpi64.json'))['id_bytes'] == 8"
for policy in --top-down-only --bottom-up-only; do
  "$strata" run --scale 10 --roots 4 $policy --json "$tmp/one$policy.json" >/dev/null 2>&1
  mpi run --scale 10 --roots 4 --threads 2 $policy --json "$tmp/mpi$policy.json" >/dev/null 2>&1
  expect "$policy: exit 0" test $? -eq 0
  expect "$policy: same as one process" same_searches "$tmp/one$policy.json" "$tmp/mpi$policy.json"
done

# Graph directories: stored tuples (two blocks, so ranks read different ones) and the spec alone.
"$strata" generate --scale 17 --out "$tmp/g" 2>/dev/null
"$strata" generate --scale 13 --no-tuples --out "$tmp/spec" 2>/dev/null
for dir in g spec; do
  "$strata" run --graph "$tmp/$dir" --roots 4 --json "$tmp/one-$dir.json" >/dev/null 2>&1
  mpi run --graph "$tmp/$dir" --roots 4 --threads 1 --json "$tmp/mpi-$dir.json" >/dev/null 2>&1
  expect "--graph $dir: exit 0" test $? -eq 0
  expect "--graph $dir: same as one process" same_searches "$tmp/one-$dir.json" "$tmp/mpi-$dir.json"
done

# Out-of-core: each rank's rows in its own directory (under --rank-dir), a budget a rank, tails read with
# io_uring; the same searches as one process; a second run reuses every rank's rows; a damaged rank file ends
# every rank with its name and how to rebuild.
mpi run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 9M --rank-dir "$tmp/ranks" \
  --json "$tmp/ooc.json" >"$tmp/ooc.txt" 2>"$tmp/ooc.err"
rc=$?
expect "out-of-core: exit 0 ($(tail -1 "$tmp/ooc.err"))" test $rc -eq 0
expect "out-of-core: same as one process" same_searches "$tmp/one-g.json" "$tmp/ooc.json"
expect "out-of-core: a directory a rank" test -f "$tmp/ranks/mpi-p$P/rank-$((P - 1))/csr.hdr"
expect "out-of-core: placement lines" grep -q "^placement: out-of-core" "$tmp/ooc.txt"
expect "out-of-core: json per rank, tails read from storage" python3 - "$tmp/ooc.json" "$P" <<'PY'
import json, sys
j, p = json.load(open(sys.argv[1])), int(sys.argv[2])
assert j["placement"] == "out-of-core"
ranks = j["mpi"]["ranks"]
assert len(ranks) == p and all(not r["rows_reused"] and r["dram_budget"] == 9 << 20 for r in ranks)
assert all(r["rows_dir"].endswith(f"mpi-p{p}/rank-{r['rank']}") for r in ranks)
assert sum(r["bytes_read"] for r in ranks) > 0 and j["bytes_read"] > 0
# built from rows spilled to the rank's storage, in passes that each hold at most the budget's rows
assert all(r["build_passes"] >= 1 for r in ranks) and (p > 2 or max(r["build_passes"] for r in ranks) > 1), ranks
PY
mpi run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 64M --rank-dir "$tmp/ranks" \
  --json "$tmp/ooc2.json" >/dev/null 2>&1
expect "out-of-core reused: exit 0" test $? -eq 0
expect "out-of-core reused: same as one process" same_searches "$tmp/one-g.json" "$tmp/ooc2.json"
expect "out-of-core reused: every rank's rows" python3 -c "
import json; j = json.load(open('$tmp/ooc2.json')); assert all(r['rows_reused'] for r in j['mpi']['ranks'])"
# Hubs (--hub-degree): each rank keeps its lists of at least that many entries whole in DRAM, the others only on
# storage (K = 0): the same searches, fewer bytes read than with no cache; a budget that cannot hold a rank's hubs
# is refused with the figures.
for hubs in "" "--hub-degree 64"; do
  # shellcheck disable=SC2086  # hubs: no flag or two words
  mpi run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --on-mem-edges 0 $hubs --rank-dir "$tmp/ranks" \
    --json "$tmp/hubs${hubs:+-64}.json" >/dev/null 2>&1
  expect "on-mem-edges 0 ${hubs:-without hubs}: exit 0" test $? -eq 0
  expect "on-mem-edges 0 ${hubs:-without hubs}: same as one process" same_searches "$tmp/one-g.json" "$tmp/hubs${hubs:+-64}.json"
done
expect "--hub-degree 64: every rank caches its hubs' lists, fewer bytes read" python3 - "$tmp/hubs.json" "$tmp/hubs-64.json" <<'PY'
import json, sys
none, hubs = (json.load(open(p)) for p in sys.argv[1:3])
assert none["hub_degree"] is None and hubs["hub_degree"] == 64
assert all(r["edge_cache_bytes"] == 0 for r in none["mpi"]["ranks"])
assert all(r["edge_cache_bytes"] > 0 and r["on_mem_edges"] == 0 for r in hubs["mpi"]["ranks"])
assert 0 < hubs["bytes_read"] < none["bytes_read"], (hubs["bytes_read"], none["bytes_read"])
PY
mpi run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --dram-budget 9M --hub-degree 1 \
  --rank-dir "$tmp/ranks" >/dev/null 2>"$tmp/hubs.err"
expect "hubs the budget cannot hold: refused with the figures" \
  grep -qE "rank [0-9]+ of $P: --dram-budget 9.0 MiB cannot hold this rank's hubs' lists \(--hub-degree 1\): they need" "$tmp/hubs.err"
# Rows of 64-bit ids on storage: the same searches; a run of the other id width refuses them by name.
mpi run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 9M --debug-id-bytes 8 \
  --rank-dir "$tmp/ranks64" --json "$tmp/ooc64.json" >/dev/null 2>&1
expect "out-of-core, 64-bit ids: exit 0" test $? -eq 0
expect "out-of-core, 64-bit ids: same as one process" same_searches "$tmp/one-g.json" "$tmp/ooc64.json"
mpi run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --dram-budget 9M --rank-dir "$tmp/ranks64" \
  >/dev/null 2>"$tmp/width.err"
expect "rows of the other id width: refused, how to rebuild" \
  grep -qE "rank-[0-9]+ holds rows of 8-byte ids; this run uses 4-byte ids; remove it to rebuild" "$tmp/width.err"
# Storage that misbehaves under a search: short reads are finished (same result); a failed read ends every rank
# at once with the rank, the file and the offset named, and no statistics.
mpi run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 9M --rank-dir "$tmp/ranks" \
  --debug-io-faults short:2 --json "$tmp/short.json" >/dev/null 2>&1
expect "short reads on every rank: exit 0" test $? -eq 0
expect "short reads on every rank: same as one process" same_searches "$tmp/one-g.json" "$tmp/short.json"
expect "short reads on every rank: tails were read" python3 -c "
import json; j = json.load(open('$tmp/short.json')); assert sum(r['bytes_read'] for r in j['mpi']['ranks']) > 0"
start=$SECONDS
mpi run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 9M --rank-dir "$tmp/ranks" \
  --debug-io-faults eio:3 >"$tmp/eio.txt" 2>"$tmp/eio.err"
rc=$?
expect "a failed read: non-zero exit" test $rc -ne 0 -a $rc -ne 124
expect "a failed read: every rank ended within 30 s" test $((SECONDS - start)) -lt 30
expect "a failed read: the rank, file and offset named" \
  grep -qE "strata: error: rank [0-9]+ of $P: read failed: .*rank-[0-9]+/adj.0.bin at offset [0-9]+ .*Input/output error" "$tmp/eio.err"
expect "a failed read: no statistics" bash -c "! grep -q TEPS '$tmp/eio.txt'"
printf 'X' | dd of="$tmp/ranks/mpi-p$P/rank-$((P - 1))/adj.0.bin" bs=1 seek=100 conv=notrunc status=none
mpi run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 64M --rank-dir "$tmp/ranks" \
  >"$tmp/oocbad.txt" 2>"$tmp/oocbad.err"
expect "damaged rank file: non-zero exit" test $? -ne 0
expect "damaged rank file: the rank, the file and the way out named" \
  grep -qE "strata: error: rank $((P - 1)) of $P: .*rank-$((P - 1))/adj.0.bin is corrupted.*remove .*rank-$((P - 1))" "$tmp/oocbad.err"
expect "damaged rank file: no statistics" bash -c "! grep -q TEPS '$tmp/oocbad.txt'"
mpi run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --dram-budget 1M --rank-dir "$tmp/ranks2" \
  >/dev/null 2>"$tmp/small.err"
expect "a budget below the I/O buffers: refused" grep -q "dram-budget 1.0 MiB is below this rank's I/O buffers" "$tmp/small.err"

# DAX: each rank's rows mapped with libpmem and read in place (PMEM_IS_PMEM_FORCE=1: plain files count as
# pmem), without and with an edge cache.
for budget in "" "--dram-budget 2M"; do
  # shellcheck disable=SC2086  # budget: no flag or two words
  PMEM_IS_PMEM_FORCE=1 timeout 120 mpirun --allow-run-as-root --oversubscribe -x PMEM_IS_PMEM_FORCE -np "$P" "$strata" \
    run --graph "$tmp/g" --roots 4 --threads 1 --placement dax $budget --rank-dir "$tmp/pm" --json "$tmp/dax.json" \
    >"$tmp/dax.txt" 2>&1
  expect "dax ${budget:-without a cache}: exit 0" test $? -eq 0
  expect "dax ${budget:-without a cache}: same as one process" same_searches "$tmp/one-g.json" "$tmp/dax.json"
  expect "dax ${budget:-without a cache}: read in place, is_pmem" python3 -c "
import json; j = json.load(open('$tmp/dax.json'))
assert j['placement'] == 'dax' and j['is_pmem'] and sum(s['edges_storage'] for s in j['searches']) > 0"
done

# A planted fault in one rank's part of a search: the run fails, names the search and the rule, no statistics.
mpi run --scale 11 --roots 4 --threads 1 --debug-corrupt-search 1 >"$tmp/bad.txt" 2>"$tmp/bad.err"
expect "planted fault: non-zero exit" test $? -ne 0
expect "planted fault: search, root and rule named" grep -qE "^validation failed for search 1 \(root [0-9]+\): rule 1: .*cycle" "$tmp/bad.txt"
expect "planted fault: no statistics" bash -c "! grep -q TEPS '$tmp/bad.txt'"

# A bad block read by one rank only (the last block goes to the last rank that reads any): every rank ends
# within seconds, the message names the rank and the cause, and nothing is printed as a result.
cp -r "$tmp/g" "$tmp/bad"
printf 'X' | dd of="$tmp/bad/edges.bin" bs=1 seek=$((1048576 * 8 + 100)) conv=notrunc status=none
start=$SECONDS
mpi run --graph "$tmp/bad" --roots 4 --threads 1 >"$tmp/badfile.txt" 2>"$tmp/badfile.err"
rc=$?
expect "bad file: non-zero exit" test $rc -ne 0 -a $rc -ne 124
expect "bad file: every rank ended within 30 s" test $((SECONDS - start)) -lt 30
expect "bad file: the rank and the block named" grep -qE "strata: error: rank $((P - 1)) of $P: .*block 1" "$tmp/badfile.err"
expect "bad file: no statistics" bash -c "! grep -q TEPS '$tmp/badfile.txt'"

# What the distributed run does not do yet: refused up front, by rank 0 alone.
mpi run --scale 10 --placement out-of-core --roots 2 >/dev/null 2>"$tmp/nodir.err"
expect "out-of-core without a graph directory refused" grep -q "out-of-core under mpirun .* needs a graph directory" "$tmp/nodir.err"
mpi run --scale 10 --roots 2 --rank-dir "$tmp/x" >/dev/null 2>"$tmp/rd.err"
expect "--rank-dir with in-core refused" grep -q "rank-dir holds each rank's rows for --placement out-of-core or dax" "$tmp/rd.err"
mpi run --scale 10 --roots 4 --threads 1 --interleave --json "$tmp/il.json" >/dev/null 2>&1
expect "--interleave: the ranks' rows interleaved, exit 0" test $? -eq 0
mpi run --scale 10 --roots 2 --mem-nodes 77 >/dev/null 2>"$tmp/mn.err"
expect "--mem-nodes with a node the machine lacks: refused" grep -q "strata: error:.*77" "$tmp/mn.err"
mpi run --scale 10 --bogus >/dev/null 2>"$tmp/flag.err"
expect "a bad flag: non-zero exit" test $? -ne 0
expect "a bad flag: said once" test "$(grep -c 'strata: error:.*bogus' "$tmp/flag.err")" -eq 1
if ((P > 1)); then
  mpi generate --scale 8 --out "$tmp/x" >/dev/null 2>"$tmp/gen.err"
  expect "generate refused under mpirun" grep -q "strata: error: strata generate runs in one process" "$tmp/gen.err"
  expect "nothing generated" test ! -e "$tmp/x"
fi
finish
