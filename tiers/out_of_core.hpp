// The out-of-core tier: the adjacency stays in the graph directory's on-disk CSR (xfs/NVMe); the search keeps
// each list's first K entries in a DRAM edge cache within --dram-budget and reads the tails with io_uring and
// O_DIRECT.
#pragma once
#include <utility>

#include "bfs/neighbour_sources.hpp"
#include "engine/adjacency.hpp"
#include "engine/tier.hpp"
#include "sssp/weighted_sources.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

struct OutOfCoreTier : OnStorageKernel1 {
  static constexpr Tier kTier = kOutOfCore;

  // The id lists (kernel 2 reads them): the cache's prefixes in DRAM, the tails read in file order (the partitions
  // must be the files').
  template <class Id, class Fn>
  static auto with_id_lists(const Adjacency<Id>& at, const PlacementSpec& spec, Fn&& fn) {
    return fn(PrefixAndReadTails<Id>(at.g, *at.cache, *at.files, spec.io, *at.parts,
                                     listed_vertices(at.g)));
  }
  // The weighted lists (kernel 3's), split light and heavy at `split`: the weighted edge cache's light-first
  // prefixes, the tails read like the id lists'.
  template <class Id, class Fn>
  static auto with_weighted_lists(const Adjacency<Id, NodeWeight<Id>>& at, const PlacementSpec& spec, float split,
                                  Fn&& fn) {
    return fn(WeightsReadTails<Id>(at.g, *at.cache, *at.files, spec.io, *at.parts, split));
  }
};

}  // namespace strata
