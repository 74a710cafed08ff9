# Shared by the MPI command-line tests (after lib.sh and need_mpi): mpi P ARGS... runs strata on P ranks;
# same_searches compares two runs' JSON.
mpi() {
  local p=$1
  shift
  timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$p" "$strata" "$@"
}

# same_searches A.json B.json: the same roots, nedge and verdicts, in order, and the same graph.
same_searches() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda j: [(s["root"], s["nedge"], s["valid"]) for s in j["searches"]]
assert key(a) == key(b), (key(a)[:3], key(b)[:3])
assert a["directed_edges"] == b["directed_edges"], (a["directed_edges"], b["directed_edges"])
PY
}
