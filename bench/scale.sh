#!/usr/bin/env bash
# The flagship (issue 11, root): bench/scale.sh [SCALE] (default 28).
#
# A full Graph500 run four times larger than DRAM: SCALE 28 (4.3 G tuples, ~34 GB of adjacency) with
# --placement out-of-core inside a cgroup v1 cap of 7 GiB (CAP_GIB; scaled by 2^(SCALE-28) for a smaller
# SCALE, so SCALE 24 runs the same regime under 448 MiB), page cache included, 64 roots, every search
# validated, on xfs over a `losetup --direct-io=on` loop device (loopfs.sh). The graph directory stores the
# tuples when the filesystem has room for them beside the CSR, else the spec alone (TUPLES=stored|spec to
# choose). Target: end-to-end wall time (kernel 0 + kernel 1 + 64 searches + validation) <= 15 min at SCALE 28
# (issue 24). Prints each phase's seconds and the JSON's key figures. Env: ROOTS (64), THREADS (2), KEEP=1.
#
# GROWTH=1 bench/scale.sh [SCALE]: the growth law (issue 24): SCALE-2, SCALE-1 and SCALE under SCALE's one cap
# (7 GiB at 28: 26, 27, 28; 448 MiB at 24: 22, 23, 24), the spec alone each time; prints seconds per input tuple
# against the smallest SCALE's, for the whole run and for kernel 1 (target <= 1.25x at the largest), writes the
# CSV to /tmp/strata-growth.csv and a PNG of seconds per phase against SCALE to bench/scale_growth.png.
set -euo pipefail
source "$(dirname "$0")/common.sh"
scale=${1:-28} roots=${ROOTS:-64}
scales=("$scale")
if [[ ${GROWTH:-0} == 1 ]]; then
  scales=($((scale - 2)) $((scale - 1)) "$scale")
  TUPLES=spec
fi
n=$((1 << scale)) tuples_bytes=$(( (1 << scale) * 16 * 8 ))
cap=$(flagship_cap "$scale")
# The filesystem: the CSR (at most the tuples' size plus 16 bytes a vertex) and, if chosen, the tuples.
free=$(df --output=avail -B1 /var/tmp | tail -1)
tuples=${TUPLES:-auto}
if [[ $tuples == auto ]]; then
  tuples=spec; (( free > 2 * tuples_bytes + n * 16 + n * 60 + (8 << 30) )) && tuples=stored
fi
# ... and, one after the other, kernel 1's renumbered tuples (8 bytes a tuple, as the tuples' size here) and
# validation's scratch file (4 bytes a vertex with a list a search of a batch against the on-disk CSR, 5 above
# SCALE 28).
scratch=$(( tuples_bytes > n * 60 ? tuples_bytes : n * 60 ))
size=$(( tuples_bytes + n * 16 + scratch + (2 << 30) )); [[ $tuples == stored ]] && size=$((size + tuples_bytes))
mountpoint -q "${MNT:-/mnt/strata-bench}" || { ((size < free)) || { echo "needs $(numfmt --to=iec $size) of disk, $(numfmt --to=iec "$free") free" >&2; exit 1; }; }
image_size=$size
source "$(dirname "$0")/loopfs.sh"

top=$scale
growth_csv=/tmp/strata-growth.csv
[[ ${GROWTH:-0} == 1 ]] && echo "scale,tuples,kernel0_s,kernel1_s,csr_build_s,searches_s,validation_s,wall_s" >"$growth_csv"
for scale in "${scales[@]}"; do
n=$((1 << scale))
g=$mnt/flagship$scale-$tuples
if [[ ! -f $g/graph.hdr ]]; then
  log "SCALE $scale: writing the graph directory ($tuples)"
  flag=(); [[ $tuples == spec ]] && flag=(--no-tuples)
  "$strata" generate --scale "$scale" --out "$g" "${flag[@]}" 2>/dev/null
fi
budget=$(flagship_budget "$cap" "$scale")
log "SCALE $scale: cap $(numfmt --to=iec $cap), budget $(numfmt --to=iec $budget), $roots roots, tuples $tuples"
# On a terminal the run's own progress (each phase, with an ETA) shows as it goes; otherwise it is kept and its
# last lines shown if the run fails.
progress=/dev/stdout
[[ -t 2 ]] && progress=/dev/stderr
out=$(run_capped "$cap" /usr/bin/time -o /tmp/strata-flagship.time -f "wall_s %e rss_kib %M" "$strata" run \
  --graph "$g" --roots "$roots" --threads "$threads" --placement out-of-core --dram-budget "$budget" \
  --json /tmp/strata-flagship.json 2>"$progress") || { echo "$out" | tail -5 >&2; exit 1; }
out+=$'\n'$(cat /tmp/strata-flagship.time)
python3 - /tmp/strata-flagship.json "$cap" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["searches"]
search = sum(x["time"] for x in s)
print(f"SCALE {int(j['SCALE'])}, cap {int(sys.argv[2]) / 2**30:.2f} GiB, adjacency {j['adjacency_bytes'] / 2**30:.2f} GiB "
      f"({j['adjacency_bytes'] / int(sys.argv[2]):.1f}x the cap), {len(s)} searches, validated: {j['validated']}")
built = "reused (its build took" if j.get("csr_reused") else "CSR build"
print(f"kernel 0: {j['graph_generation']:.1f} s; kernel 1: {j['construction_time']:.1f} s ({built} "
      f"{j['csr_build_time']:.1f} s{' in %s passes' % j['csr_build_passes'] if j.get('csr_build_passes') else ''}"
      f"{')' if j.get('csr_reused') else ''}"
      f"{', renumbered tuples %.1f GiB' % (j['csr_build_renumbered_bytes'] / 2**30) if j.get('csr_build_renumbered_bytes') else ''}"
      f", cache load {j['cache_load_time']:.1f} s)")
print(f"searches: {search:.1f} s, harmonic mean {j['bfs_harmonic_mean_TEPS']:.3g} TEPS; validation against "
      f"{'the on-disk CSR' if j['validation_csr_passes'] else 'the tuples'}: {j['validation_time']:.1f} s in "
      f"{j['validation_csr_passes'] + j['validation_tuple_passes']} passes of up to {j['validate_batch']}"
      f"{', the edge cache lent (reloads %.1f s)' % j['validation_cache_reload_time'] if j['validation_lent_cache'] else ''}")
print(f"state {j['state_bytes'] / 2**(j['SCALE']):.1f} B/vertex, edge cache {j['edge_cache_bytes'] / 2**30:.2f} GiB, "
      f"disk: CSR {j['csr_disk_bytes'] / 2**30:.1f} GiB, tuples {j['tuple_file_bytes'] / 2**30:.1f} GiB")
PY
grep -E "^(wall_s|peak_bytes)" <<<"$out"
if [[ ${GROWTH:-0} == 1 ]]; then
  wall=$(grep -E "^wall_s" <<<"$out" | awk '{print $2}')
  python3 - /tmp/strata-flagship.json "$wall" >>"$growth_csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = sum(x["time"] for x in j["searches"])
print(f"{int(j['SCALE'])},{j['edgefactor'] * 2 ** int(j['SCALE']):.0f},{j['graph_generation']:.2f},{j['construction_time']:.2f},"
      f"{j['csr_build_time']:.2f},{s:.2f},{j['validation_time']:.2f},{sys.argv[2]}")
PY
  [[ $scale != "$top" ]] && remove_and_trim "$g"  # the disk is sized for one flagship CSR: the smaller ones go once measured
fi
done
if [[ ${GROWTH:-0} == 1 ]]; then
  python3 - "$growth_csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
base = rows[0]
for r in rows:
    per = lambda k: float(r[k]) / float(r["tuples"]) / (float(base[k]) / float(base["tuples"]))
    print(f"SCALE {r['scale']}: wall {float(r['wall_s']):.1f} s, kernel 1 {float(r['kernel1_s']):.1f} s; per tuple against "
          f"SCALE {base['scale']}: wall {per('wall_s'):.2f}x, kernel 1 {per('kernel1_s'):.2f}x")
PY
  if command -v gnuplot >/dev/null; then
    png=$(dirname "$0")/scale_growth.png
    gnuplot <<GP
set terminal pngcairo size 800,500
set output "$png"
set datafile separator ","
set key left top
set xlabel "SCALE (one cap: $(numfmt --to=iec "$cap"))"
set ylabel "seconds"
set xtics 1
plot "$growth_csv" every ::1 using 1:3 with linespoints title "kernel 0", \
     "" every ::1 using 1:4 with linespoints title "kernel 1", \
     "" every ::1 using 1:6 with linespoints title "searches", \
     "" every ::1 using 1:7 with linespoints title "validation", \
     "" every ::1 using 1:8 with linespoints title "wall"
GP
    echo "plot: $png"
  fi
fi
