#!/usr/bin/env bash
# `mpirun -np P strata run`, in-core, several rank counts in one entry (the deal of the rows at 1 to 4 ranks,
# each other check at one or two counts): roots, nedge and validity equal the single-process run's, generated and
# from graph directories; the block and JSON name P and each rank; a bad block read by one rank ends every rank,
# naming it; what the distributed run does not do, refused. Tiered placements: mpi_tiered.sh; failing runs
# repeated: mpi_endings.sh.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp
need_mpi
source "$(dirname "$0")/mpi_lib.sh" || exit 1

# Generated on the fly: the same searches as one process at every rank count; the block and JSON.
"$strata" run --scale 11 --roots 12 --json "$tmp/one.json" >/dev/null 2>&1
for P in 1 2 3 4; do
  mpi "$P" run --scale 11 --roots 12 --threads 1 --json "$tmp/mpi$P.json" >"$tmp/mpi$P.txt" 2>"$tmp/mpi$P.err"
  expect "mpirun -np $P run exits 0" test $? -eq 0
  expect "$P ranks: same roots, nedge, validity as one process" same_searches "$tmp/one.json" "$tmp/mpi$P.json"
  expect "$P ranks: block names $P processes" grep -qx "num_mpi_processes:              $P" "$tmp/mpi$P.txt"
  expect "$P ranks: every search validated" grep -q "12 of 12 searches validated" "$tmp/mpi$P.txt"
  expect "$P ranks: an mpi line" grep -qE "^mpi: $P ranks? x 1 thread" "$tmp/mpi$P.txt"
  expect "$P ranks: json: each rank and the bytes each search sent" python3 - "$tmp/mpi$P.json" "$P" <<'PY'
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
# each rank its own bytes: together, what the searches sent (every rank once had the ranks' total: P times it)
assert sum(r["search_bytes_sent"] for r in ranks) == sum(s["bytes_sent"] for s in j["searches"]), \
    ([r["search_bytes_sent"] for r in ranks], sum(s["bytes_sent"] for s in j["searches"]))
PY
done
# 64-bit ids (SCALE 32 and above; --debug-id-bytes 8 forces them): the same searches.
mpi 3 run --scale 11 --roots 12 --threads 1 --debug-id-bytes 8 --json "$tmp/mpi64.json" >/dev/null 2>&1
expect "64-bit ids: exit 0" test $? -eq 0
expect "64-bit ids: same as one process" same_searches "$tmp/one.json" "$tmp/mpi64.json"
expect "json id_bytes: 4, and 8 when forced" python3 -c "
import json; assert json.load(open('$tmp/mpi2.json'))['id_bytes'] == 4 and json.load(open('$tmp/mpi64.json'))['id_bytes'] == 8"
# Each direction policy alone, two threads a rank.
P=2
for policy in --top-down-only --bottom-up-only; do
  "$strata" run --scale 10 --roots 4 $policy --json "$tmp/one$policy.json" >/dev/null 2>&1
  mpi $P run --scale 10 --roots 4 --threads $((4 - P)) $policy --json "$tmp/mpi$policy.json" >/dev/null 2>&1
  expect "$policy: exit 0" test $? -eq 0
  expect "$policy: same as one process" same_searches "$tmp/one$policy.json" "$tmp/mpi$policy.json"
  P=3
done

# Graph directories: stored tuples (two blocks, so ranks read different ones) and the spec alone.
"$strata" generate --scale 17 --out "$tmp/g" 2>/dev/null
"$strata" generate --scale 13 --no-tuples --out "$tmp/spec" 2>/dev/null
P=2
for dir in g spec; do
  "$strata" run --graph "$tmp/$dir" --roots 4 --json "$tmp/one-$dir.json" >/dev/null 2>&1
  mpi $P run --graph "$tmp/$dir" --roots 4 --threads 1 --json "$tmp/mpi-$dir.json" >/dev/null 2>&1
  expect "--graph $dir, $P ranks: exit 0" test $? -eq 0
  expect "--graph $dir, $P ranks: same as one process" same_searches "$tmp/one-$dir.json" "$tmp/mpi-$dir.json"
  P=3
done

# A bad block read by one rank only (the last block goes to the last rank that reads any): every rank ends
# within seconds, the message names the rank and the cause, and nothing is printed as a result.
cp -r "$tmp/g" "$tmp/bad"
printf 'X' | dd of="$tmp/bad/edges.bin" bs=1 seek=$((1048576 * 8 + 100)) conv=notrunc status=none
for P in 2 3; do
  start=$SECONDS
  mpi $P run --graph "$tmp/bad" --roots 4 --threads 1 >"$tmp/badfile.txt" 2>"$tmp/badfile.err"
  rc=$?
  expect "bad file, $P ranks: exit 1" test $rc -eq 1
  expect "bad file, $P ranks: every rank ended within 30 s" test $((SECONDS - start)) -lt 30
  expect "bad file, $P ranks: the rank and the block named, once" \
    test "$(grep -cE "strata: error: rank $((P - 1)) of $P: .*block 1" "$tmp/badfile.err")" -eq 1
  expect "bad file, $P ranks: no statistics" bash -c "! grep -q TEPS '$tmp/badfile.txt'"
done

# Ranks that disagree (MPMD: each its own command line): another graph, SCALE or validation on one rank ends the
# run before any work, that rank and the field named, once; per-rank choices (threads) may differ.
"$strata" generate --scale 12 --out "$tmp/g12" 2>/dev/null
"$strata" generate --scale 12 --edgefactor 8 --out "$tmp/g12e8" 2>/dev/null
disagree() {
  local what=$1 want=$2
  shift 2
  timeout 120 mpirun --allow-run-as-root --oversubscribe "$@" >"$tmp/mpmd.txt" 2>"$tmp/mpmd.err"
  expect "$what: exit 1" test $? -eq 1
  expect "$what: rank 1 and the field named, once ($(grep strata "$tmp/mpmd.err" | head -c 200))" \
    test "$(grep -cE "^strata: error: rank 1 of 2: $want is .* here but .* on rank 0" "$tmp/mpmd.err")" -eq 1
  expect "$what: no statistics" bash -c "! grep -q TEPS '$tmp/mpmd.txt'"
}
disagree "another graph on rank 1" "edgefactor" -np 1 "$strata" run --graph "$tmp/g12" --roots 4 --threads 1 \
  : -np 1 "$strata" run --graph "$tmp/g12e8" --roots 4 --threads 1
disagree "another SCALE on rank 1" "SCALE" -np 1 "$strata" run --scale 12 --roots 4 --threads 1 \
  : -np 1 "$strata" run --scale 11 --roots 4 --threads 1
disagree "--no-validate on rank 1" "validation \(--no-validate\)" -np 1 "$strata" run --scale 12 --roots 4 --threads 1 \
  : -np 1 "$strata" run --scale 12 --roots 4 --threads 2 --no-validate
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 "$strata" run --scale 12 --roots 4 --threads 1 \
  : -np 1 "$strata" run --scale 12 --roots 4 --threads 2 >"$tmp/mpmd.txt" 2>&1
expect "threads may differ between ranks" grep -q "4 of 4 searches validated" "$tmp/mpmd.txt"

# What the distributed run does not do yet: refused up front, once.
P=2
mpi $P run --scale 10 --placement out-of-core --roots 2 >/dev/null 2>"$tmp/nodir.err"
expect "out-of-core without a graph directory refused" grep -q "out-of-core under mpirun .* needs a graph directory" "$tmp/nodir.err"
mpi $P run --scale 10 --roots 2 --rank-dir "$tmp/x" >/dev/null 2>"$tmp/rd.err"
expect "--rank-dir with in-core refused" grep -q "rank-dir holds each rank's rows for --placement out-of-core or dax" "$tmp/rd.err"
# (With more roots asked than the draws find at SCALE 7: 80 searches, and the warning, as one process gives.)
mpi $P run --scale 7 --roots 1000 --threads 1 --interleave --json "$tmp/il.json" >"$tmp/il.txt" 2>&1
expect "--interleave: the ranks' rows interleaved, exit 0" test $? -eq 0
expect "fewer roots than asked: 80 searches validated, the warning" \
  grep -q "^summary: SCALE 7, in-core, 80 of 80 searches validated, .*; warning: 80 searches, not the 1000 asked" "$tmp/il.txt"
mpi 3 run --scale 10 --roots 2 --mem-nodes 77 >/dev/null 2>"$tmp/mn.err"
expect "--mem-nodes with a node the machine lacks: refused once" test "$(grep -c "strata: error:.*77" "$tmp/mn.err")" -eq 1
# A rank's own ulimit -v: its need held to it, refused once, the limit named (skipped with ASan's shadow memory).
if ! "$strata" --version | grep -q ASan; then
  (ulimit -v 600000; mpi $P run --scale 22 --threads 1 >/dev/null 2>"$tmp/ulimit.err")
  expect "a rank's ulimit -v: refused once, named ($(head -c 200 "$tmp/ulimit.err"))" test "$(grep -c \
    "strata: error: rank 0 of 2: SCALE 22 with 2 ranks needs about .* a rank; .* available (under this process's address-space limit, ulimit -v)" \
    "$tmp/ulimit.err")" -eq 1
fi
mpi $P run --scale 10 --bogus >/dev/null 2>"$tmp/flag.err"
expect "a bad flag: non-zero exit" test $? -ne 0
expect "a bad flag: said once" test "$(grep -c 'strata: error:.*bogus' "$tmp/flag.err")" -eq 1
# Rows naming a vertex no rank holds (--debug-corrupt-rows: the first root's list, at 3 ranks, names a hole of the id
# space, as rows changed on storage could): the claim's or relaxation's owner refuses it, naming the cause, and every
# rank ends. (Without the check the run failed validation's rule 3 instead, after writing past a rank's arrays.)
for k in bfs sssp; do
  mpi 3 run --scale 10 --roots 4 --threads 1 --kernel "$k" --debug-corrupt-rows >"$tmp/hole.txt" 2>"$tmp/hole.err"
  expect "rows naming no rank's vertex, $k: exit 1" test $? -eq 1
  expect "rows naming no rank's vertex, $k: the cause, once" test "$(grep -cE "^strata: error: rank [0-9] of 3: a \
(claim|relaxation) for vertex [0-9]+, which rank [0-9] does not hold: a rank's rows are corrupted" "$tmp/hole.err")" -eq 1
  expect "rows naming no rank's vertex, $k: no statistics" bash -c "! grep -q TEPS '$tmp/hole.txt'"
done
mpi $P generate --scale 8 --out "$tmp/x" >/dev/null 2>"$tmp/gen.err"
expect "generate refused under mpirun" grep -q "strata: error: strata generate runs in one process" "$tmp/gen.err"
expect "nothing generated" test ! -e "$tmp/x"
finish
