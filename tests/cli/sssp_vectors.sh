# SSSP.md section 8's vectors for the kernel-3 CLI tests (sourced after lib.sh): the first 4 roots at SCALE 10,
# 12, 14 (seeds 2,3) -- root reached dist_sum max_dist dist_fnv nedge -- and check_vectors SCALE JSON [PLACEMENT],
# which holds a run's sssp searches to the table's rows for SCALE.
[[ -n ${tmp:-} && -d $tmp ]] || { echo "FAIL: sssp_vectors.sh is sourced after lib.sh, which makes \$tmp"; exit 1; }
cat >"$tmp/vectors.txt" <<'EOF'
10 458 897 258.18886033445597 1.1285768747329712 0x655f56114f9f3658 16239
10 214 897 618.71742710471153 1.5295275449752808 0xbf54d253d990ebad 16239
10 220 897 226.49648305773735 1.0953563451766968 0xbb9810eaf9d8e8c3 16239
10 966 897 205.32267121784389 1.0671641826629639 0x33abaaa8a4ded04c 16239
12 1834 3351 799.90118391253054 1.1938295364379883 0xdc273856d5cb6ad2 65327
12 858 3351 754.77872969210148 1.1776974201202393 0x7adbf1b93858e547 65327
12 881 3351 1010.7967596873641 1.2567732334136963 0xf9485575180ce39f 65327
12 504 3351 682.7249520146288 1.1564173698425293 0x15aceba883d1067e 65327
14 7337 12550 2735.9838809794746 1.7392263412475586 0x303eeeb1882b9a74 261818
14 3434 12550 3274.2025028914213 1.7807146310806274 0x61cc3598209a8d67 261818
14 3526 12550 2653.8389366827905 1.7317447662353516 0xbe1a073f37d1179e 261818
14 2016 12550 3398.0914273746312 1.7925381660461426 0x230a39287f5f5edf 261818
EOF
check_vectors() {
  python3 - "$1" "$2" "$tmp/vectors.txt" "${3:-}" <<'PY'
import json, sys
scale, j = int(sys.argv[1]), json.load(open(sys.argv[2]))
want = [l.split() for l in open(sys.argv[3]) if int(l.split()[0]) == scale]
got = j["sssp_searches"]
assert not sys.argv[4] or j["placement"] == sys.argv[4], j["placement"]
assert len(got) == len(want), (len(got), len(want))
for s, w in zip(got, want):
    assert s["root"] == int(w[1]) and s["reached"] == int(w[2]), (s, w)
    assert s["dist_sum"] == float(w[3]) and s["max_dist"] == float(w[4]), (s, w)
    assert s["dist_fnv"] == w[5] and s["nedge"] == int(w[6]) and s["valid"] is True, (s, w)
PY
}
