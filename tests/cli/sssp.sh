#!/usr/bin/env bash
# `strata run --kernel sssp|both`: kernel 3's distances bit-equal to the reference 3.0.1 (SSSP.md section 8's
# vectors, through the JSON's facts), the block's sssp keys in the reference's order, a planted wrong distance
# failing the run, and the refusals before work.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp
source "$(dirname "$0")/sssp_vectors.sh" || exit 1

for scale in 10 12 14; do
  "$strata" run --scale $scale --seed 2,3 --roots 4 --kernel both --json "$tmp/both$scale.json" >"$tmp/both$scale.txt" 2>/dev/null
  expect "SCALE $scale both: exit 0" test $? -eq 0
  expect "SCALE $scale: SSSP.md's distances, bit for bit" check_vectors $scale "$tmp/both$scale.json"
done
# Any bucket width, any thread count: the same bits. From a graph directory: the weights drawn from its spec.
"$strata" run --scale 12 --seed 2,3 --roots 4 --kernel sssp --delta 0.1 --threads 1 --json "$tmp/d.json" >/dev/null 2>&1
expect "delta 0.1, 1 thread: the same bits" check_vectors 12 "$tmp/d.json"
"$strata" generate --scale 10 --seed 2,3 --out "$tmp/g" 2>/dev/null
"$strata" run --graph "$tmp/g" --roots 4 --kernel sssp --json "$tmp/g.json" >/dev/null 2>&1
expect "from a graph directory: the same bits" check_vectors 10 "$tmp/g.json"

# --trace: a line a kernel 3 search (its buckets and relaxations, also in the JSON).
"$strata" run --scale 10 --roots 2 --kernel sssp --trace --json "$tmp/tr.json" >/dev/null 2>"$tmp/tr.txt"
expect "sssp trace lines" grep -qE "^trace: sssp search 1 root 214 buckets [1-9][0-9]* relaxations [1-9][0-9]* reached 897 time " "$tmp/tr.txt"
expect "json: buckets, relaxations" python3 -c "
import json; s = json.load(open('$tmp/tr.json'))['sssp_searches'][0]; assert s['buckets'] > 0 and s['relaxations'] >= 896, s"
expect "in-core kernel 3 runs in stages (its lists ordered by weight after kernel 2)" python3 -c "
import json
for f in ('$tmp/tr.json', '$tmp/both12.json'):
    assert all(s['stage_ends'] >= 2 for s in json.load(open(f))['sssp_searches']), f"

# The block: the reference's keys and order (SSSP.md section 6) in spec names, bfs then sssp per group.
expect "block keys in the reference's order" python3 - "$tmp/both10.txt" <<'PY'
import sys
keys = [l.split(":")[0] for l in open(sys.argv[1]) if ":" in l and not l.startswith(("validation", "summary"))]
stat = ["min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"]
teps = ["min", "firstquartile", "median", "thirdquartile", "max", "harmonic_mean", "harmonic_stddev"]
want = ["SCALE", "edgefactor", "NBFS", "graph_generation", "num_mpi_processes", "construction_time"]
want += [f"bfs_{s}_time" for s in stat] + [f"sssp_{s}_time" for s in stat] + [f"{s}_nedge" for s in stat]
want += [f"bfs_{s}_TEPS" for s in teps] + [f"sssp_{s}_TEPS" for s in teps]
want += [f"bfs_{s}_validate" for s in stat] + [f"sssp_{s}_validate" for s in stat]
assert keys == want, (keys, want)
PY
expect "summary names both kernels" grep -qE "^summary: SCALE 10, in-core, 8 of 8 searches validated, BFS [0-9.e+-]+ GTEPS harmonic mean \(min .*\), SSSP [0-9.e+-]+ GTEPS harmonic mean" "$tmp/both10.txt"
expect "json: kernel, delta, both kernels' searches" python3 -c "
import json; j = json.load(open('$tmp/both10.json'))
assert j['kernel'] == 'both' and j['sssp_delta'] > 0 and len(j['searches']) == 4 and j['nbfs'] == 4
assert [s['nedge'] for s in j['searches']] == [s['nedge'] for s in j['sssp_searches']]
assert j['sssp_harmonic_mean_TEPS'] > 0 and j['bfs_harmonic_mean_TEPS'] > 0"
# Kernel 3 alone: the bfs keys 0 (the specification's rule for the kernel not run), no BFS searches.
"$strata" run --scale 10 --roots 3 --kernel sssp --json "$tmp/s.json" >"$tmp/s.txt" 2>/dev/null
expect "sssp alone: bfs keys 0" grep -qE "^bfs_harmonic_mean_TEPS: +0\.0+e\+00$" "$tmp/s.txt"
expect "sssp alone: summary" grep -qE "^summary: SCALE 10, in-core, 3 of 3 searches validated, SSSP " "$tmp/s.txt"
expect "sssp alone: json" python3 -c "
import json; j = json.load(open('$tmp/s.json'))
assert j['kernel'] == 'sssp' and j['searches'] == [] and len(j['sssp_searches']) == 3 and j['NBFS'] == 3"
"$strata" run --scale 9 --roots 2 --json "$tmp/b.json" >"$tmp/b.txt" 2>/dev/null
expect "bfs alone: no sssp lines, kernel bfs" python3 -c "
import json; j = json.load(open('$tmp/b.json')); t = open('$tmp/b.txt').read()
assert j['kernel'] == 'bfs' and 'sssp_searches' not in j and 'sssp' not in t"

# A planted wrong distance after timing: the rule is named, no statistics, exit 1.
"$strata" run --scale 10 --roots 4 --kernel both --debug-corrupt-sssp 2 >"$tmp/bad.txt" 2>"$tmp/bad.err"
expect "planted distance: exit 1" test $? -eq 1
expect "planted distance: search, root and rule named" grep -qE "^validation failed for SSSP search 2 \(root 220\): rule R5: triangle rule violated" "$tmp/bad.txt"
expect "planted distance: no statistics" bash -c "! grep -q TEPS '$tmp/bad.txt'"

# The weights live where the adjacency does (--mem-nodes, --interleave).
"$strata" run --scale 10 --roots 2 --kernel sssp --mem-nodes 0 --interleave --json "$tmp/mn.json" >/dev/null 2>&1
expect "weights placed as the adjacency" python3 -c "
import json; p = json.load(open('$tmp/mn.json'))['memory_placement']
assert p['weights'] == p['adjacency'] == 'interleaved over nodes 0', p"

# compare: a row per placement and kernel, each kernel's ratio to its own in-core run.
"$strata" compare --graph "$tmp/g" --roots 2 --kernel both --placements in-core >"$tmp/cmp.txt" 2>/dev/null
expect "compare --kernel both: exit 0" test $? -eq 0
expect "compare: a BFS row and an SSSP row, validated" bash -c "grep -qE '^in-core +[0-9.e+]+ +1.000 .* yes$' '$tmp/cmp.txt' &&
  grep -qE '^in-core sssp +[0-9.e+]+ +1.000 .* yes$' '$tmp/cmp.txt'"

# Refused before work, one line each.
expect_error "tune both" "tune --kernel both: tune sweeps one kernel's edge cache" \
  "$strata" tune --graph "$tmp/g" --dram-budget 1G --kernel both
expect_error "unknown kernel" "unknown --kernel 'dfs': expected bfs, sssp or both" "$strata" run --scale 9 --kernel dfs
expect_error "delta without kernel 3" "--delta is kernel 3's" "$strata" run --scale 9 --delta 0.1
for bad in nan inf -0.5; do
  expect_error "--delta $bad" "--delta: '$bad' is not a positive number" "$strata" run --scale 9 --kernel sssp --delta "$bad"
done
expect_error "64-bit ids" "kernel 3 (--kernel both) needs 32-bit vertex ids" "$strata" run --scale 9 --kernel both --debug-id-bytes 8
expect_error "planted fault in a kernel not run" "--debug-corrupt-sssp plants a fault in a kernel this run does not run" \
  "$strata" run --scale 9 --debug-corrupt-sssp 1
expect_error "tuples validation" "--validate-against tuples applies to --kernel bfs alone" \
  "$strata" run --scale 9 --kernel sssp --validate-against tuples

finish
