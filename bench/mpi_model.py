#!/usr/bin/env python3
"""A paper model of Strata's distributed BFS beyond this machine, from what bench/mpi.sh measured here.

Usage: bench/mpi_model.py TRACE_DIR [SCALE]   (TRACE_DIR: bench/mpi.sh's; SCALE: the runs to read, default the
largest there). Reads the 2-rank runs' --trace lines and JSON, takes per search the share of the directed edges
examined top-down and bottom-up, the levels in each direction, nedge per tuple and the edges examined per
second per core, and prints, for SCALE 30-36 on 16, 256 and 4096 nodes (one rank of 32 cores a node, 100 Gb/s
links, 2 us a message), the time of a search with Strata's 1-D exchanges and with a 2-D partition, the term
that dominates, and the memory a rank keeps for a search with today's 1-D design (rows included).
"""
import glob, json, math, re, statistics, sys

trace_dir = sys.argv[1]
jsons = sorted(glob.glob(f"{trace_dir}/s*-ranks-r*.json"))
scales = sorted({int(re.search(r"/s(\d+)-", p).group(1)) for p in jsons})
scale = int(sys.argv[2]) if len(sys.argv) > 2 else scales[-1]
td, bu, ltd, lbu, rate, nedge_per_tuple = [], [], [], [], [], []
for jp in [p for p in jsons if f"/s{scale}-" in p]:
    j = json.load(open(jp))
    ranks, directed = j["num_mpi_processes"], j["directed_edges"]
    tuples = j["edgefactor"] * 2 ** j["scale"]
    levels = {}
    for line in open(jp.replace(".json", ".trace")):
        m = re.match(r"trace: search (\d+) .* (top-down|bottom-up) frontier \d+ edges (\d+) time", line)
        if m: levels.setdefault(int(m.group(1)), []).append((m.group(2), int(m.group(3))))
    for i, s in enumerate(j["searches"]):
        lv = levels[i]
        td.append(sum(e for d, e in lv if d == "top-down") / directed)
        bu.append(sum(e for d, e in lv if d == "bottom-up") / directed)
        ltd.append(sum(d == "top-down" for d, _ in lv))
        lbu.append(sum(d == "bottom-up" for d, _ in lv))
        rate.append(s["edges_examined"] / s["time"] / ranks)  # per core (one thread a rank)
        nedge_per_tuple.append(s["nedge"] / tuples)
    directed_per_tuple = directed / tuples
f_td, f_bu = statistics.median(td), statistics.median(bu)
L_td, L_bu = statistics.mean(ltd), statistics.mean(lbu)
R_core, q = statistics.median(rate), statistics.median(nedge_per_tuple)
print(f"# measured at SCALE {scale} on 2 ranks x 1 thread ({len(td)} searches): examined top-down {f_td:.4f} and "
      f"bottom-up {f_bu:.4f} of the directed edges; {L_td:.1f} top-down and {L_bu:.1f} bottom-up levels; "
      f"{R_core / 1e6:.0f} M edges examined a second a core; nedge = {q:.3f} x the tuples; "
      f"directed edges = {directed_per_tuple:.3f} x the tuples")

CORES, BW, ALPHA = 32, 100e9 / 8, 2e-6
print("scale,nodes,t_1d_s,dominant_1d,gteps_1d,t_2d_s,dominant_2d,gteps_2d,state_per_rank_1d_GiB")
for S in (30, 32, 34, 36):
    N = 2 ** S
    M = 16 * N
    D = directed_per_tuple * M
    idb = 4 if S <= 31 else 8
    for P in (16, 256, 4096):
        rp = math.sqrt(P)
        compute = (f_td + f_bu) * D / (P * CORES * R_core)
        # 1-D: top-down sends a (child, parent) pair for every examined edge whose child is remote; bottom-up
        # gathers the whole frontier bitmap on every rank; alltoallv costs a message per peer.
        td1 = 2 * idb * f_td * D * (P - 1) / P / P / BW
        bu1 = L_bu * (N / 8) * (P - 1) / P / BW
        lat1 = (L_td * P + L_bu * (P - 1) + (L_td + L_bu) * 4 * 2 * math.log2(P)) * ALPHA
        # 2-D (sqrt(P) x sqrt(P)): the bitmap moves along a row and a column, N / sqrt(P) bits each; the pairs
        # still cross the network once; messages go to sqrt(P) peers.
        td2 = td1
        bu2 = L_bu * 2 * (N / 8) / rp / BW
        lat2 = (L_td * 2 * rp + L_bu * 2 * rp + (L_td + L_bu) * 4 * 2 * math.log2(P)) * ALPHA
        terms1 = {"compute": compute, "top-down pairs": td1, "bottom-up bitmap": bu1, "latency": lat1}
        terms2 = {"compute": compute, "top-down pairs": td2, "bottom-up bitmap": bu2, "latency": lat2}
        t1, t2 = sum(terms1.values()), sum(terms2.values())
        nedge = q * M
        # 1-D today: bitmaps of the graph (has_edge, the gathered frontier), every rank's hub labels (a
        # sixteenth of the ids), the rank's own arrays (parents, labels, raw degrees, offsets) and rows
        state = (N / 8 * 2 + idb * N / 16 + (2 * idb + 16) * N / P + 2 * idb * D / P) / 2 ** 30
        print(f"{S},{P},{t1:.4g},{max(terms1, key=terms1.get)},{nedge / t1 / 1e9:.4g},{t2:.4g},"
              f"{max(terms2, key=terms2.get)},{nedge / t2 / 1e9:.4g},{state:.4g}")
