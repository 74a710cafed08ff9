# Shared by the bench scripts: the strata binary, THREADS and RUNS (defaults 2 and 3), a median helper, the
# rotating rounds of three measurements, and a JSON field reader.
strata=${STRATA:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/strata}
[[ -x $strata ]] || { echo "build strata first: ./scripts/setup.sh" >&2; exit 1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
threads=${THREADS:-2}
runs=${RUNS:-3}
# three_way SCALE A B C: RUNS rounds of three measurements (commands called as `A SCALE ROUND`, each printing
# one figure), the order rotating round by round so none always goes first; prints "SCALE,round,a,b,c" a round
# and "SCALE,median,a,b,c", and leaves the medians in median_a, median_b, median_c.
three_way() {
  local scale=$1 r k
  local -a a=() b=() c=()
  for ((r = 0; r < runs; r++)); do
    for k in 0 1 2; do
      case $(((k + r) % 3)) in
        0) a+=("$("$2" "$scale" "$r")") ;;
        1) b+=("$("$3" "$scale" "$r")") ;;
        2) c+=("$("$4" "$scale" "$r")") ;;
      esac
    done
    echo "$scale,$r,${a[-1]},${b[-1]},${c[-1]}"
  done
  median_a=$(printf '%s\n' "${a[@]}" | median)
  median_b=$(printf '%s\n' "${b[@]}" | median)
  median_c=$(printf '%s\n' "${c[@]}" | median)
  echo "$scale,median,$median_a,$median_b,$median_c"
}
json_get() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }  # json_get FILE '["key"]'
# growth_medians CSV COLUMN WHAT: per (scale, binary) of CSV, the median of COLUMN and the seconds per tuple
# relative to the binary's smallest SCALE (the growth law: 1.00x is linear in the graph).
growth_medians() {
  python3 - "$@" <<'PY'
import csv, statistics, sys
path, column, what = sys.argv[1:4]
rows = list(csv.DictReader(open(path)))
med = {}
for (s, b) in sorted({(int(r['scale']), r['binary']) for r in rows}):
    med[(s, b)] = statistics.median(float(r[column]) for r in rows if int(r['scale']) == s and r['binary'] == b)
for (s, b), t in sorted(med.items()):
    s0 = min(x for x, y in med if y == b)
    per = t / (1 << s) / (med[(s0, b)] / (1 << s0))
    print(f"SCALE {s} binary {b}: {what} median {t:.2f} s, per tuple {per:.2f}x SCALE {s0}'s")
PY
}
# The flagship's regime (scale.sh, scale_ab.sh): flagship_cap SCALE gives its cgroup cap, CAP_GIB (7) GiB at SCALE
# 28 scaled by 2^(SCALE-28); flagship_budget CAP SCALE its --dram-budget, the cap less 16 bytes a vertex and 96 MiB
# (fails, saying so, when nothing is left).
flagship_cap() {
  local s=$1 cap=$(( ${CAP_GIB:-7} * (1 << 30) ))
  ((s < 28)) && cap=$((cap >> (28 - s)))
  ((s > 28)) && cap=$((cap << (s - 28)))
  echo "$cap"
}
flagship_budget() {
  local budget=$(( $1 - (1 << $2) * 16 - (96 << 20) ))
  ((budget > 0)) || { echo "a $(numfmt --to=iec "$1") cap leaves no budget beyond 16 bytes a vertex" >&2; return 1; }
  echo "$budget"
}
