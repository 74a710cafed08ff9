# Shared by the command-line tests (tests/cli/*.sh, one ctest entry each, run in parallel): the binary as $1,
# a private temporary directory, and the checks. Each script ends with `finish`.
set -uo pipefail
strata=$1
tmp=$(mktemp -d) || { echo "FAIL: mktemp -d"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
failures=0
pass=0

# expect_error "what" "message fragment" command...: non-zero exit, one stderr line naming the cause.
expect_error() {
  local what=$1 fragment=$2
  shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if ((rc == 0)); then echo "FAIL: $what: exit 0"; ((failures++)); return; fi
  if [[ $err != *"$fragment"* ]]; then echo "FAIL: $what: stderr lacks '$fragment': $err"; ((failures++)); return; fi
  if (($(printf '%s\n' "$err" | wc -l) != 1)); then echo "FAIL: $what: not one line: $err"; ((failures++)); return; fi
  ((pass++))
}
expect() {
  local what=$1
  shift
  if "$@"; then ((pass++)); else echo "FAIL: $what"; ((failures++)); fi
}

# skip "why": prints a clear skip line (for checks this machine cannot make).
skip() { echo "skip: $*"; }

# finish: the closing line ctest's log keeps, and the exit status.
finish() {
  echo "$pass passed, $failures failed"
  ((failures == 0))
}
