#!/usr/bin/env bash
# Real concurrent processes on one graph directory: no result silently lost or mixed, builds serialized,
# replacements refused while in use, a crashed writer's debris cleared and a live writer's left alone.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp

# wait_locked DIR: until some process holds a lock on DIR (an exclusive try then fails), at most 10 s.
wait_locked() {
  for _ in $(seq 200); do flock -n -x "$1" true 2>/dev/null || return 0; sleep 0.05; done
  return 1
}
# wait_exists PATH: until PATH exists, at most 10 s.
wait_exists() {
  for _ in $(seq 200); do [[ -e $1 ]] && return 0; sleep 0.05; done
  return 1
}

# Two generates of one new DIR without --force: exactly one writes it, the other refuses, and the directory
# holds the winner's graph (before: both said "wrote DIR", one graph silently replaced the other).
for trial in 1 2 3 4; do
  d="$tmp/race$trial"
  "$strata" generate --scale 16 --seed 1,1 --out "$d" 2>"$tmp/a.err" &
  a=$!
  "$strata" generate --scale 16 --seed 5,5 --out "$d" 2>"$tmp/b.err" &
  b=$!
  wait $a; ra=$?
  wait $b; rb=$?
  winner=""
  ((ra == 0 && rb != 0)) && winner="1,1" && loser="$tmp/b.err"
  ((rb == 0 && ra != 0)) && winner="5,5" && loser="$tmp/a.err"
  expect "race $trial: exactly one generate succeeds (exits $ra, $rb)" test -n "$winner"
  [[ -n $winner ]] || continue
  expect "race $trial: the loser says why ($(tr '\n' ' ' <"$loser" | head -c 300))" \
    grep -qE "appeared while this was being written|already exists" "$loser"
  expect "race $trial: the directory is the winner's" bash -c "'$strata' info '$d' | grep -qx 'seed: $winner'"
done

# generate --force while a run uses the directory: refused; after the run, it replaces it.
"$strata" generate --scale 17 --out "$tmp/live" 2>/dev/null
"$strata" run --graph "$tmp/live" --roots 64 --placement out-of-core --dram-budget 64M --json "$tmp/live-run.json" \
  >/dev/null 2>"$tmp/live-run.err" &
run=$!
if wait_locked "$tmp/live"; then
  expect_error "--force refuses a directory in use" "is in use by another strata process" \
    "$strata" generate --scale 10 --out "$tmp/live" --force
else
  expect "the run takes its lock: $(cat "$tmp/live-run.err")" false
fi
wait $run
expect "the run went on unharmed: $(cat "$tmp/live-run.err")" python3 -c "
import json; j = json.load(open('$tmp/live-run.json')); assert j['scale'] == 17 and all(s['valid'] for s in j['searches'])"
expect "--force works once the directory is free" "$strata" generate --scale 10 --out "$tmp/live" --force
expect "and nothing is left beside it" bash -c "! ls -d '$tmp/live.'* 2>/dev/null | grep -q ."

# Two runs that both need the CSR: one builds it, the other waits and reuses it; both succeed.
"$strata" generate --scale 14 --out "$tmp/cb" 2>/dev/null
for trial in 1 2 3; do
  rm -rf "$tmp/cb/csr-p1"
  "$strata" run --graph "$tmp/cb" --roots 2 --placement out-of-core --dram-budget 32M --json "$tmp/c1.json" >/dev/null 2>&1 &
  a=$!
  "$strata" run --graph "$tmp/cb" --roots 2 --placement out-of-core --dram-budget 32M --json "$tmp/c2.json" >/dev/null 2>&1 &
  b=$!
  wait $a; ra=$?
  wait $b; rb=$?
  expect "build race $trial: both runs succeed ($ra, $rb)" test $ra -eq 0 -a $rb -eq 0
  expect "build race $trial: one built, one reused" python3 -c "
import json; r = sorted(json.load(open(f))['csr_reused'] for f in ['$tmp/c1.json', '$tmp/c2.json']); assert r == [False, True], r"
done

# A build whose process is alive (it holds its lock: another user's, or a reused pid) is left alone; once its
# writer is gone, it is cleared (before: any pid kill() could not signal was taken for dead).
live="$tmp/cb/csr-p2.tmp-999999999"
mkdir "$live"
flock -x "$live" sleep 30 &
holder=$!
wait_locked "$live"
"$strata" run --graph "$tmp/cb" --roots 1 --numa-nodes 2 --placement out-of-core --dram-budget 32M >/dev/null 2>"$tmp/live.err"
expect "a live build is not removed" bash -c "test -d '$live' && ! grep -q 'removed' '$tmp/live.err'"
pkill -P $holder  # the sleep holds the lock too
kill $holder 2>/dev/null
wait $holder 2>/dev/null
rm -rf "$tmp/cb/csr-p2"
"$strata" run --graph "$tmp/cb" --roots 1 --numa-nodes 2 --placement out-of-core --dram-budget 32M >/dev/null 2>"$tmp/dead.err"
expect "a dead one is" bash -c "! test -e '$live' && grep -q 'removed 1 unfinished CSR build' '$tmp/dead.err'"

# An interrupted generate leaves its temporary directory; the next generate of that DIR clears it.
"$strata" generate --scale 21 --out "$tmp/big" 2>/dev/null &
gen=$!
wait_exists "$tmp/big.tmp-$gen"
kill -9 $gen
wait $gen 2>/dev/null
expect "a killed generate left debris" test -d "$tmp/big.tmp-$gen"
"$strata" generate --scale 10 --out "$tmp/big" 2>"$tmp/big.err"
expect "the next generate clears it" bash -c "grep -q 'cleared 1 unfinished write' '$tmp/big.err' && ! test -e '$tmp/big.tmp-$gen'"

# A writer killed but not yet reaped (a zombie: it holds no lock) is gone: its debris is cleared at once.
expect "a zombie writer's debris is cleared" python3 - "$strata" "$tmp/zombie" <<'PY'
import os, signal, subprocess, sys, time
strata, out = sys.argv[1], sys.argv[2]
p = subprocess.Popen([strata, "generate", "--scale", "21", "--out", out], stderr=subprocess.DEVNULL)
tmp = "%s.tmp-%d" % (out, p.pid)
for _ in range(200):
    if os.path.exists(tmp):
        break
    time.sleep(0.05)
os.kill(p.pid, signal.SIGKILL)
time.sleep(0.3)  # not waited for: a zombie
r = subprocess.run([strata, "generate", "--scale", "9", "--out", out], capture_output=True, text=True)
p.wait()
sys.exit(0 if "cleared 1 unfinished write" in r.stderr and not os.path.exists(tmp) else 1)
PY

# A generate --force killed midway leaves the old graph whole.
"$strata" generate --scale 12 --out "$tmp/keep" 2>/dev/null
"$strata" generate --scale 21 --out "$tmp/keep" --force 2>/dev/null &
gen=$!
wait_exists "$tmp/keep.tmp-$gen"
kill -9 $gen
wait $gen 2>/dev/null
expect "a killed --force keeps the old graph" bash -c "'$strata' info '$tmp/keep' | grep -qx 'SCALE: 12'"
# (its temporary directory is left for the next writer to clear)
# A replacement that died between moving the old graph aside and renaming the new one in (filesystems
# without RENAME_EXCHANGE): the next generate puts the old graph back before deciding.
mv "$tmp/keep" "$tmp/keep.old-999999999"
"$strata" generate --scale 9 --out "$tmp/keep" 2>"$tmp/keep-gen.err"
expect "the moved-aside graph is restored (and not replaced without --force)" bash -c "
  grep -q 'cleared 2 unfinished write' '$tmp/keep-gen.err' && grep -q 'already exists' '$tmp/keep-gen.err' &&
  '$strata' info '$tmp/keep' | grep -qx 'SCALE: 12' && ! ls -d '$tmp/keep.'* 2>/dev/null | grep -q ."

# Interrupted (SIGTERM here; Ctrl-C's SIGINT alike, but a script's background job ignores SIGINT, and an ignored
# signal stays ignored) while a graph directory or an on-disk CSR is being written: the temporary directory goes
# with the process (was left as <target>.tmp-<pid> until that target was written again); the signal ends it.
interrupt_once_started() {  # interrupt_once_started GLOB COMMAND...: SIGTERM as soon as GLOB exists
  local glob=$1
  shift
  "$@" >/dev/null 2>&1 &
  local pid=$! i
  for ((i = 0; i < 500; i++)); do compgen -G "$glob" >/dev/null && break; sleep 0.01; done
  kill -TERM $pid
  wait $pid
}
interrupt_once_started "$tmp/int.tmp-*" "$strata" generate --scale 21 --out "$tmp/int"
expect "SIGTERM during generate: ended by the signal" test $? -eq 143
expect "SIGTERM during generate: nothing left" bash -c "! compgen -G '$tmp/int*'"
"$strata" generate --scale 20 --out "$tmp/intg" 2>/dev/null
interrupt_once_started "$tmp/intg/csr-p1.tmp-*" "$strata" run --graph "$tmp/intg" --roots 1 --placement out-of-core --dram-budget 64M
expect "SIGTERM during a CSR build: ended by the signal" test $? -eq 143
expect "SIGTERM during a CSR build: nothing left" bash -c "! compgen -G '$tmp/intg/csr-p1*'"
# generate --force through a link to a graph directory replaces the directory, not the link.
"$strata" generate --scale 8 --out "$tmp/linked" 2>/dev/null && ln -s linked "$tmp/glink"
"$strata" generate --scale 9 --out "$tmp/glink" --force 2>/dev/null
expect "generate --force through a link: the link stays" test -L "$tmp/glink"
expect "generate --force through a link: its directory replaced" bash -c "'$strata' info '$tmp/linked' | grep -qx 'SCALE: 9'"

finish
