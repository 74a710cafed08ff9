// The graph the search runs on: an undirected CSR over internal vertex ids, renumbered by degree (highest
// first) with every neighbour list sorted ascending, so a list starts with its highest-degree neighbours.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "storage/numa_array.hpp"

namespace strata {

template <class Id>
struct Csr {
  static constexpr Id kNone = Id(-1);

  uint64_t n = 0;
  NumaArray<uint64_t> offsets;  // n + 1; list of v is adj[offsets[v], offsets[v+1])
  NumaArray<Id> adj;            // no self-loops, no duplicates
  NumaArray<Id> raw_degree;     // non-self-loop input tuples at v, duplicates counted (the reference nedge rule)
  NumaArray<Id> to_input;       // internal id -> input label

  uint64_t degree(uint64_t v) const { return offsets[v + 1] - offsets[v]; }
  std::span<const Id> neighbors(uint64_t v) const { return {adj.data() + offsets[v], adj.data() + offsets[v + 1]}; }
  uint64_t directed_edges() const { return offsets[n]; }
  uint64_t bytes() const { return offsets.bytes() + adj.bytes() + raw_degree.bytes() + to_input.bytes(); }
};

// Internal ids of the given input labels (one pass over to_input; for roots, not for hot paths).
template <class Id>
std::vector<Id> internal_ids(const Csr<Id>& g, const std::vector<uint64_t>& labels) {
  std::vector<Id> ids(labels.size(), Csr<Id>::kNone);
  for (uint64_t v = 0; v < g.n; ++v)
    for (size_t i = 0; i < labels.size(); ++i)
      if (g.to_input[v] == labels[i]) ids[i] = Id(v);
  return ids;
}

}  // namespace strata
