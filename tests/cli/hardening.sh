#!/usr/bin/env bash
# Bad input and hostile conditions: failed runs' JSON, limits set on parent cgroups, empty partitions,
# unwritable outputs found before work, read-only DAX, and the one-line messages for small mistakes.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp
chmod 755 "$tmp"  # read by another user below

"$strata" generate --scale 10 --out "$tmp/g" 2>/dev/null

# A failed validation: the JSON holds no statistics and says why.
"$strata" run --graph "$tmp/g" --roots 4 --debug-corrupt-search 1 --json "$tmp/bad.json" >/dev/null 2>&1
expect "a failed run's JSON has no statistics and says why" python3 -c "
import json; j = json.load(open('$tmp/bad.json'))
assert j['validated'] is False and 'rule 1' in j['error'], j.get('error')
assert not [k for k in j if 'TEPS' in k or k.startswith('bfs_') or k.endswith('_nedge')], [k for k in j if 'TEPS' in k]"

# A memory limit on a parent cgroup binds: refused up front, not OOM-killed.
v1=/sys/fs/cgroup/memory
if [[ -w $v1 ]] && mkdir "$v1/strata-test-$$" 2>/dev/null; then
  parent="$v1/strata-test-$$"
  echo $((256 << 20)) >"$parent/memory.limit_in_bytes"
  mkdir "$parent/child"
  in_child() { bash -c "echo \$\$ >'$parent/child/cgroup.procs' && exec \"\$@\"" - "$@"; }
  expect_error "cgroup v1: a parent's limit refuses an in-core run" "of memory for an in-core run" \
    in_child "$strata" run --scale 21 --roots 1
  expect_error "cgroup v1: and an out-of-core budget" "available" \
    in_child "$strata" run --graph "$tmp/g" --placement out-of-core --dram-budget 1G
  rmdir "$parent/child" "$parent"
else
  skip "cgroup v1 memory groups cannot be created here (not root, or no v1 memory hierarchy)"
fi
v2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
if [[ -n $v2 && -w $v2 ]] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null &&
  mkdir "$v2/strata-test-$$" 2>/dev/null; then
  parent="$v2/strata-test-$$"
  if echo +memory >"$parent/cgroup.subtree_control" 2>/dev/null && mkdir "$parent/child" &&
    echo $((256 << 20)) >"$parent/memory.max"; then
    expect_error "cgroup v2: a parent's memory.max refuses an in-core run" "of memory for an in-core run" \
      bash -c "echo \$\$ >'$parent/child/cgroup.procs' && exec '$strata' run --scale 21 --roots 1"
  else
    skip "cgroup v2: cannot delegate the memory controller here"
  fi
  rmdir "$parent/child" 2>/dev/null
  rmdir "$parent"
else
  skip "cgroup v2 memory groups cannot be created here (no cgroup2 mount with the memory controller, or not root)"
fi

# More partitions than 64-vertex words (empty partitions) work in every placement, with the in-core answers.
"$strata" run --graph "$tmp/g" --roots 4 --json "$tmp/one.json" >/dev/null
for placement in in-core out-of-core dax; do
  rm -f "$tmp/p64.json"
  PMEM_IS_PMEM_FORCE=1 "$strata" run --graph "$tmp/g" --roots 4 --numa-nodes 64 --placement $placement \
    --json "$tmp/p64.json" >/dev/null 2>"$tmp/p64.err"
  expect "64 partitions of SCALE 10, $placement: $(head -c 200 "$tmp/p64.err")" python3 -c "
import json; a = json.load(open('$tmp/p64.json')); b = json.load(open('$tmp/one.json'))
assert a['placement'] == '$placement' and a['numa_parts'] == 64 and all(s['valid'] for s in a['searches'])
assert [s['nedge'] for s in a['searches']] == [s['nedge'] for s in b['searches']]"
done

# Output paths are checked before any work (nothing printed, no statistics), naming the user's path; a full
# disk at the end leaves no temporary file and no statistics.
for bad in /proc/strata-x.json "$tmp"; do
  out=$("$strata" run --scale 18 --roots 64 --json "$bad" 2>"$tmp/out.err")
  expect "unwritable --json $bad: refused before work" bash -c "[[ -z '$out' ]] && grep -q -- '--json $bad: ' '$tmp/out.err' && test \$(wc -l <'$tmp/out.err') -eq 1"
done
expect_error "unwritable --csv" "--csv /proc/strata.csv: cannot write there" "$strata" tune --graph "$tmp/g" --dram-budget 1G --csv /proc/strata.csv
expect_error "unwritable --plot" "--plot $tmp: is a directory" "$strata" compare --graph "$tmp/g" --plot "$tmp"
out=$(bash -c "ulimit -f 1; exec '$strata' run --scale 10 --roots 8 --json '$tmp/full.json'" 2>"$tmp/full.err")
expect "a full disk: the user's path named, no statistics, no stray file" bash -c "
  grep -qx 'strata: error: cannot write $tmp/full.json: File too large' '$tmp/full.err' && [[ -z '$out' ]] &&
  ! ls '$tmp' | grep -q 'full.json'"

# DAX reads a CSR it cannot write (another user's files, a read-only mount): the mapping is read-only.
"$strata" run --graph "$tmp/g" --roots 1 --placement dax >/dev/null 2>&1
chmod -R a-w "$tmp/g"
as_other=()
[[ $(id -u) -eq 0 ]] && as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if "${as_other[@]}" "$strata" --version >/dev/null 2>&1; then
  "${as_other[@]}" "$strata" run --graph "$tmp/g" --roots 2 --placement dax >"$tmp/ro.txt" 2>"$tmp/ro.err"
  expect "dax on read-only files: $(head -c 200 "$tmp/ro.err")" grep -q '^summary: SCALE 10, dax, 2 of 2 searches validated' "$tmp/ro.txt"
  # Out-of-core on a built CSR it cannot write beside: auto validation takes the tuples (the on-disk CSR's pass
  # would need scratch there); an explicit csr is refused before any search, naming the flag to use.
  "$strata" generate --scale 16 --out "$tmp/ro" 2>/dev/null
  "$strata" run --graph "$tmp/ro" --roots 1 --placement out-of-core --dram-budget 20M >/dev/null 2>&1
  chmod -R a-w "$tmp/ro"
  "${as_other[@]}" "$strata" run --graph "$tmp/ro" --roots 16 --placement out-of-core --dram-budget 20M \
    >"$tmp/ro.txt" 2>"$tmp/ro.err"
  expect "read-only CSR, auto: against the tuples ($(head -c 200 "$tmp/ro.err"))" \
    grep -q '^summary: SCALE 16, out-of-core, 16 of 16 searches validated' "$tmp/ro.txt"
  expect_error "read-only CSR, --validate-against csr: refused, the way out named" \
    "which cannot be written: Permission denied (use --validate-against tuples)" \
    "${as_other[@]}" "$strata" run --graph "$tmp/ro" --roots 16 --placement out-of-core --dram-budget 20M --validate-against csr
  "${as_other[@]}" "$strata" tune --graph "$tmp/ro" --roots 4 --dram-budget 20M --steps 1 >/dev/null 2>"$tmp/ro.err"
  expect "read-only CSR: tune runs ($(head -c 200 "$tmp/ro.err"))" test $? -eq 0
  chmod -R u+w "$tmp/ro"
  # A graph directory this user may enter but not list: its shared lock cannot be taken, said at once (it
  # waited 2 s and blamed a `generate --force` in progress).
  mkdir "$tmp/nolist" && cp "$tmp/g/graph.hdr" "$tmp/g/edges.bin" "$tmp/nolist/" && chmod 711 "$tmp/nolist"
  expect_error "a graph directory that cannot be listed: the cause" \
    "cannot open graph directory $tmp/nolist to hold it for the run: Permission denied" \
    "${as_other[@]}" "$strata" run --graph "$tmp/nolist" --roots 2
else
  skip "cannot run strata as another user here (read-only DAX and CSR, an unlistable directory not checked)"
fi
chmod -R u+w "$tmp/g"
# A file, or a loop of links, given as the graph directory: the cause, not a replacement in progress.
expect_error "--graph a file" "graph directory $tmp/g/graph.hdr is not a directory" "$strata" run --graph "$tmp/g/graph.hdr"
ln -s "$tmp/loop-b" "$tmp/loop-a" && ln -s "$tmp/loop-a" "$tmp/loop-b"
expect_error "--graph a loop of links" "cannot open graph directory $tmp/loop-a to hold it for the run: Too many levels" \
  "$strata" run --graph "$tmp/loop-a"
# A flag given an empty value is refused, not read as not given (`--graph ""` ran a generated SCALE 16, `--json ""`
# wrote nothing).
expect_error "run --graph ''" "--graph needs a directory" "$strata" run --graph ""
expect_error "run --json ''" "--json needs a file name" "$strata" run --scale 8 --json ""
expect_error "compare --graph ''" "--graph needs a directory" "$strata" compare --graph ""
expect_error "compare --plot ''" "--plot needs a file name" "$strata" compare --graph "$tmp/g" --plot ""
expect_error "tune --csv ''" "--csv needs a file name" "$strata" tune --graph "$tmp/g" --dram-budget 64M --csv ""
expect_error "run --mem-nodes ''" "--mem-nodes needs node ids" "$strata" run --scale 8 --mem-nodes ""

# This process's own limits (ulimit -v, -d: any user may lower them) count in what it may take: refused before
# work, the limit named (it failed later with "cannot allocate"), and a thread that cannot start says why.
if "$strata" --version | grep -q ASan; then
  skip "ulimit -v and -d with ASan (its shadow memory needs terabytes of address space)"
else
  expect_error "ulimit -v: refused before work, the limit named" \
    "available (under this process's address-space limit, ulimit -v)" bash -c "ulimit -v 300000; exec '$strata' run --scale 22"
  expect_error "ulimit -d: refused before work, the limit named" \
    "available (under this process's data limit, ulimit -d)" bash -c "ulimit -d 300000; exec '$strata' run --scale 22"
fi
expect_error "run --rank-dir ''" "--rank-dir needs a directory" "$strata" run --scale 8 --rank-dir ""

# Small mistakes, one clear line each.
mkdir "$tmp/fifo" && mkfifo "$tmp/fifo/graph.hdr"
expect_error "a FIFO header is refused, not waited on" "not a regular file" timeout 10 "$strata" info "$tmp/fifo"
expect_error "--alpha nan" "--alpha: 'nan' is not a positive number" "$strata" run --scale 5 --alpha nan
expect_error "--beta 0, in a short line" "--beta: '0' is not a positive number" "$strata" run --scale 5 --beta 0
expect "no 309-digit bounds" bash -c "test \$('$strata' run --scale 5 --alpha -1 2>&1 | wc -c) -lt 100"
expect_error "--edgefactor -3" "--edgefactor: '-3' is not a non-negative integer" "$strata" generate --scale 5 --edgefactor -3 --checksum
expect_error "--hub-degree 0" "--hub-degree: '0' is not a positive integer" "$strata" run --scale 5 --hub-degree 0
expect_error "an unknown command" "unknown command 'frobnicate'" "$strata" frobnicate
expect_error "--on-mem-edges past 2^63" "--on-mem-edges: '99999999999999999999999' is too large" \
  "$strata" run --graph "$tmp/g" --placement out-of-core --on-mem-edges 99999999999999999999999
expect_error "--dram-budget ''" "malformed --dram-budget ''" "$strata" run --graph "$tmp/g" --placement out-of-core --dram-budget ''
expect_error "compare --dram-budget ''" "malformed --dram-budget ''" "$strata" compare --graph "$tmp/g" --dram-budget ''
expect_error "--debug-corrupt-search past the roots" "--debug-corrupt-search 4: the run has 4 searches (0 to 3)" \
  "$strata" run --scale 8 --roots 4 --debug-corrupt-search 4
"$strata" run --graph "$tmp/g" --roots 1 --placement out-of-core --dram-budget 32M >/dev/null 2>&1
printf '\x07' | dd of="$tmp/g/csr-p1/csr.hdr" bs=1 seek=24 conv=notrunc status=none  # the parts field
expect_error "a damaged parts field reads as damage, and says how to rebuild" \
  "csr.hdr is corrupted (header checksum mismatch); remove $tmp/g/csr-p1 and run again to rebuild it" \
  "$strata" run --graph "$tmp/g" --placement out-of-core --dram-budget 32M
printf 'x' >>"$tmp/g/edges.bin"
expect_error "one byte, singular" "has 1 byte of trailing data" "$strata" info "$tmp/g"

# Output paths that are not plain files are written, never replaced: a link's target (the link stays), a FIFO
# in place, this process's own descriptor in order with its output, a full device refused by name.
"$strata" generate --scale 8 --out "$tmp/o" 2>/dev/null
echo old >"$tmp/target.json" && ln -s target.json "$tmp/link.json"
"$strata" run --graph "$tmp/o" --roots 2 --json "$tmp/link.json" >/dev/null 2>&1
expect "--json through a link: exit 0" test $? -eq 0
expect "--json through a link: the link stays a link" test -L "$tmp/link.json"
expect "--json through a link: its target holds the JSON" python3 -c "import json; json.load(open('$tmp/target.json'))"
ln -s "$tmp/new/deeper.json" "$tmp/dangling.json" && mkdir "$tmp/new"
"$strata" run --graph "$tmp/o" --roots 2 --json "$tmp/dangling.json" >/dev/null 2>&1
expect "--json through a link to a new file: it is created, the link stays"   bash -c "test -L '$tmp/dangling.json' && test -s '$tmp/new/deeper.json'"
mkfifo "$tmp/out.fifo"
timeout 60 cat "$tmp/out.fifo" >"$tmp/fifo.json" &
reader=$!
timeout 60 "$strata" run --graph "$tmp/o" --roots 2 --json "$tmp/out.fifo" >/dev/null 2>&1
expect "--json to a FIFO: exit 0" test $? -eq 0
wait $reader
expect "--json to a FIFO: still a FIFO" test -p "$tmp/out.fifo"
expect "--json to a FIFO: the reader got the JSON" python3 -c "import json; json.load(open('$tmp/fifo.json'))"
"$strata" run --graph "$tmp/o" --roots 2 --json /dev/fd/1 >"$tmp/stdout.txt" 2>/dev/null
expect "--json /dev/fd/1: exit 0" test $? -eq 0
expect "--json /dev/fd/1: the JSON, then the block, on stdout" python3 -c "
text = open('$tmp/stdout.txt').read(); import json
obj, end = json.JSONDecoder().raw_decode(text); assert obj['scale'] == 8 and 'SCALE:' in text[end:], text[:200]"
ln -s /dev/full "$tmp/full"
expect_error "--json to a full device: refused by name" "cannot write $tmp/full: No space left on device" \
  "$strata" run --graph "$tmp/o" --roots 2 --json "$tmp/full"
expect "--json to a full device: the link and the device stay" bash -c "test -L '$tmp/full' && test -c /dev/full"
echo old >"$tmp/target.csv" && ln -s target.csv "$tmp/link.csv"
"$strata" tune --graph "$tmp/o" --roots 2 --dram-budget 64M --steps 2 --csv "$tmp/link.csv" >/dev/null 2>&1
expect "tune --csv through a link: the link stays, its target holds the table" \
  bash -c "test -L '$tmp/link.csv' && grep -q , '$tmp/target.csv'"

# An output never replaces a file of a graph or CSR directory, directly or through a link (`--json DIR/graph.hdr`
# wrote the results over the graph's header); a new file beside them is fine.
cp "$tmp/o/graph.hdr" "$tmp/o.hdr"
expect_error "--json onto graph.hdr" "--json $tmp/o/graph.hdr: a file of the Strata directory $tmp/o, not replaced" \
  "$strata" run --graph "$tmp/o" --roots 2 --json "$tmp/o/graph.hdr"
expect_error "--json onto edges.bin" "a file of the Strata directory" "$strata" run --scale 8 --json "$tmp/o/edges.bin"
"$strata" run --graph "$tmp/o" --roots 1 --placement out-of-core >/dev/null 2>&1
ln -s "$tmp/o/csr-p1/adj.0.bin" "$tmp/lists.png"
expect_error "compare --plot through a link onto a CSR's lists" "a file of the Strata directory $tmp/o/csr-p1" \
  "$strata" compare --graph "$tmp/o" --plot "$tmp/lists.png"
expect_error "tune --csv onto csr.hdr" "a file of the Strata directory" \
  "$strata" tune --graph "$tmp/o" --dram-budget 64M --csv "$tmp/o/csr-p1/csr.hdr"
expect "the graph and its CSR untouched" bash -c "cmp -s '$tmp/o/graph.hdr' '$tmp/o.hdr' && '$strata' info '$tmp/o' >/dev/null"
"$strata" run --graph "$tmp/o" --roots 1 --json "$tmp/o/results.json" >/dev/null 2>&1
expect "--json into the graph directory, a new name: written" test -s "$tmp/o/results.json"

finish
