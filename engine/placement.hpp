// Puts each part's rows of the CSR on its NUMA node (the pages of its offsets, adjacency, degrees).
#pragma once
#include <vector>

#include "engine/csr.hpp"
#include "engine/topology.hpp"

namespace strata {

// Work per vertex for partitioning: its list length plus one (the bottom-up loop visits every vertex).
template <class Id>
std::vector<uint64_t> work_prefix(const Csr<Id>& g) {
  std::vector<uint64_t> w(g.n + 1, 0);
  for (uint64_t v = 0; v < g.n; ++v) w[v + 1] = w[v] + g.degree(v) + 1;
  return w;
}

template <class Id>
void place_on_nodes(Csr<Id>& g, const Partitioning& parts) {
  for (int p = 0; p < parts.parts(); ++p) {
    const uint64_t b = parts.begin(p), e = parts.end(p);
    g.offsets.prefer_node(b, e + 1, parts.node[p]);
    g.raw_degree.prefer_node(b, e, parts.node[p]);
    g.to_input.prefer_node(b, e, parts.node[p]);
    g.adj.prefer_node(g.offsets[b], g.offsets[e], parts.node[p]);
  }
}

}  // namespace strata
