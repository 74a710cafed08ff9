// The DAX tier: the on-disk CSR's partition files mapped with libpmem (persistent memory, or the page cache)
// and read in place; an edge cache only where --dram-budget asks for one.
#pragma once
#include <memory>

#include "bfs/searches.hpp"
#include "engine/prepare.hpp"
#include "engine/tier.hpp"
#include "sssp/delta_stepping.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

struct DaxTier : OnStorageKernel1 {
  static constexpr Tier kTier = kDax;

  template <class Id>
  static std::unique_ptr<GraphSearch<Id>> search(const PlacedGraph<Id>& pg, const PlacementSpec&, const BfsOptions& bfs) {
    return dax_search(pg.g, pg.cache, pg.mapped_lists(), *pg.files, pg.partitioning, bfs);
  }
  // Kernel 3: the weighted edge cache's prefixes if any, the rest of each list read in place.
  template <class Id>
  static std::unique_ptr<ShortestPaths<Id>> sssp(const PlacedGraph<Id>& pg, const PlacementSpec&, float delta) {
    using Source = WeightsInPlace<Id>;
    return std::make_unique<DeltaStepping<Id, Source>>(
        pg.g, Source(pg.g, pg.weighted_cache, pg.template mapped_lists<NodeWeight<Id>>(), pg.kernel3_files(), delta), delta);
  }
};

}  // namespace strata
