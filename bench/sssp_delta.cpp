// Kernel 3's bucket width by measurement (issue 23 asks that delta be chosen so): the weighted CSR of one graph,
// then for each delta the reference's roots searched one at a time, timed alone, each result validated.
// build/bench/sssp_delta SCALE [ROOTS [delta...]] prints CSV: delta, median seconds, harmonic-mean TEPS.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/timer.hpp"
#include "engine/build_csr.hpp"
#include "generators/edge_stream.hpp"
#include "sssp/delta_stepping.hpp"
#include "validate/sssp_validator.hpp"

using namespace strata;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sssp_delta SCALE [ROOTS [delta...]]\n");
    return 2;
  }
  const int scale = std::atoi(argv[1]), count = argc > 2 ? std::atoi(argv[2]) : 8;
  std::vector<float> deltas;
  for (int i = 3; i < argc; ++i) deltas.push_back(std::strtof(argv[i], nullptr));
  if (deltas.empty()) deltas = {0.01f, 0.025f, 0.05f, 0.1f, 0.2f, 0.5f, 1.0f};
  const GeneratedEdges source{Kronecker({scale, 16, 2, 3})};
  const Csr<uint32_t, float> g = build_csr<uint32_t, float>(source);
  std::vector<uint64_t> has_edge((g.n + 63) / 64);  // by input label, as the reference picks roots
  for (uint64_t v = 0; v < g.n; ++v)
    if (g.degree(v) > 0) has_edge[g.to_input[v] >> 6] |= uint64_t(1) << (g.to_input[v] & 63);
  const std::vector<uint64_t> roots =
      search_roots(source.spec(), count, [&](uint64_t v) { return (has_edge[v >> 6] >> (v & 63)) & 1; });
  const std::vector<uint32_t> internal = internal_ids<uint32_t>({g.to_input.data(), g.n}, roots);
  std::vector<float> dist(g.n);
  std::vector<uint32_t> parent(g.n);
  std::printf("scale,threads,roots,delta,median_seconds,harmonic_mean_TEPS,validated\n");
  for (const float delta : deltas) {
    DeltaStepping<uint32_t> sssp(g, delta);
    sssp.search(internal[0], dist.data(), parent.data());  // warm-up
    std::vector<double> seconds;
    double per_edge = 0;
    bool valid = true;
    for (size_t r = 0; r < roots.size(); ++r) {
      const double t0 = now();
      sssp.search(internal[r], dist.data(), parent.data());
      seconds.push_back(now() - t0);
      const uint64_t nedge = sssp.reached_raw_degree_sum() / 2;
      per_edge += seconds.back() / double(nedge);
      valid = valid && check_sssp<uint32_t>(g, {roots[r], dist.data(), parent.data(), nedge}).valid;
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("%d,%d,%zu,%g,%.4f,%.4g,%s\n", scale, omp_get_max_threads(), roots.size(), double(delta),
                seconds[seconds.size() / 2], double(roots.size()) / per_edge, valid ? "yes" : "no");
  }
  return 0;
}
