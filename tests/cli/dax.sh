#!/usr/bin/env bash
# DAX runs on a plain file (forced pmem or page cache): the in-core answers, read in place.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp

"$strata" generate --scale 11 --out "$tmp/o11" 2>/dev/null
"$strata" generate --scale 12 --out "$tmp/o12" 2>/dev/null
"$strata" run --graph "$tmp/o12" --roots 6 --json "$tmp/ic.json" >/dev/null

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


finish
