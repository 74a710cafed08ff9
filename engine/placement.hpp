// Puts each part's rows of the CSR on its NUMA node (the pages of its offsets, adjacency, degrees).
#pragma once
#include <vector>

#include "engine/csr.hpp"
#include "engine/topology.hpp"

namespace strata {

// Parts of equal work, where a vertex's work is its list length plus one (bottom-up visits every vertex):
// the prefix of that work is offsets[v] + v, so nothing needs to be materialized.
template <class Id>
Partitioning partition_by_work(const Csr<Id>& g, int parts, const Topology& topo) {
  return Partitioning::balanced(g.n, [&](uint64_t v) { return g.offsets[v] + v; }, parts, topo);
}

template <class Id>
void place_on_nodes(Csr<Id>& g, const Partitioning& parts) {
  for (int p = 0; p < parts.parts(); ++p) {
    const uint64_t b = parts.begin(p), e = parts.end(p);
    g.offsets.prefer_node(b, e + 1, parts.node[p]);
    g.duplicates.prefer_node(b, e, parts.node[p]);
    g.to_input.prefer_node(b, e, parts.node[p]);
    g.adj.prefer_node(g.offsets[b], g.offsets[e], parts.node[p]);
  }
}

}  // namespace strata
