// The graph the search runs on: an undirected CSR over internal vertex ids, renumbered by degree (highest
// first) with every neighbour list sorted ascending, so a list starts with its highest-degree neighbours
// (a weighted list built for kernel 3 may hold its light entries first, then the rest: Csr<Id, W>::light_below).
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <span>
#include <vector>

#include "core/ids.hpp"
#include "engine/block_offsets.hpp"
#include "storage/numa_array.hpp"

namespace strata {

template <class Id, class W = void>
struct Csr;

// A neighbour and its kernel-3 weight, side by side: an entry of the on-disk weighted CSR and of its edge cache,
// so a list's tail comes in one read (GAPBS's NodeWeight).
template <class Id>
struct NodeWeight {
  Id v;
  float w;
};
static_assert(sizeof(NodeWeight<uint32_t>) == 8);

// The vertex an adjacency entry names, whether it carries a weight or not.
template <class Id>
Id entry_id(Id e) {
  return e;
}
template <class Id>
Id entry_id(const NodeWeight<Id>& e) {
  return e.v;
}

// Unweighted: the ids alone (the BFS's graph).
template <class Id>
struct Csr<Id, void> {
  static constexpr uint8_t kManyDuplicates = 255;

  uint64_t n = 0;
  BlockOffsets offsets;           // n + 1; list of v is adj[offsets[v], offsets[v+1])
  NumaArray<Id> adj;              // no self-loops, no duplicates
  NumaArray<Id> to_input;         // internal id -> input label
  // Tuples at v that deduplication removed; the raw degree (the reference nedge rule counts duplicates) is
  // degree + duplicates. Nearly all counts are small, so one byte each; hubs with more are kept aside.
  NumaArray<uint8_t> duplicates;  // saturates at kManyDuplicates
  std::vector<std::pair<uint64_t, uint64_t>> many_duplicates;  // (v, count) by v, for saturated entries

  // Records that `removed` of v's tuples were duplicates: in v's byte, and aside once the byte saturates.
  static void note_duplicates(uint8_t& byte, std::vector<std::pair<uint64_t, uint64_t>>& many, uint64_t v,
                              uint64_t removed) {
    byte = uint8_t(std::min<uint64_t>(removed, kManyDuplicates));
    if (removed >= kManyDuplicates) many.push_back({v, removed});
  }

  uint64_t degree(uint64_t v) const { return offsets[v + 1] - offsets[v]; }
  // Non-self-loop input tuples at v, duplicates counted.
  uint64_t raw_degree(uint64_t v) const {
    if (duplicates[v] != kManyDuplicates) [[likely]]
      return degree(v) + duplicates[v];
    auto it = std::lower_bound(many_duplicates.begin(), many_duplicates.end(), std::pair<uint64_t, uint64_t>{v, 0});
    return degree(v) + it->second;
  }
  std::span<const Id> neighbors(uint64_t v) const { return {adj.data() + offsets[v], adj.data() + offsets[v + 1]}; }
  uint64_t directed_edges() const { return offsets[n]; }
  uint64_t bytes() const {
    return offsets.bytes() + adj.bytes() + to_input.bytes() + duplicates.bytes() + many_duplicates.size() * 16;
  }
};

// Weighted (kernel 3's float weights): a value per entry beside the ids. It is a Csr<Id>, so the BFS and every
// unweighted check take it as it is; a run that searches both kernels holds one graph.
template <class Id, class W>
struct Csr : Csr<Id, void> {
  NumaArray<W> weights;  // weights[i] belongs to adj[i]: the lightest of its tuples (both directions share it)
  // > 0: each list holds its entries lighter than this first (kernel 3's light edges, w < delta), then the rest,
  // each part by id (light_part); 0: each list by id.
  float light_below = 0;

  std::span<const W> weights_of(uint64_t v) const {
    return {weights.data() + this->offsets[v], weights.data() + this->offsets[v + 1]};
  }
  uint64_t bytes() const { return Csr<Id>::bytes() + weights.bytes(); }
};

// The entries that open a list of weights ws[0, len) lighter than light_below: the light part of a light-first
// list (Csr<Id, W>::light_below), which delta-stepping's light rounds read alone; 0 for lists by id alone.
inline uint64_t light_part(const float* ws, uint64_t len, float light_below) {
  uint64_t k = 0;
  while (k < len && ws[k] < light_below) ++k;
  return k;
}

// Vertices [listed_vertices(g), n) have no list. Ids are ordered by degree, so these are every vertex without one
// (over half the vertices from SCALE 26): bottom-up never visits them, out-of-core reads end before them, and a
// search's nedge sums the reached raw degrees before them (a vertex without a list has raw degree 0: a duplicate
// needs an entry, and self-loops do not count).
template <class Id>
uint64_t listed_vertices(const Csr<Id>& g) {
  uint64_t a = g.n;
  while (a > 0 && g.degree(a - 1) == 0) --a;
  return a;
}

// A search's nedge rule, twice the count: the raw degrees of the vertices it reached (all of them before
// listed_vertices). Nearly every listed vertex of a Kronecker graph is reached (its giant component: all but 0.06%
// at SCALE 22 and 25), so the sum is taken as all the listed vertices' (summed at the first search, then kept)
// less the unreached ones': one sequential read of the search's state that seldom looks up a degree, where a lookup
// a reached vertex (its two block offsets and its duplicates' byte) took 2.3% of the CPU of a SCALE 26 run
// out-of-core, between the timed searches. One per search object (HybridBfs, DeltaStepping); a rank's graph
// (cluster/) keeps its raw degrees apart and counts its own nedge, so it never asks.
template <class Id>
class ReachedDegrees {
 public:
  explicit ReachedDegrees(const Csr<Id>& g) : g_(&g), listed_(listed_vertices(g)) {}
  uint64_t listed() const { return listed_; }
  // Twice the nedge of a search that left v unreached where unreached(v).
  template <class Unreached>
  uint64_t sum(Unreached&& unreached) const {
    const Csr<Id>& g = *g_;
    if (all_ == kNotSummed) {
      uint64_t all = 0;
#pragma omp parallel for reduction(+ : all)
      for (uint64_t v = 0; v < listed_; ++v) all += g.raw_degree(v);
      all_ = all;
    }
    uint64_t missed = 0;
#pragma omp parallel for reduction(+ : missed)
    for (uint64_t v = 0; v < listed_; ++v)
      if (unreached(v)) [[unlikely]] missed += g.raw_degree(v);
    return all_ - missed;
  }

 private:
  static constexpr uint64_t kNotSummed = UINT64_MAX;
  const Csr<Id>* g_;
  uint64_t listed_;                      // vertices [listed_, n) have no list
  mutable uint64_t all_ = kNotSummed;    // the listed vertices' raw degrees, at the first sum
};

// Internal ids of the given input labels, in one parallel pass over an internal-to-input map (for roots, not
// hot paths); kNoVertex for a label the map does not hold.
template <class Id>
std::vector<Id> internal_ids(std::span<const Id> to_input, const std::vector<uint64_t>& labels) {
  std::vector<std::pair<uint64_t, size_t>> sorted;
  for (size_t i = 0; i < labels.size(); ++i) sorted.push_back({labels[i], i});
  std::sort(sorted.begin(), sorted.end());
  std::vector<Id> ids(labels.size(), kNoVertex<Id>);
#pragma omp parallel for
  for (uint64_t v = 0; v < to_input.size(); ++v) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), std::pair<uint64_t, size_t>{to_input[v], 0});
    for (; it != sorted.end() && it->first == to_input[v]; ++it) ids[it->second] = Id(v);
  }
  return ids;
}
template <class Id>
std::vector<Id> internal_ids(const Csr<Id>& g, const std::vector<uint64_t>& labels) {
  return internal_ids<Id>({g.to_input.data(), g.n}, labels);
}

}  // namespace strata
