#!/usr/bin/env bash
# `strata run`: every statistics key, the JSON contract, traces, and a planted error failing the run.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp

"$strata" generate --scale 9 --out "$tmp/g" 2>/dev/null
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
# More roots asked than the reference's draws find (SCALE 7: 80): each found one searched and validated, and the
# summary and JSON say so.
"$strata" run --scale 7 --roots 1000 --json "$tmp/few.json" >"$tmp/few.txt" 2>/dev/null
expect "fewer roots: exit 0, each searched and validated" grep -q "^summary: SCALE 7, in-core, 80 of 80 searches validated" "$tmp/few.txt"
expect "fewer roots: the summary's warning" grep -q "; warning: 80 searches, not the 1000 asked: the reference's 2N root draws" "$tmp/few.txt"
expect "fewer roots: json nbfs and the warning" python3 -c "
import json; j = json.load(open('$tmp/few.json')); assert j['nbfs'] == 80 and len(j['searches']) == 80
assert any(w.startswith('80 searches, not the 1000 asked') for w in j['measurement_warnings']), j['measurement_warnings']"
# More threads than the machine has CPUs: the summary and the JSON warn that the TEPS are not the machine's.
cpus=$(getconf _NPROCESSORS_ONLN)
"$strata" run --scale 8 --roots 2 --threads $((cpus + 1)) --json "$tmp/over.json" >"$tmp/over.txt" 2>/dev/null
expect "more threads than CPUs: the summary's warning" \
  grep -q "; warning: $((cpus + 1)) threads on this machine's $cpus CPU.*: they took turns on the cores" "$tmp/over.txt"
expect "more threads than CPUs: the JSON's warning" python3 -c "
import json; w = json.load(open('$tmp/over.json'))['measurement_warnings']; assert any('took turns' in x for x in w), w"
"$strata" run --scale 10 --roots 3 --trace >/dev/null 2>"$tmp/trace.txt"
expect "trace lines" grep -qE "^trace: search 0 root 458 level 0 top-down frontier 1 edges [0-9]+ time" "$tmp/trace.txt"

# A planted error in one search: the statistics are withheld, the search, root and rule are named, exit 1.
"$strata" run --scale 10 --roots 4 --debug-corrupt-search 2 >"$tmp/bad.txt" 2>"$tmp/bad.err"
expect "corrupted run exits 1" test $? -eq 1
expect "names search, root and rule" grep -qE "^validation failed for search 2 \(root 220\): rule 1: .*cycle" "$tmp/bad.txt"
expect "no statistics after a failure" bash -c "! grep -q TEPS '$tmp/bad.txt'"
expect "one error line on stderr" bash -c "grep -c . '$tmp/bad.err' | grep -qx 1"

# Validation against the certified CSR (in-core default) and against the tuples: both named in the output and
# JSON, both catch the planted error; csr is refused where the adjacency is not in DRAM.
expect "in-core validates against the CSR" grep -q "^validation: every search checked against kernel 1's CSR in DRAM" "$tmp/run.txt"
expect "json names the method" python3 -c "import json,sys; j=json.load(open('$tmp/r.json')); assert j['validation_method']=='csr' and j['validation_tuple_passes']==1 and j['validation_certificate_time']>0"
"$strata" run --graph "$tmp/g" --roots 8 --validate-against tuples --validate-batch 3 --json "$tmp/t.json" >"$tmp/t.txt" 2>/dev/null
expect "tuples: three passes named" grep -q "^validation: every search checked against the input tuples, 3 passes" "$tmp/t.txt"
expect "tuples: same nedge as csr" python3 -c "import json; a=json.load(open('$tmp/r.json')); b=json.load(open('$tmp/t.json')); assert [s['nedge'] for s in a['searches']]==[s['nedge'] for s in b['searches']] and b['validation_method']=='tuples'"
for method in csr tuples; do
  "$strata" run --scale 10 --roots 4 --debug-corrupt-search 1 --validate-against $method >"$tmp/bad.txt" 2>/dev/null
  expect "$method catches the planted cycle" grep -qE "^validation failed for search 1 \(root 214\): rule 1: .*cycle" "$tmp/bad.txt"
done
# A damaged kernel-1 graph: the searches agree with it, the certificate does not; no statistics, exit 1.
"$strata" run --scale 10 --roots 2 --debug-corrupt-csr >"$tmp/badcsr.txt" 2>/dev/null
expect "damaged CSR fails the run" test $? -eq 1
expect "the certificate names it" grep -q "^validation failed: kernel 1's graph does not match the tuples: " "$tmp/badcsr.txt"
expect "no statistics after a damaged CSR" bash -c "! grep -q TEPS '$tmp/badcsr.txt'"
expect_error "unknown method" "unknown --validate-against 'both': expected auto, csr or tuples" \
  "$strata" run --scale 9 --validate-against both

finish
