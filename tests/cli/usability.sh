#!/usr/bin/env bash
# What a new user sees: help with no command, --version, the Graph500 block followed by one summary line,
# measurement warnings in the JSON, and setup.sh's stages and its advice without root or sudo.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp
root=$(cd "$(dirname "$0")/../.." && pwd)

"$strata" >"$tmp/help.txt" 2>&1
expect "strata alone shows the help, exit 0" bash -c "grep -q '^Usage:' '$tmp/help.txt' && grep -qE '^ +run +' '$tmp/help.txt'"
"$strata" --version >"$tmp/version.txt"
expect "--version" bash -c "grep -qE '^strata [0-9]+\.[0-9]+\.[0-9]+$' '$tmp/version.txt' && grep -qE '^commit: [0-9a-f]{7,}|^commit: unknown$' '$tmp/version.txt' &&
  grep -qE '^build: ' '$tmp/version.txt' && grep -qE '^-march=native: (yes|no)' '$tmp/version.txt' && grep -q '^parts: .*libpmem' '$tmp/version.txt'"
# The testing flags are left out of `run --help`, yet a bad value names them.
"$strata" run --help >"$tmp/run_help.txt"
expect "run --help lists --placement, not the testing flags" bash -c "grep -q -- '--placement' '$tmp/run_help.txt' && ! grep -q -- '--debug-' '$tmp/run_help.txt'"
expect_error "a testing flag's bad value names it" "--debug-corrupt-search" "$strata" run --scale 8 --debug-corrupt-search x
expect_error "a testing flag given twice names it" "--debug-id-bytes" "$strata" run --scale 8 --debug-id-bytes 8 --debug-id-bytes 4

# The block keeps every line; one human line follows it.
"$strata" run --scale 10 --roots 4 --json "$tmp/r.json" >"$tmp/run.txt"
expect "the Graph500 block, unchanged: 33 key lines first" bash -c "
  head -33 '$tmp/run.txt' | grep -cE '^[A-Za-z_]+: +[-0-9.e+]+$' | grep -qx 33 && head -1 '$tmp/run.txt' | grep -qx 'SCALE:                          10'"
expect "then the summary line, last" bash -c "tail -1 '$tmp/run.txt' | grep -qE \
  '^summary: SCALE 10, in-core, 4 of 4 searches validated, [0-9.]+(e[-+][0-9]+)? GTEPS harmonic mean \(min [0-9.e+-]+, max [0-9.e+-]+\), JSON in $tmp/r.json'"
"$strata" run --scale 10 --roots 2 --no-validate >"$tmp/nv.txt"
expect "summary without validation says so" bash -c "tail -1 '$tmp/nv.txt' | grep -q '2 searches NOT validated.*no JSON'"
expect "measurement_warnings in the JSON" python3 -c "
import json; j = json.load(open('$tmp/r.json')); assert isinstance(j['measurement_warnings'], list)"

# setup.sh: a line per stage; not root and no sudo: the apt-get line to run, exit 1 (a fake dpkg says every
# package is missing; PATH holds nothing else, so no sudo).
mkdir -p "$tmp/bin" "$tmp/copy/scripts"
cp "$root/scripts/setup.sh" "$tmp/copy/scripts/"
printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/dpkg" && chmod +x "$tmp/bin/dpkg"
for tool in dirname id; do ln -s "$(command -v $tool)" "$tmp/bin/$tool"; done
bash_path=$(command -v bash)
if [[ $(id -u) -eq 0 ]]; then
  chmod -R a+rX "$tmp"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
  as_user=()
fi
"${as_user[@]}" env -i PATH="$tmp/bin" "$bash_path" "$tmp/copy/scripts/setup.sh" >"$tmp/setup.out" 2>&1
rc=$?
expect "setup.sh without root or sudo prints the apt-get line (exit $rc): $(head -c 300 "$tmp/setup.out")" bash -c "
  [[ $rc -eq 1 ]] && grep -q '^setup: checking 18 Debian packages' '$tmp/setup.out' &&
  grep -q 'not root and no sudo' '$tmp/setup.out' && grep -q '^  apt-get update && apt-get install -y build-essential cmake' '$tmp/setup.out'"

finish
