// The DAX tier: the on-disk CSR's partition files mapped with libpmem (persistent memory, or the page cache)
// and read in place; an edge cache only where --dram-budget asks for one.
#pragma once
#include <utility>

#include "bfs/neighbour_sources.hpp"
#include "core/error.hpp"
#include "engine/adjacency.hpp"
#include "engine/tier.hpp"
#include "sssp/weighted_sources.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

struct DaxTier : OnStorageKernel1 {
  static constexpr Tier kTier = kDax;

  // The id lists (kernel 2 reads them): the cache's prefixes in DRAM, the tails read in place from the mapped
  // partition files; nothing is copied and nothing written. Without a cache and with one partition the mapping is one array of whole
  // lists, searched like DRAM (ids checked).
  template <class Id, class Fn>
  static auto with_id_lists(const Adjacency<Id>& at, const PlacementSpec&, Fn&& fn) {
    if (at.files->layout().bounds != at.parts->bounds)
      throw Error("internal error: search partitions differ from the CSR files'");
    if (at.cache->adj.size() == 0 && at.files->layout().parts() == 1)
      return fn(WholeLists<Id, true>(at.mapped[0], at.g.offsets, *at.files));
    return fn(PrefixAndMappedTails<Id>(at.g, *at.cache, at.mapped, *at.files));
  }
  // The weighted lists (kernel 3's), split light and heavy at `split`: the weighted edge cache's prefixes if any,
  // the rest of each list read in place.
  template <class Id, class Fn>
  static auto with_weighted_lists(const Adjacency<Id, NodeWeight<Id>>& at, const PlacementSpec&, float split, Fn&& fn) {
    return fn(WeightsInPlace<Id>(at.g, *at.cache, at.mapped, *at.files, split));
  }
};

}  // namespace strata
