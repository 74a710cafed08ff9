#!/usr/bin/env bash
# How a failing run ends under mpirun, repeated so that a race in the ending cannot hide: a planted fault in one
# rank's part of a search and a read that fails on one rank only, many runs each at 2 and 3 ranks (several at
# once, so the ranks are scheduled differently every time); a budget refusal and a bad flag on one rank (MPMD).
# Every run must exit 1 and carry the same lines: the reason said once, by rank 0, and nothing that looks like a
# result.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp
need_mpi
RUNS=${STRATA_ENDING_RUNS:-8}  # 16, then 12 (2026-11-24, 11-28) as the suite neared its 60 s: STRATA_ENDING_RUNS=100 hunts races
# Each run its own session directory: runs started together race on a shared one (see need_mpi).
mpi() { OMPI_MCA_orte_tmpdir_base=$(mktemp -d -p "$tmp") timeout 60 mpirun --allow-run-as-root --oversubscribe "$@"; }

# lines RUN: what a person reads of a run: strata's own lines, stdout's then stderr's (mpirun forwards the two
# streams apart), offsets and lengths of a failed read masked (io_uring completes in any order), mpirun's banner
# left out.
lines() {
  cat "$1.out" "$1.err" | grep -E '^(strata: |validation failed|No statistics|SCALE|harmonic_mean_TEPS)' |
    sed -E 's/at offset [0-9]+ \([0-9]+ bytes\)/at offset N (N bytes)/'
}

# repeat NAME EXPECTED-FIRST-LINE-REGEX ARGS...: RUNS runs, three at a time; every one exits 1 with the same lines.
repeat() {
  local name=$1 want=$2 i
  shift 2
  for ((i = 0; i < RUNS; i++)); do
    (mpi "$@" >"$tmp/$name.$i.out" 2>"$tmp/$name.$i.err"; echo $? >"$tmp/$name.$i.rc") &
    if ((i % 3 == 2)); then wait; fi
  done
  wait
  lines "$tmp/$name.0" >"$tmp/$name.want"
  local odd=0
  for ((i = 0; i < RUNS; i++)); do
    if [[ $(cat "$tmp/$name.$i.rc") != 1 ]] || ! lines "$tmp/$name.$i" | cmp -s - "$tmp/$name.want"; then
      ((odd++))
      echo "run $i of $name: exit $(cat "$tmp/$name.$i.rc"), stdout and stderr:"
      cat "$tmp/$name.$i.out" "$tmp/$name.$i.err" | head -20 | sed 's/^/  /'
    fi
  done
  expect "$name: $RUNS runs, each exit 1 with the same lines ($odd differ)" test "$odd" -eq 0
  expect "$name: the reason, once ($(head -c 300 "$tmp/$name.want"))" grep -qE "$want" "$tmp/$name.want"
  expect "$name: said once" test "$(grep -c '^strata: error' "$tmp/$name.want")" -eq 1
  expect "$name: no statistics" bash -c "! grep -q harmonic_mean_TEPS '$tmp/$name.want'"
}

"$strata" generate --scale 12 --out "$tmp/g" 2>/dev/null
for P in 2 3; do
  repeat "planted-p$P" "^validation failed for search 1 \(root [0-9]+\): rule 1: .*cycle" \
    -np "$P" "$strata" run --scale 9 --roots 2 --threads 1 --debug-corrupt-search 1
  expect "planted-p$P: the block's failure line and the error line" \
    grep -qE "^strata: error: validation failed for search 1" "$tmp/planted-p$P.want"
  # Every list read from storage (--on-mem-edges 0); the rows are built by the first run.
  mpi -np "$P" "$strata" run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --on-mem-edges 0 \
    --rank-dir "$tmp/ranks" >/dev/null 2>&1
  expect "rows for $P ranks built" test -f "$tmp/ranks/mpi-p$P/rank-1/csr.hdr"
  start=$SECONDS
  repeat "eio-p$P" "^strata: error: rank 1 of $P: read failed: .*rank-1/adj.0.bin at offset N .*Input/output error" \
    -np "$P" "$strata" run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --on-mem-edges 0 \
    --rank-dir "$tmp/ranks" --debug-io-faults eio:2,rank:1
  echo "eio-p$P: $RUNS runs in $((SECONDS - start)) s"
done

# One rank refuses its budget (its own --dram-budget, MPMD): the run ends before work, that rank named, once.
common=(run --graph "$tmp/g" --roots 2 --threads 1 --placement out-of-core --rank-dir "$tmp/ranks")
RUNS=4 repeat "budget" "^strata: error: rank 1 of 2: --dram-budget 1.0 MiB is below this rank's I/O buffers" \
  -np 1 "$strata" "${common[@]}" --dram-budget 64M : -np 1 "$strata" "${common[@]}" --dram-budget 1M
# One rank is given a flag it does not know: refused once, the rank named.
RUNS=4 repeat "flag" "^strata: error: rank 1 of 2: .*--bogus" \
  -np 1 "$strata" run --scale 9 --roots 2 : -np 1 "$strata" run --scale 9 --roots 2 --bogus
finish
