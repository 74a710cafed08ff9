#!/usr/bin/env bash
# Graph directories on tmpfs and expanded-memory placement (--mem-nodes, --interleave).
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp

"$strata" generate --scale 12 --out "$tmp/o12" 2>/dev/null

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


finish
