// Puts each part's rows of the CSR on its NUMA node (the pages of its offsets, adjacency, degrees).
#pragma once
#include <map>
#include <string>
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

// Expanded memory (CXL, Optane memory mode, software-defined memory) shows up as NUMA nodes, often without
// CPUs. mem_nodes: put the adjacency there (bound, or interleaved over them), keeping the hot O(N) arrays
// on the CPUs' nodes; interleave without mem_nodes: spread the graph's pages over every memory node.
struct MemoryPlacement {
  std::vector<int> mem_nodes;
  bool interleave = false;
  bool any() const { return !mem_nodes.empty() || interleave; }
};

// Refuses node ids the machine does not have (with the ones it has).
void check_memory_nodes(const std::vector<int>& nodes, const Topology& topo);

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

// Where each structure lives, for the JSON.
std::map<std::string, std::string> describe_placement(const MemoryPlacement& m, const Partitioning& parts,
                                                      const Topology& topo);

// weights: kernel 3's, one per entry (null: none), placed as the adjacency is.
template <class Id>
void place_graph(Csr<Id>& g, const Partitioning& parts, const MemoryPlacement& m, const Topology& topo,
                 NumaArray<float>* weights = nullptr) {
  place_on_nodes(g, parts);
  if (weights)
    for (int p = 0; p < parts.parts(); ++p)
      weights->prefer_node(g.offsets[parts.begin(p)], g.offsets[parts.end(p)], parts.node[p]);
  if (!m.mem_nodes.empty()) {
    g.adj.place_on(m.mem_nodes, m.interleave);
    if (weights) weights->place_on(m.mem_nodes, m.interleave);
  } else if (m.interleave) {
    g.adj.place_on(topo.memory_nodes, true);
    if (weights) weights->place_on(topo.memory_nodes, true);
    g.to_input.place_on(topo.memory_nodes, true);
    g.duplicates.place_on(topo.memory_nodes, true);
  }
}

}  // namespace strata
