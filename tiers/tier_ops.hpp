// What each tier does, by registration: its kernel 1 (from a graph directory, and from the generator where it
// needs no directory) and its search over the prepared graph, for 32- and 64-bit ids. A tier is a type with
// a `static constexpr Tier kTier` and template `prepare` and `search` members, and `sssp` where it runs kernel 3
// (tiers/in_core.hpp is the shortest); make_tier_entry turns it into an entry and register_tier adds it. The drivers find a run's
// tier by name (find_tier) and its operations by the tier (tier_ops).
#pragma once
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bfs/graph_search.hpp"
#include "engine/prepare.hpp"
#include "sssp/delta_stepping.hpp"
#include "engine/tier.hpp"
#include "generators/edge_stream.hpp"
#include "storage/graph_dir.hpp"

namespace strata {

// Kernel 1 of the tiers whose adjacency stays in the graph directory: the on-disk CSR built or reused, its
// O(N) arrays and edge cache loaded (engine/prepare.hpp's prepare_tiered); such a tier adds its search.
struct OnStorageKernel1 {
  template <class Id>
  static void prepare(PlacedGraph<Id>& pg, const GraphDir& dir, const PlacementSpec& spec, const Topology& topo,
                      const PhaseProgress& progress) {
    prepare_tiered(pg, dir, spec, topo, progress);
  }
};

template <class Id>
struct TierOps {
  void (*prepare_dir)(PlacedGraph<Id>&, const GraphDir&, const PlacementSpec&, const Topology&, const PhaseProgress&);
  // Null where the tier needs a graph directory (on storage).
  void (*prepare_generated)(PlacedGraph<Id>&, const GeneratedEdges&, const PlacementSpec&, const Topology&,
                            const PhaseProgress&);
  std::unique_ptr<GraphSearch<Id>> (*search)(const PlacedGraph<Id>&, const PlacementSpec&, const BfsOptions&);
  // Kernel 3 over the prepared weighted graph, with bucket width delta; null where the tier has none (a tier
  // without an `sssp` member) and for 64-bit ids.
  std::unique_ptr<ShortestPaths<Id>> (*sssp)(const PlacedGraph<Id>&, const PlacementSpec&, float delta);
};

struct TierEntry {
  const Tier* tier;
  TierOps<uint32_t> ops32;
  TierOps<uint64_t> ops64;
};

template <class T, class Id>
TierOps<Id> make_tier_ops() {
  TierOps<Id> ops{};
  ops.prepare_dir = [](PlacedGraph<Id>& pg, const GraphDir& dir, const PlacementSpec& spec, const Topology& topo,
                       const PhaseProgress& progress) { T::template prepare<Id>(pg, dir, spec, topo, progress); };
  if constexpr (!T::kTier.on_storage)
    ops.prepare_generated = [](PlacedGraph<Id>& pg, const GeneratedEdges& source, const PlacementSpec& spec,
                               const Topology& topo, const PhaseProgress& progress) {
      T::template prepare<Id>(pg, source, spec, topo, progress);
    };
  ops.search = [](const PlacedGraph<Id>& pg, const PlacementSpec& spec, const BfsOptions& bfs) {
    return T::template search<Id>(pg, spec, bfs);
  };
  if constexpr (sizeof(Id) == 4 && requires(const PlacedGraph<Id>& pg, const PlacementSpec& spec) {
                  T::template sssp<Id>(pg, spec, 1.0f);
                })
    ops.sssp = [](const PlacedGraph<Id>& pg, const PlacementSpec& spec, float delta) {
      return T::template sssp<Id>(pg, spec, delta);
    };
  return ops;
}

template <class T>
TierEntry make_tier_entry() {
  return {&T::kTier, make_tier_ops<T, uint32_t>(), make_tier_ops<T, uint64_t>()};
}

// Adds a tier (refused if its name is taken); the built-ins are registered first.
void register_tier(const TierEntry& entry);
// Every registered tier, the built-ins first.
std::vector<const Tier*> registered_tiers();
// The tier named `name`, or nullptr.
const Tier* find_tier(const std::string& name);
// "in-core, out-of-core or dax" (last_separator " or "), or "in-core, out-of-core, dax" (", "): for messages.
std::string tier_names(const std::string& last_separator = " or ");

const TierEntry& tier_entry(const Tier& tier);
template <class Id>
const TierOps<Id>& tier_ops(const Tier& tier) {
  if constexpr (std::is_same_v<Id, uint32_t>) return tier_entry(tier).ops32;
  else return tier_entry(tier).ops64;
}

}  // namespace strata
