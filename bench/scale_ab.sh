#!/usr/bin/env bash
# The flagship's searches, two binaries on one on-disk CSR (issue 24: "out-of-core TEPS at SCALE 28 is not
# allowed to drop"), root: BASE=<older strata> bench/scale_ab.sh [SCALE] (default 28).
#
# The flagship's regime (bench/scale.sh): xfs on a direct-io loop device, the spec alone (TUPLES=stored: the tuple
# file, so that kernel 0 reads them instead of regenerating: a build older than 7738b05 generates 12x slower on a
# machine without AVX-512), a cgroup v1 cap of
# 7 GiB at SCALE 28 (scaled by 2^(SCALE-28)), budget = cap - 16 bytes a vertex - 96 MiB, ROOTS (64) searches
# out-of-core, not validated (the searches are what is compared). BASE writes the graph directory and builds the
# CSR once (a build of any version reads an older CSR; an older one refuses a newer), then RUNS (2) rounds run
# BASE and STRATA (build/strata) on it, the order swapped each round. Prints each run's harmonic-mean TEPS and
# bytes read a search, each round's ratio STRATA / BASE and their median. KEEP=1 keeps the mount and the graph.
set -euo pipefail
source "$(dirname "$0")/common.sh"
base=${BASE:?BASE=<the strata binary to compare against>}
[[ -x $base ]] || { echo "BASE=$base is not an executable" >&2; exit 1; }
scale=${1:-28} roots=${ROOTS:-64} runs=${RUNS:-2}
scales=("$scale")
n=$((1 << scale)) tuples_bytes=$(( (1 << scale) * 16 * 8 ))
cap=$(flagship_cap "$scale")
# The CSR (at most the tuples' size + 16 bytes a vertex) and, while it is built, kernel 1's scratch (as scale.sh).
image_size=$(( 2 * tuples_bytes + n * 16 + (2 << 30) ))
free=$(df --output=avail -B1 /var/tmp | tail -1)
mountpoint -q "${MNT:-/mnt/strata-bench}" || ((image_size < free)) ||
  { echo "needs $(numfmt --to=iec $image_size) of disk, $(numfmt --to=iec "$free") free" >&2; exit 1; }
source "$(dirname "$0")/loopfs.sh"
tuples=${TUPLES:-spec}
g=$mnt/ab$scale-$tuples
budget=$(flagship_budget "$cap" "$scale")

# run_one BINARY LABEL ROUND: one capped run; prints "LABEL,ROUND,TEPS,bytes read a search,searches s,edge cache
# bytes,CSR reused".
run_one() {
  local json=/tmp/strata-scale-ab-$2.json
  rm -f "$json"
  run_capped "$cap" "$1" run --graph "$g" --roots "$roots" --threads "$threads" --placement out-of-core \
    --dram-budget "$budget" --no-validate --json "$json" >/tmp/strata-scale-ab-$2.out 2>&1 ||
    { tail -5 /tmp/strata-scale-ab-$2.out >&2; exit 1; }
  python3 - "$json" "$2" "$3" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["searches"]
read = sum(x["bytes_read"] for x in s) / len(s)
print(f"{sys.argv[2]},{sys.argv[3]},{j['bfs_harmonic_mean_TEPS']:.4g},{read:.4g},{sum(x['time'] for x in s):.1f},"
      f"{j['edge_cache_bytes']},{j['csr_reused']}")
PY
}

if [[ ! -f $g/graph.hdr ]]; then
  log "SCALE $scale: the graph directory and its CSR, by BASE (cap $(numfmt --to=iec $cap), budget $(numfmt --to=iec $budget))"
  flag=(); [[ $tuples == spec ]] && flag=(--no-tuples)
  "$base" generate --scale "$scale" --out "$g" "${flag[@]}" 2>/dev/null
  run_capped "$cap" "$base" run --graph "$g" --roots 1 --threads "$threads" --placement out-of-core \
    --dram-budget "$budget" --no-validate >/tmp/strata-scale-ab-build.out 2>&1 ||
    { tail -5 /tmp/strata-scale-ab-build.out >&2; exit 1; }
  grep -E "construction_time|peak_bytes" /tmp/strata-scale-ab-build.out >&2 || true
fi
echo "binary,round,TEPS,bytes_read_per_search,searches_s,edge_cache_bytes,csr_reused"
ratios=()
for ((r = 0; r < runs; r++)); do
  log "round $((r + 1)) of $runs"
  if ((r % 2 == 0)); then a=$(run_one "$base" base "$r"); b=$(run_one "$strata" new "$r")
  else b=$(run_one "$strata" new "$r"); a=$(run_one "$base" base "$r"); fi
  echo "$a"; echo "$b"
  ratios+=("$(awk -F, -v a="${a#*,*,}" -v b="${b#*,*,}" 'BEGIN {split(a, x, ","); split(b, y, ","); printf "%.3f", y[1] / x[1]}')")
  echo "round $((r + 1)): new / base ${ratios[-1]}"
done
echo "median of the rounds' ratios, new / base: $(printf '%s\n' "${ratios[@]}" | median)"
