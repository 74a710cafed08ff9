// The out-of-core tier: the adjacency stays in the graph directory's on-disk CSR (xfs/NVMe); the search keeps
// each list's first K entries in a DRAM edge cache within --dram-budget and reads the tails with io_uring and
// O_DIRECT.
#pragma once
#include <utility>

#include "bfs/hybrid_bfs.hpp"
#include "bfs/neighbour_sources.hpp"
#include "engine/adjacency.hpp"
#include "engine/tier.hpp"
#include "sssp/weighted_sources.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

struct OutOfCoreTier : OnStorageKernel1 {
  static constexpr Tier kTier = kOutOfCore;

  // Kernel 2: the cache's prefixes in DRAM, the tails read in file order (the partitions must be the files').
  template <class Id, class Fn>
  static auto with_bfs_source(const Adjacency<Id>& at, const PlacementSpec& spec, Fn&& fn) {
    return fn(PrefixAndReadTails<Id>(at.g, *at.cache, *at.files, spec.io, *at.parts,
                                     HybridBfs<Id>::active_vertices(at.g)));
  }
  // Kernel 3: the weighted edge cache's light-first prefixes, the tails read like kernel 2's.
  template <class Id, class Fn>
  static auto with_sssp_source(const Adjacency<Id, NodeWeight<Id>>& at, const PlacementSpec& spec, float delta,
                               Fn&& fn) {
    return fn(WeightsReadTails<Id>(at.g, *at.cache, *at.files, spec.io, *at.parts, delta));
  }
};

}  // namespace strata
