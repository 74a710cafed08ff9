#!/usr/bin/env bash
# `mpirun -np P strata run --kernel sssp|both`: kernel 3's distances are SSSP.md's vectors (the
# reference's bits) at 1 to 4 ranks, generated and from a graph directory, at any --delta; both kernels in one
# run, validated; the trace; a planted wrong distance fails the run naming the rule, once; on out-of-core and
# dax ranks (their weighted rows built, reused, checked).
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp
need_mpi
source "$(dirname "$0")/mpi_lib.sh" || exit 1
source "$(dirname "$0")/sssp_vectors.sh" || exit 1

# From 3 ranks up, --delta 0.1 (the bits do not depend on it): the default's ~300 buckets a search, each a round of
# collectives, took 3-4 ranks on 2 cores beside another ctest entry 10 s and more of the suite.
wide=(--delta 0.1)
for P in 1 2 3 4; do
  delta=()
  ((P >= 3)) && delta=("${wide[@]}")
  mpi "$P" run --scale 10 --roots 4 --kernel sssp --threads 1 "${delta[@]}" --json "$tmp/s$P.json" >"$tmp/s$P.txt" 2>&1
  expect "$P ranks: exit 0" test $? -eq 0
  expect "$P ranks: SSSP.md's vectors at SCALE 10 (one process's bits)" check_vectors 10 "$tmp/s$P.json"
  expect "$P ranks: every search validated against the tuples" grep -q "^validation: every search checked against the input tuples" "$tmp/s$P.txt"
done
expect "the summary names kernel 3" grep -qE "^summary: SCALE 10, in-core, 4 of 4 searches validated, SSSP [0-9.e+-]+ GTEPS" "$tmp/s2.txt"
expect "kernel 3's relaxations are counted as bytes sent" python3 -c "
import json; j = json.load(open('$tmp/s2.json')); assert j['mpi']['processes'] == 2 and j['kernel'] == 'sssp'
assert sum(r['search_bytes_sent'] for r in j['mpi']['ranks']) > 0"
expect "kernel 3 runs in stages across ranks (lists by weight)" python3 -c "
import json; j = json.load(open('$tmp/s2.json')); assert all(s['stage_ends'] >= 2 for s in j['sssp_searches']), j['sssp_searches']"
mpi 2 run --scale 14 --roots 4 --kernel sssp --delta 0.1 --json "$tmp/s14.json" >/dev/null 2>&1
expect "2 ranks, delta 0.1: SSSP.md's vectors at SCALE 14" check_vectors 14 "$tmp/s14.json"

# From a graph directory, both kernels: kernel 2 as one process runs it, kernel 3 the vectors.
"$strata" generate --scale 12 --out "$tmp/g" 2>/dev/null
"$strata" run --graph "$tmp/g" --roots 4 --json "$tmp/one.json" >/dev/null 2>&1
mpi 3 run --graph "$tmp/g" --roots 4 --kernel both --threads 1 "${wide[@]}" --trace --json "$tmp/b.json" >"$tmp/b.txt" 2>"$tmp/b.err"
expect "both kernels, 3 ranks: exit 0" test $? -eq 0
expect "both kernels: SSSP.md's vectors at SCALE 12" check_vectors 12 "$tmp/b.json"
expect "both kernels: kernel 2 as one process" same_searches "$tmp/one.json" "$tmp/b.json"
expect "both kernels: the summary names both" grep -qE "^summary: SCALE 12, in-core, 8 of 8 searches validated, BFS .* SSSP " "$tmp/b.txt"
expect "both kernels: the block's sssp lines" grep -qE "^sssp_harmonic_mean_TEPS: +[0-9]" "$tmp/b.txt"
expect "both kernels: 3 processes in the block" grep -qx "num_mpi_processes:              3" "$tmp/b.txt"
expect "trace: a line a kernel 3 search" grep -qE "^trace: sssp search 1 root 858 buckets [1-9][0-9]* relaxations [1-9][0-9]* reached 3351 " "$tmp/b.err"

# A wrong distance planted in one rank's part: the run fails, naming the rule, once.
mpi 2 run --scale 10 --roots 4 --kernel sssp --debug-corrupt-sssp 1 >"$tmp/bad.txt" 2>"$tmp/bad.err"
expect "planted wrong distance: non-zero exit" test $? -ne 0
expect "planted wrong distance: rule R5 said once" test "$(grep -c "strata: error: validation failed for SSSP search 1 (root 214): rule R5" "$tmp/bad.err")" -eq 1
expect "planted wrong distance: no statistics" grep -q "No statistics" "$tmp/bad.txt"

# Kernel 3 on tiered ranks: each rank's weighted rows (mpi-w-p<P>/rank-<r>) on its storage, a one-entry edge
# cache and the tails read with io_uring, or read in place (dax): the same bits; reused by the next run; a
# damaged rank file ends every rank, naming it.
"$strata" generate --scale 12 --out "$tmp/t" 2>/dev/null
mpi 2 run --graph "$tmp/t" --placement out-of-core --kernel sssp --roots 4 --dram-budget 17M --on-mem-edges 1 --threads 1 \
  --json "$tmp/ooc.json" >"$tmp/ooc.txt" 2>&1
expect "out-of-core ranks: exit 0" test $? -eq 0
expect "out-of-core ranks: SSSP.md's vectors at SCALE 12" check_vectors 12 "$tmp/ooc.json" out-of-core
expect "out-of-core ranks: the weighted rows on each rank's storage, tails read" python3 -c "
import json; j = json.load(open('$tmp/ooc.json'))
assert j['csr_dir'].endswith('/mpi-w-p2/rank-<r>') and j['on_mem_edges'] == 1, j['csr_dir']
assert all(r['cache_source'] == 'build' and r['cache_prefixes_written'] > 0 for r in j['mpi']['ranks']), j['mpi']['ranks']
assert all(s['bytes_read'] > 0 and s['stage_ends'] >= 2 for s in j['sssp_searches'])"
# Kernel 3's own validation account under mpirun: its searches' batch and passes over the tuples (it said 1 and
# 0 whatever the ranks did).
expect "out-of-core ranks: kernel 3's validation batch and passes" python3 -c "
import json; j = json.load(open('$tmp/ooc.json'))
k = (j['sssp_validate_batch'], j['sssp_validation_passes'], j['sssp_validation_lent_cache'])
assert k == (4, 1, False) and j['validation_tuple_passes'] == 1, k"
expect "out-of-core ranks: the rank directories" bash -c "test -f '$tmp/t/mpi-w-p2/rank-0/csr.hdr' && test -f '$tmp/t/mpi-w-p2/rank-1/csr.hdr'"
mpi 3 run --graph "$tmp/t" --placement dax --kernel both --roots 4 --threads 1 "${wide[@]}" --json "$tmp/dax.json" >"$tmp/dax.txt" 2>&1
expect "dax ranks, both kernels: exit 0" test $? -eq 0
expect "dax ranks, both kernels: SSSP.md's vectors" check_vectors 12 "$tmp/dax.json" dax
expect "dax ranks, both kernels: kernel 2 as one process" same_searches "$tmp/one.json" "$tmp/dax.json"
mpi 3 run --graph "$tmp/t" --placement out-of-core --kernel sssp --roots 4 --threads 1 "${wide[@]}" --json "$tmp/again.json" >/dev/null 2>&1
expect "out-of-core ranks again: kernel 3's rows reused, the same bits" python3 -c "
import json; j = json.load(open('$tmp/again.json')); assert j['csr_reused'] is True, j['csr_reused']" \
  && check_vectors 12 "$tmp/again.json" out-of-core
expect "info reads each rank's weighted rows against their checksums" \
  test "$("$strata" info "$tmp/t" | grep -cE "^csr mpi-w-p3/rank-[012]: kernel 3's .*checksums: ok$")" -eq 3
printf '\xff\xff\xff\x7f' | dd of="$tmp/t/mpi-w-p3/rank-1/adj.0.bin" bs=1 seek=4096 conv=notrunc 2>/dev/null
expect_error "info names the damaged rank file" "mpi-w-p3/rank-1/adj.0.bin is corrupted: checksum mismatch in block 0" \
  "$strata" info "$tmp/t"
mpi 3 run --graph "$tmp/t" --placement out-of-core --kernel sssp --roots 4 --threads 1 "${wide[@]}" >/dev/null 2>"$tmp/bad3.err"
expect "a damaged weighted rank file: refused once, naming it" test "$(grep -c "strata: error: rank 1 of 3: .*mpi-w-p3/rank-1/adj.0.bin is corrupted" "$tmp/bad3.err")" -eq 1
mpi 2 run --scale 10 --kernel sssp --debug-id-bytes 8 >/dev/null 2>"$tmp/w.err"
expect "kernel 3 with 64-bit ids: refused once" test "$(grep -c "strata: error:.*needs 32-bit vertex ids" "$tmp/w.err")" -eq 1
finish
