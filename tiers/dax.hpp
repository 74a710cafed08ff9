// The DAX tier: the on-disk CSR's partition files mapped with libpmem (persistent memory, or the page cache)
// and read in place; an edge cache only where --dram-budget asks for one.
#pragma once
#include <memory>

#include "bfs/searches.hpp"
#include "engine/prepare.hpp"
#include "engine/tier.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

struct DaxTier : OnStorageKernel1 {
  static constexpr Tier kTier = kDax;

  template <class Id>
  static std::unique_ptr<GraphSearch<Id>> search(const PlacedGraph<Id>& pg, const PlacementSpec&, const BfsOptions& bfs) {
    return dax_search(pg.g, pg.cache, pg.mapped_lists(), *pg.files, pg.partitioning, bfs);
  }
};

}  // namespace strata
