# Shared by the bench scripts: the strata binary and a median helper.
strata=${STRATA:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/strata}
[[ -x $strata ]] || { echo "build strata first: ./scripts/setup.sh" >&2; exit 1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
