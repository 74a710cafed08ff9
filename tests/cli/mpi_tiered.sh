#!/usr/bin/env bash
# `mpirun -np P strata run` out-of-core and dax, several rank counts in one entry: each rank's rows on its own
# storage (built once, then reused), read with io_uring or mapped with libpmem, give the single-process searches;
# hubs cached whole; rows of the other id width refused; short reads finished, a failed read and a damaged rank
# file end every rank, naming it; budgets too small refused with the figures.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp
need_mpi
source "$(dirname "$0")/mpi_lib.sh" || exit 1

"$strata" generate --scale 15 --out "$tmp/g" 2>/dev/null
"$strata" run --graph "$tmp/g" --roots 4 --json "$tmp/one-g.json" >/dev/null 2>&1

# Out-of-core: each rank's rows in its own directory (under --rank-dir), a budget a rank, tails read with
# io_uring; the same searches as one process; a second run reuses every rank's rows.
for P in 2 3; do
  mpi $P run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 9M --rank-dir "$tmp/ranks" \
    --json "$tmp/ooc$P.json" >"$tmp/ooc.txt" 2>"$tmp/ooc.err"
  expect "out-of-core, $P ranks: exit 0 ($(tail -1 "$tmp/ooc.err"))" test $? -eq 0
  expect "out-of-core, $P ranks: same as one process" same_searches "$tmp/one-g.json" "$tmp/ooc$P.json"
  expect "out-of-core, $P ranks: a directory a rank" test -f "$tmp/ranks/mpi-p$P/rank-$((P - 1))/csr.hdr"
  expect "out-of-core, $P ranks: placement lines" grep -q "^placement: out-of-core" "$tmp/ooc.txt"
  expect "out-of-core, $P ranks: json per rank, tails read from storage" python3 - "$tmp/ooc$P.json" "$P" <<'PY'
import json, sys
j, p = json.load(open(sys.argv[1])), int(sys.argv[2])
assert j["placement"] == "out-of-core"
ranks = j["mpi"]["ranks"]
assert len(ranks) == p and all(not r["rows_reused"] and r["dram_budget"] == 9 << 20 for r in ranks)
assert all(r["rows_dir"].endswith(f"mpi-p{p}/rank-{r['rank']}") for r in ranks)
assert sum(r["bytes_read"] for r in ranks) > 0 and j["bytes_read"] > 0
# built from the received rows distributed to buckets on the rank's storage, a range of lists (at most the budget's
# rows) from each; the buckets coded below the 8 bytes an entry of the pairs
assert all(r["build_passes"] >= 1 for r in ranks) and (p > 2 or max(r["build_passes"] for r in ranks) > 1), ranks
assert all(0 < r["build_bucket_bytes"] < 8 * r["directed_edges"] for r in ranks), ranks
# each rank's build by phase, as one process's csr_build_phase_seconds
assert all(sorted(r["build_phase_seconds"]) == ["distribute", "fill", "sort", "write"] for r in ranks), ranks
assert all(min(r["build_phase_seconds"].values()) >= 0 and r["build_phase_seconds"]["distribute"] > 0
           and r["build_phase_seconds"]["fill"] > 0 for r in ranks), ranks
# this budget's cache holds over half of each rank's rows: read back from them, no prefixes kept as they were written
assert j["cache_source"] == "csr" and all(r["cache_source"] == "csr" and r["cache_prefixes_written"] == 0 for r in ranks)
PY
done
# A short prefix (K = 4), and room beside the rows for the prefixes' buffers (12M): each rank's edge cache cut
# from the prefixes it kept as it wrote its rows, at most K entries a vertex, not read back from its rows; the
# same searches.
P=2
mpi $P run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 12M --on-mem-edges 4 \
  --rank-dir "$tmp/ranks-k4" --json "$tmp/k4.json" >/dev/null 2>&1
expect "out-of-core, K = 4: exit 0" test $? -eq 0
expect "out-of-core, K = 4: same as one process" same_searches "$tmp/one-g.json" "$tmp/k4.json"
expect "out-of-core, K = 4: each rank's cache cut from the prefixes kept as its rows were written" python3 -c "
import json; j = json.load(open('$tmp/k4.json')); ranks = j['mpi']['ranks']
assert j['cache_source'] == 'build' and all(r['cache_source'] == 'build' and r['on_mem_edges'] == 4 for r in ranks), ranks
assert all(0 < r['edge_cache_bytes'] <= r['cache_prefixes_written'] <= 4 * 4 * (r['end_vertex'] - r['first_vertex'])
           for r in ranks), ranks"
mpi $P run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 64M --rank-dir "$tmp/ranks" \
  --json "$tmp/ooc-again.json" >/dev/null 2>&1
expect "out-of-core reused: exit 0" test $? -eq 0
expect "out-of-core reused: same as one process" same_searches "$tmp/one-g.json" "$tmp/ooc-again.json"
expect "out-of-core reused: every rank's rows, no buckets" python3 -c "
import json; j = json.load(open('$tmp/ooc-again.json'))
assert all(r['rows_reused'] and r['build_bucket_bytes'] == 0 and r['build_phase_seconds'] is None for r in j['mpi']['ranks'])
assert j['cache_source'] == 'csr' and all(r['cache_source'] == 'csr' and r['cache_prefixes_written'] == 0 for r in j['mpi']['ranks'])"
# Hubs (--hub-degree): each rank keeps its lists of at least that many entries whole in DRAM, the others only on
# storage (K = 0): the same searches, fewer bytes read than with no cache; a budget that cannot hold a rank's hubs
# is refused with the figures.
for hubs in "" "--hub-degree 64"; do
  # shellcheck disable=SC2086  # hubs: no flag or two words
  mpi $P run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --on-mem-edges 0 $hubs --rank-dir "$tmp/ranks" \
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
mpi $P run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --dram-budget 9M --hub-degree 1 \
  --rank-dir "$tmp/ranks" >/dev/null 2>"$tmp/hubs.err"
expect "hubs the budget cannot hold: refused with the figures, once" test "$(grep -cE \
  "rank [0-9]+ of $P: --dram-budget 9.0 MiB cannot hold this rank's hubs' lists \(--hub-degree 1\): they need" "$tmp/hubs.err")" -eq 1
# Rows of 64-bit ids on storage: the same searches; a run of the other id width refuses them by name.
P=3
mpi $P run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 9M --debug-id-bytes 8 \
  --rank-dir "$tmp/ranks64" --json "$tmp/ooc64.json" >/dev/null 2>&1
expect "out-of-core, 64-bit ids: exit 0" test $? -eq 0
expect "out-of-core, 64-bit ids: same as one process" same_searches "$tmp/one-g.json" "$tmp/ooc64.json"
mpi $P run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --dram-budget 9M --rank-dir "$tmp/ranks64" \
  >/dev/null 2>"$tmp/width.err"
expect "rows of the other id width: refused, how to rebuild" \
  grep -qE "rank-[0-9]+ holds rows of 8-byte ids; this run uses 4-byte ids; remove it to rebuild" "$tmp/width.err"
# Storage that misbehaves under a search: short reads are finished (same result); a failed read ends every rank
# with the rank, the file and the offset named, and no statistics.
mpi $P run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 9M --rank-dir "$tmp/ranks" \
  --debug-io-faults short:2 --json "$tmp/short.json" >/dev/null 2>&1
expect "short reads on every rank: exit 0" test $? -eq 0
expect "short reads on every rank: same as one process" same_searches "$tmp/one-g.json" "$tmp/short.json"
expect "short reads on every rank: tails were read" python3 -c "
import json; j = json.load(open('$tmp/short.json')); assert sum(r['bytes_read'] for r in j['mpi']['ranks']) > 0"
start=$SECONDS
mpi $P run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 9M --rank-dir "$tmp/ranks" \
  --debug-io-faults eio:3 >"$tmp/eio.txt" 2>"$tmp/eio.err"
rc=$?
expect "a failed read: exit 1" test $rc -eq 1
expect "a failed read: every rank ended within 30 s" test $((SECONDS - start)) -lt 30
expect "a failed read: the rank, file and offset named, once" test "$(grep -cE \
  "strata: error: rank [0-9]+ of $P: read failed: .*rank-[0-9]+/adj.0.bin at offset [0-9]+ .*Input/output error" "$tmp/eio.err")" -eq 1
expect "a failed read: no statistics" bash -c "! grep -q TEPS '$tmp/eio.txt'"
# A damaged rank file: that rank named, with the way to rebuild.
P=2
printf 'X' | dd of="$tmp/ranks/mpi-p$P/rank-$((P - 1))/adj.0.bin" bs=1 seek=100 conv=notrunc status=none
mpi $P run --graph "$tmp/g" --roots 4 --threads 1 --placement out-of-core --dram-budget 64M --rank-dir "$tmp/ranks" \
  >"$tmp/oocbad.txt" 2>"$tmp/oocbad.err"
expect "damaged rank file: exit 1" test $? -eq 1
expect "damaged rank file: the rank, the file and the way out named" \
  grep -qE "strata: error: rank $((P - 1)) of $P: .*rank-$((P - 1))/adj.0.bin is corrupted.*remove .*rank-$((P - 1))" "$tmp/oocbad.err"
expect "damaged rank file: no statistics" bash -c "! grep -q TEPS '$tmp/oocbad.txt'"
mpi $P run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --dram-budget 1M --rank-dir "$tmp/ranks2" \
  >/dev/null 2>"$tmp/small.err"
expect "a budget below the I/O buffers: refused once" \
  test "$(grep -c "dram-budget 1.0 MiB is below this rank's I/O buffers" "$tmp/small.err")" -eq 1

# Two first runs at once on one graph (real concurrent mpiruns, each its own session directory): one builds
# every rank's rows while the other waits, then reuses them; both give the single-process searches, nothing is
# left behind. A killed build's debris (rank-<r>.tmp-<pid> of a dead process) is cleared by the next run.
"$strata" generate --scale 14 --out "$tmp/c" 2>/dev/null
"$strata" run --graph "$tmp/c" --roots 4 --json "$tmp/one-c.json" >/dev/null 2>&1
for job in 1 2; do
  (OMPI_MCA_orte_tmpdir_base=$(mktemp -d -p "$tmp") mpi 2 run --graph "$tmp/c" --roots 4 --threads 1 \
     --placement out-of-core --dram-budget 9M --json "$tmp/c$job.json" >/dev/null 2>"$tmp/c$job.err"
   echo $? >"$tmp/c$job.rc") &
done
wait
for job in 1 2; do
  expect "concurrent first runs: job $job exit 0 ($(tail -1 "$tmp/c$job.err"))" test "$(cat "$tmp/c$job.rc")" -eq 0
  expect "concurrent first runs: job $job same as one process" same_searches "$tmp/one-c.json" "$tmp/c$job.json"
done
expect "concurrent first runs: one built, the other reused every rank's rows" python3 -c "
import json; used = sorted(all(r['rows_reused'] for r in json.load(open(f'$tmp/c{j}.json'))['mpi']['ranks']) for j in (1, 2))
assert used == [False, True], used"
expect "concurrent first runs: no debris" bash -c "! ls -d '$tmp/c/mpi-p2/'*.tmp-* 2>/dev/null"
mkdir "$tmp/c/mpi-p2/rank-1.tmp-999999" && echo x >"$tmp/c/mpi-p2/rank-1.tmp-999999/adj.0.bin"
touch -d '1 hour ago' "$tmp/c/mpi-p2/rank-1.tmp-999999"
mpi 2 run --graph "$tmp/c" --roots 2 --threads 1 --placement out-of-core --dram-budget 9M >/dev/null 2>&1
expect "a killed build's debris: exit 0" test $? -eq 0
expect "a killed build's debris: cleared" test ! -e "$tmp/c/mpi-p2/rank-1.tmp-999999"

# DAX: each rank's rows mapped with libpmem and read in place (PMEM_IS_PMEM_FORCE=1: plain files count as
# pmem), without and with an edge cache.
P=4
for budget in "" "--dram-budget 2M"; do
  # shellcheck disable=SC2086  # budget: no flag or two words
  PMEM_IS_PMEM_FORCE=1 timeout 120 mpirun --allow-run-as-root --oversubscribe -x PMEM_IS_PMEM_FORCE -np "$P" "$strata" \
    run --graph "$tmp/g" --roots 4 --threads 1 --placement dax $budget --rank-dir "$tmp/pm" --json "$tmp/dax.json" \
    >"$tmp/dax.txt" 2>&1
  expect "dax ${budget:-without a cache}, $P ranks: exit 0" test $? -eq 0
  expect "dax ${budget:-without a cache}: same as one process" same_searches "$tmp/one-g.json" "$tmp/dax.json"
  expect "dax ${budget:-without a cache}: read in place, is_pmem" python3 -c "
import json; j = json.load(open('$tmp/dax.json'))
assert j['placement'] == 'dax' and j['is_pmem'] and sum(s['edges_storage'] for s in j['searches']) > 0
assert j['cache_source'] == 'mapping' and all(r['cache_source'] == 'mapping' for r in j['mpi']['ranks'])"
  P=1
done
finish
