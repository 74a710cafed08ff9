# Shared by the bench scripts: the strata binary, THREADS and RUNS (defaults 2 and 3), a median helper and
# a JSON field reader.
strata=${STRATA:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/strata}
[[ -x $strata ]] || { echo "build strata first: ./scripts/setup.sh" >&2; exit 1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
threads=${THREADS:-2}
runs=${RUNS:-3}
json_get() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }  # json_get FILE '["key"]'
