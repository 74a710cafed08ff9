// The out-of-core tier: the adjacency stays in the graph directory's on-disk CSR (xfs/NVMe); the search keeps
// each list's first K entries in a DRAM edge cache within --dram-budget and reads the tails with io_uring and
// O_DIRECT.
#pragma once
#include <memory>

#include "bfs/searches.hpp"
#include "engine/prepare.hpp"
#include "engine/tier.hpp"
#include "sssp/delta_stepping.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

struct OutOfCoreTier : OnStorageKernel1 {
  static constexpr Tier kTier = kOutOfCore;

  template <class Id>
  static std::unique_ptr<GraphSearch<Id>> search(const PlacedGraph<Id>& pg, const PlacementSpec& spec,
                                                 const BfsOptions& bfs) {
    return out_of_core_search(pg.g, pg.cache, *pg.files, spec.io, pg.partitioning, bfs);
  }
  // Kernel 3: the weighted edge cache's light-first prefixes, the tails read like kernel 2's.
  template <class Id>
  static std::unique_ptr<ShortestPaths<Id>> sssp(const PlacedGraph<Id>& pg, const PlacementSpec& spec, float delta) {
    using Source = WeightsReadTails<Id>;
    return std::make_unique<DeltaStepping<Id, Source>>(
        pg.g, Source(pg.g, pg.weighted_cache, pg.kernel3_files(), spec.io, pg.partitioning, delta), delta);
  }
};

}  // namespace strata
