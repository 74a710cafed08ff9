#!/usr/bin/env bash
# `strata compare` and `strata tune`: tables, JSON, CSV, charts, recommendations, refusals.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp

"$strata" generate --scale 12 --out "$tmp/o12" 2>/dev/null

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
expect_error "compare: a placement named twice" "--placements names in-core twice" \
  "$strata" compare --graph "$tmp/o12" --placements in-core,dax,in-core
# What a placement refuses before its work is refused before the first placement runs (the in-core run used to
# come first, then out-of-core's refusal, then the table of the others): one line, the placement named.
expect_error "compare: a budget below the I/O buffers, before any run" \
  "out-of-core: --dram-budget 1.0 KiB is below the minimum" "$strata" compare --graph "$tmp/o12" --dram-budget 1K
# A graph directory that cannot be read: refused once, before any placement runs (each placement's run had said it
# again, under a table with no rows).
expect_error "compare: no graph directory" "graph directory $tmp/none does not exist" "$strata" compare --graph "$tmp/none"
mkdir "$tmp/bad" && head -c 60 "$tmp/o12/graph.hdr" >"$tmp/bad/graph.hdr"
expect_error "compare: a damaged graph directory" "$tmp/bad/graph.hdr" "$strata" compare --graph "$tmp/bad" --roots 1
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
# tune over a CSR of 64-bit ids (what SCALE 32 and up use; forced here on a small graph)
"$strata" generate --scale 11 --out "$tmp/w11" 2>/dev/null
"$strata" tune --graph "$tmp/w11" --dram-budget 20M --roots 2 --debug-id-bytes 8 --csv "$tmp/tune64.csv" >/dev/null 2>"$tmp/tune64.err"
expect "tune on 64-bit ids: $(head -c 200 "$tmp/tune64.err")" python3 -c "
import csv; rows = list(csv.DictReader(open('$tmp/tune64.csv')))
assert len(rows) >= 5 and all(r['validated'] == 'yes' for r in rows), rows
import struct; h = open('$tmp/w11/csr-p1/csr.hdr', 'rb').read(24); assert struct.unpack('<I', h[12:16])[0] == 8, 'id width'"
expect_error "tune: no graph directory, before the budget's check" "graph directory $tmp/none does not exist" \
  "$strata" tune --graph "$tmp/none" --dram-budget 1M
expect_error "tune budget too small" "leaves nothing for the edge cache" "$strata" tune --graph "$tmp/o12" --dram-budget 1M
expect_error "tune placement" "tune sweeps --placement out-of-core or dax" "$strata" tune --graph "$tmp/o12" --dram-budget 1G --placement in-core

finish
