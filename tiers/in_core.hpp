// The in-core tier: kernel 1 builds the whole CSR in DRAM (NUMA-partitioned, or on chosen memory nodes) and the
// search reads every list there.
#pragma once
#include <utility>

#include "bfs/neighbour_sources.hpp"
#include "engine/adjacency.hpp"
#include "engine/prepare.hpp"
#include "engine/tier.hpp"
#include "sssp/weighted_sources.hpp"

namespace strata {

struct InCoreTier {
  static constexpr Tier kTier = kInCore;

  template <class Id, class Source>
  static void prepare(PlacedGraph<Id>& pg, const Source& source, const PlacementSpec& spec, const Topology& topo,
                      const PhaseProgress& progress) {
    prepare_in_core(pg, source, spec, topo, progress);
  }
  // The id lists (kernel 2 reads them): every list in DRAM.
  template <class Id, class Fn>
  static auto with_id_lists(const Adjacency<Id>& at, const PlacementSpec&, Fn&& fn) {
    return fn(WholeLists<Id>(at.g.adj.data(), at.g.offsets));
  }
  // The weighted lists (kernel 3's), split light and heavy at `split`: the lists by weight, as pairs (a rank) or
  // with the weights beside (one process, once ready_kernel3_lists has ordered them).
  template <class Id, class Fn>
  static auto with_weighted_lists(const Adjacency<Id, NodeWeight<Id>>& at, const PlacementSpec&, float split, Fn&& fn) {
    if (at.pairs) return fn(PairLists<Id>({at.pairs}, at.g.offsets, split));
    if (!at.by_weight) throw Error("internal error: kernel 3's in-core lists searched before ready_kernel3_lists");
    return fn(InCoreByWeight<Id>({at.g.adj.data(), at.weights}, at.g.offsets, split));
  }
};

}  // namespace strata
