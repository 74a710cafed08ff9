// The in-core tier: kernel 1 builds the whole CSR in DRAM (NUMA-partitioned, or on chosen memory nodes) and the
// search reads every list there.
#pragma once
#include <memory>

#include "bfs/searches.hpp"
#include "engine/prepare.hpp"
#include "engine/tier.hpp"
#include "sssp/delta_stepping.hpp"

namespace strata {

struct InCoreTier {
  static constexpr Tier kTier = kInCore;

  template <class Id, class Source>
  static void prepare(PlacedGraph<Id>& pg, const Source& source, const PlacementSpec& spec, const Topology& topo,
                      const PhaseProgress& progress) {
    prepare_in_core(pg, source, spec, topo, progress);
  }
  template <class Id>
  static std::unique_ptr<GraphSearch<Id>> search(const PlacedGraph<Id>& pg, const PlacementSpec&, const BfsOptions& bfs) {
    return in_core_search(pg.g, pg.partitioning, bfs);
  }
  template <class Id>
  static std::unique_ptr<ShortestPaths<Id>> sssp(const PlacedGraph<Id>& pg, const PlacementSpec&, float delta) {
    return std::make_unique<DeltaStepping<Id>>(pg.g, pg.weights.data(), delta);
  }
};

}  // namespace strata
