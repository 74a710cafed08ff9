#!/usr/bin/env bash
# A longer correctness sweep of kernel 3 on storage than the suite can afford (about 45 s here, against the
# suite's 60 s in all): scripts/sssp_sweep.sh [STRATA] (default build/strata). Every root of three small graphs,
# out of core with few entries cached a list (nearly every edge read from storage), several thread counts and
# hub degrees, every search validated. Run it after any change to delta-stepping's stages or stage ends: a
# stage-end change that passed the suite, SSSP.md's four roots included, failed rule R5 on 11 of these 45 runs.
# Prints each failing run's first error line and a count; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
strata=${1:-build/strata}
[[ -x $strata ]] || { echo "sssp_sweep.sh: $strata is not an executable (build first: ./scripts/test.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
graphs=("11 9,9" "12 2,3" "13 5,7")
for g in "${graphs[@]}"; do
  read -r scale seed <<<"$g"
  "$strata" generate --scale "$scale" --seed "$seed" --out "$tmp/g$scale" --no-tuples >/dev/null 2>&1 ||
    { echo "sssp_sweep.sh: generate --scale $scale failed" >&2; exit 2; }
done
runs=0 fails=0
for g in "${graphs[@]}"; do
  read -r scale _ <<<"$g"
  for k in 0 1 2 4 8; do
    for extra in "--threads 1" "--threads 2" "--threads 2 --hub-degree 64"; do
      runs=$((runs + 1))
      # shellcheck disable=SC2086  # extra: several flags
      if ! "$strata" run --graph "$tmp/g$scale" --roots 64 --kernel sssp --placement out-of-core --dram-budget 40M \
        --on-mem-edges "$k" $extra >"$tmp/out" 2>&1; then
        fails=$((fails + 1))
        echo "FAIL SCALE $scale --on-mem-edges $k $extra: $(grep -m1 -iE 'rule|error' "$tmp/out")"
      fi
    done
  done
done
echo "sssp_sweep.sh: $fails of $runs runs failed"
((fails == 0))
