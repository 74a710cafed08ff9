#!/usr/bin/env bash
# Kernel 3 on storage (--placement out-of-core and dax): the weighted on-disk CSR (csr-w-p<K>) built once and
# reused, SSSP.md's vectors bit for bit for any edge cache, partition count and bucket width, every search
# validated against the stored lists, a planted wrong distance and a damaged file caught, the refusals.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp

source "$(dirname "$0")/sssp_vectors.sh" || exit 1
"$strata" generate --scale 10 --seed 2,3 --out "$tmp/g10" 2>/dev/null
"$strata" generate --scale 12 --seed 2,3 --out "$tmp/g12" --no-tuples 2>/dev/null  # the tuples (and weights) regenerated

# Every cache size (none, a few entries, whole lists), several partitions, both tiers: the same bits.
run_case() {  # run_case NAME SCALE PLACEMENT ARGS...
  local name=$1 scale=$2 placement=$3
  shift 3
  "$strata" run --graph "$tmp/g$scale" --roots 4 --kernel sssp --placement "$placement" "$@" --json "$tmp/$name.json" \
    >"$tmp/$name.txt" 2>"$tmp/$name.err"
  expect "$name: exit 0" test $? -eq 0
  expect "$name: SSSP.md's distances, bit for bit" check_vectors "$scale" "$tmp/$name.json" "$placement"
  expect "$name: kernel 3 alone" python3 -c "import json; assert json.load(open('$tmp/$name.json'))['kernel'] == 'sssp'"
}
run_case ooc10 10 out-of-core --dram-budget 40M
expect "the weighted CSR is built beside the graph, apart from kernel 2's" bash -c "test -f '$tmp/g10/csr-w-p1/csr.hdr' && ! test -e '$tmp/g10/csr-p1'"
expect "weighted header: version 2, 8-byte entries, weighted" python3 -c "
import struct; h = open('$tmp/g10/csr-w-p1/csr.hdr', 'rb').read(96)
assert struct.unpack('<I', h[8:12])[0] == 2, 'version'
assert struct.unpack('<II', h[80:88]) == (8, 1), struct.unpack('<II', h[80:88])"
run_case ooc10_k0 10 out-of-core --dram-budget 40M --on-mem-edges 0 --io-request 4K
run_case ooc12_k2_p3 12 out-of-core --dram-budget 40M --on-mem-edges 2 --numa-nodes 3 --delta 0.05
run_case ooc12_hubs 12 out-of-core --dram-budget 40M --on-mem-edges 1 --hub-degree 64 --threads 1
run_case ooc12_nogap 12 out-of-core --dram-budget 40M --on-mem-edges 1 --io-merge-gap 0 --io-request 8K
# Every root of a run, not only SSSP.md's four, with few entries cached a list (nearly every edge read from
# storage): the pull bounded from the anchor failed R5 here on search 61 of 64 while the anchor was placed past a
# tail that could hold a nearer sum, and on search 6 with 4 entries while a stage end's push filed tails due
# below the bucket the search was at and next_bucket looked for them from that bucket on.
for k in 1 4; do
  "$strata" run --graph "$tmp/g12" --roots 64 --kernel sssp --placement out-of-core --dram-budget 40M --on-mem-edges $k \
    >"$tmp/ooc12_64_$k.txt" 2>&1
  expect "ooc12, 64 roots, --on-mem-edges $k: every search valid" test $? -eq 0
done
expect_error "a merge gap above 64M" "--io-merge-gap 1G is above 64M" "$strata" run --graph "$tmp/g10" --io-merge-gap 1G
run_case dax10 10 dax
run_case dax12_k1_p2 12 dax --on-mem-edges 1 --numa-nodes 2
expect "out-of-core: the reads it made are in the JSON" python3 -c "
import json; s = json.load(open('$tmp/ooc10_k0.json'))['sssp_searches'][0]
assert s['bytes_read'] > 0 and s['io_requests'] > 0 and s['edges_storage'] > 0, s"
expect "reused: the second run builds nothing" python3 -c "
import json; j = json.load(open('$tmp/ooc10_k0.json')); assert j['csr_reused'] is True, j['csr_reused']"
expect "the validation line names the stored lists" grep -qE "^validation: every SSSP search checked by rules R1-R7 and a parent-cycle check over kernel 1's weighted on-disk CSR .*, [0-9]+ pass(es)? of up to [0-9]+ search" "$tmp/ooc10.txt"
"$strata" run --graph "$tmp/g10" --roots 2 --kernel sssp --placement out-of-core --dram-budget 40M --on-mem-edges 1 --trace >/dev/null 2>"$tmp/tr.err"
expect "trace: the tails read" grep -qE "^trace: sssp search 0 root 458 .* storage_edges [0-9]+ bytes_read [0-9]+ io_requests [0-9]+$" "$tmp/tr.err"

# A planted wrong distance is caught against the stored lists.
"$strata" run --graph "$tmp/g10" --roots 4 --kernel sssp --placement out-of-core --dram-budget 40M --debug-corrupt-sssp 1 \
  >"$tmp/bad.txt" 2>/dev/null
expect "planted distance on storage: exit 1" test $? -eq 1
expect "planted distance on storage: rule named" grep -qE "^validation failed for SSSP search 1 \(root 214\): rule R5" "$tmp/bad.txt"

# A damaged weighted CSR: found when the cache loads, before any search; named with the way to rebuild.
cp -r "$tmp/g10" "$tmp/d10"
printf 'X' | dd of="$tmp/d10/csr-w-p1/adj.0.bin" bs=1 seek=5000 conv=notrunc status=none
expect_error "damaged weighted adjacency" "$tmp/d10/csr-w-p1/adj.0.bin is corrupted: checksum mismatch in block 0" \
  "$strata" run --graph "$tmp/d10" --roots 2 --kernel sssp --placement out-of-core --dram-budget 40M
truncate -s 4096 "$tmp/d10/csr-w-p1/adj.0.bin"
expect_error "truncated weighted adjacency" "$tmp/d10/csr-w-p1/adj.0.bin has 4096 bytes" \
  "$strata" run --graph "$tmp/d10" --roots 2 --kernel sssp --placement dax

# An unweighted CSR where the weighted one belongs (or the reverse) is refused by name.
rm -rf "$tmp/d10/csr-w-p1" && cp -r "$tmp/g10/csr-w-p1" "$tmp/d10/csr-p1"
expect_error "weights where kernel 2's ids belong" "$tmp/d10/csr-p1 holds weights where ids alone belong" \
  "$strata" run --graph "$tmp/d10" --roots 2 --placement out-of-core --dram-budget 40M

# Both kernels on storage: kernel 2 on its CSR, kernel 3 on the weighted one (built beside it, the same metadata),
# its cache loaded once kernel 2 is done, within the same budget.
for placement in out-of-core dax; do
  "$strata" run --graph "$tmp/g10" --roots 4 --kernel both --placement $placement --dram-budget 40M --on-mem-edges 2 \
    --json "$tmp/both-$placement.json" >"$tmp/both-$placement.txt" 2>/dev/null
  expect "both on $placement: exit 0" test $? -eq 0
  expect "both on $placement: SSSP.md's distances" check_vectors 10 "$tmp/both-$placement.json" $placement
  expect "both on $placement: every BFS validated, nedge as kernel 3's" python3 -c "
import json; j = json.load(open('$tmp/both-$placement.json'))
assert j['kernel'] == 'both' and len(j['searches']) == 4 and all(s['valid'] for s in j['searches'])
assert [s['nedge'] for s in j['searches']] == [s['nedge'] for s in j['sssp_searches']]"
  expect "both on $placement: the summary names both kernels" grep -qE "^summary: SCALE 10, $placement, 8 of 8 searches validated, BFS .* SSSP " "$tmp/both-$placement.txt"
  expect "both on $placement: the validation line names both" grep -qE "^validation: every search checked .*; SSSP by rules R1-R7 and a parent-cycle check over kernel 1's weighted on-disk CSR, [0-9]+ pass(es)? of up to [0-9]+ search" "$tmp/both-$placement.txt"
done
expect "both: kernel 2's CSR beside kernel 3's" bash -c "test -f '$tmp/g10/csr-p1/csr.hdr' && test -f '$tmp/g10/csr-w-p1/csr.hdr'"
# Kernel 3's CSR from another graph's build is refused by name (its metadata differs from kernel 2's).
"$strata" generate --scale 10 --seed 5,6 --out "$tmp/o10" 2>/dev/null
"$strata" run --graph "$tmp/o10" --roots 1 --kernel sssp --placement dax >/dev/null 2>&1
cp -r "$tmp/g10" "$tmp/m10" && rm -rf "$tmp/m10/csr-w-p1" && cp -r "$tmp/o10/csr-w-p1" "$tmp/m10/"
expect_error "another graph's weighted CSR" "$tmp/m10/csr-w-p1 was built from another graph" \
  "$strata" run --graph "$tmp/m10" --roots 1 --kernel both --placement dax

# compare --kernel both: a row per placement and kernel, each validated.
"$strata" compare --graph "$tmp/g10" --roots 2 --kernel both --dram-budget 40M --json "$tmp/cmp.json" >"$tmp/cmp.txt" 2>/dev/null
expect "compare --kernel both: exit 0" test $? -eq 0
expect "compare: bfs and sssp rows for every placement" bash -c "for p in in-core out-of-core dax; do grep -qE \"^\$p +[0-9]\" '$tmp/cmp.txt' && grep -qE \"^\$p sssp \" '$tmp/cmp.txt' || exit 1; done"
expect "compare: the columns aligned under their headers (\"out-of-core sssp\" pushed its row out)" \
  test "$(awk '{print length}' "$tmp/cmp.txt" | sort -u | wc -l)" -eq 1

# tune --kernel sssp sweeps kernel 3's cache (8-byte entries of the weighted CSR): every point validated.
"$strata" tune --graph "$tmp/g10" --dram-budget 20M --kernel sssp --roots 2 --steps 2 --csv "$tmp/tune.csv" >"$tmp/tune.txt" 2>/dev/null
expect "tune --kernel sssp: exit 0" test $? -eq 0
expect "tune --kernel sssp: K = 0 to every list, 8 bytes an entry, all validated" python3 -c "
import csv; rows = list(csv.DictReader(open('$tmp/tune.csv')))
assert rows[0]['on_mem_edges'] == '0' and all(r['validated'] == 'yes' and float(r['harmonic_mean_TEPS']) > 0 for r in rows), rows
assert int(rows[1]['cache_bytes']) % 8 == 0 and int(rows[-1]['cache_bytes']) > int(rows[1]['cache_bytes']), rows"
expect "tune --kernel sssp: a recommendation" grep -q "^recommended: --on-mem-edges" "$tmp/tune.txt"

# Validation batched: three searches a pass over the stored lists, the edge cache lent and reloaded between
# passes; a planted wrong distance in the middle of a batch caught by its rule, alone.
"$strata" run --graph "$tmp/g12" --roots 5 --kernel sssp --placement out-of-core --dram-budget 18800K --threads 2 \
  --validate-batch 3 --json "$tmp/batch.json" >"$tmp/batch.txt" 2>&1
expect "batched: exit 0, every search validated" grep -q "5 of 5 searches validated" "$tmp/batch.txt"
expect "batched: 2 passes of up to 3 searches, the cache lent" grep -qE "^validation: every SSSP search .*, 2 passes of up to 3 searches, the edge cache lent to them, reloaded in" "$tmp/batch.txt"
expect "batched: the JSON says so" python3 -c "
import json; j = json.load(open('$tmp/batch.json'))
assert (j['sssp_validate_batch'], j['sssp_validation_passes'], j['sssp_validation_lent_cache']) == (3, 2, True), j"
expect_error "batched: a wrong distance in search 1" "validation failed for SSSP search 1 (root 858): rule R5: triangle rule violated" \
  "$strata" run --graph "$tmp/g12" --roots 3 --kernel sssp --placement out-of-core --dram-budget 18800K --threads 2 \
  --validate-batch 3 --debug-corrupt-sssp 1
"$strata" run --graph "$tmp/g12" --roots 3 --kernel sssp --placement out-of-core --dram-budget 17M --threads 2 \
  --validate-batch 3 >/dev/null 2>"$tmp/big.err"
expect "batched: a batch the budget cannot hold refused with the figures" grep -qE "^strata: error: --validate-batch 3 against the on-disk CSR needs .* of DRAM for its batch; .* give .* \(lower it\)" "$tmp/big.err"

finish
