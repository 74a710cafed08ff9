// What each tier does, by registration: its kernel 1 (from the run's tuples: a graph directory's, or the
// generator's where it needs no directory) and its neighbour sources, for 32- and 64-bit ids. A tier is a type
// with a `static constexpr Tier kTier`, a template `prepare`, and a source for each kind of lists a kernel reads:
// `with_id_lists` (kernel 2's) and, where the tier runs kernel 3, `with_weighted_lists`: given where the lists are
// (engine/adjacency.hpp), it calls fn with its source over them (tiers/in_core.hpp is the shortest). One process wraps the source in its search here; an MPI rank wraps it
// in the rank's search (cluster/), so a tier is written once for both backends. make_tier_entry turns a tier
// into an entry and register_tier adds it; the drivers find a run's tier by name (find_tier) and its
// operations by the tier (tier_ops); tiers/builtin.hpp lists the built-in ones.
#pragma once
#include <fmt/format.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bfs/graph_search.hpp"
#include "bfs/hybrid_bfs.hpp"
#include "core/error.hpp"
#include "engine/adjacency.hpp"
#include "engine/prepare.hpp"
#include "engine/tier.hpp"
#include "sssp/delta_stepping.hpp"
#include "generators/edge_stream.hpp"
#include "storage/graph_dir.hpp"
#include "storage/tuple_source.hpp"

namespace strata {

// Kernel 1 of the tiers whose adjacency stays in the graph directory: the on-disk CSR built or reused, its
// O(N) arrays and edge cache loaded (engine/prepare.hpp's prepare_tiered); such a tier adds its search. The
// drivers give such a tier a directory's tuples only (Tier::on_storage).
struct OnStorageKernel1 {
  template <class Id>
  static void prepare(PlacedGraph<Id>& pg, const TupleSource& source, const PlacementSpec& spec, const Topology& topo,
                      const PhaseProgress& progress) {
    if (!source.dir()) throw Error(fmt::format("internal error: --placement {} given no graph directory", spec.tier->name));
    prepare_tiered(pg, *source.dir(), spec, topo, progress);
  }
};

template <class Id>
struct TierOps {
  // Kernel 1 from the run's tuples (a tier on storage needs them from a graph directory).
  void (*prepare)(PlacedGraph<Id>&, const TupleSource&, const PlacementSpec&, const Topology&, const PhaseProgress&);
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

// Where one process's prepared graph has its lists: kernel 2's, and kernel 3's (Entry = NodeWeight<Id>).
template <class Id, class Entry = Id>
Adjacency<Id, Entry> adjacency_of(const PlacedGraph<Id>& pg) {
  constexpr bool kWeighted = !std::is_same_v<Entry, Id>;
  Adjacency<Id, Entry> at{pg.g, &pg.partitioning};
  if constexpr (kWeighted) {
    at.weights = pg.weights.data();
    at.by_weight = pg.by_weight;
    at.cache = &pg.weighted_cache;
    if (pg.files) at.files = &pg.kernel3_files();
  } else {
    at.cache = &pg.cache;
    if (pg.files) at.files = &*pg.files;
  }
  at.mapped = pg.template mapped_lists<Entry>();
  return at;
}

// One process's searches over tier T's sources.
template <class T, class Id>
std::unique_ptr<GraphSearch<Id>> tier_search(const Adjacency<Id>& at, const PlacementSpec& spec, const BfsOptions& bfs) {
  return T::template with_id_lists<Id>(at, spec, [&](auto source) -> std::unique_ptr<GraphSearch<Id>> {
    return std::make_unique<HybridBfs<Id, decltype(source)>>(at.g, std::move(source), *at.parts, bfs);
  });
}
template <class T, class Id>
std::unique_ptr<ShortestPaths<Id>> tier_sssp(const Adjacency<Id, NodeWeight<Id>>& at, const PlacementSpec& spec,
                                             float delta) {
  return T::template with_weighted_lists<Id>(at, spec, delta, [&](auto source) -> std::unique_ptr<ShortestPaths<Id>> {
    return std::make_unique<DeltaStepping<Id, decltype(source)>>(at.g, std::move(source), delta);
  });
}

// Whether tier T has a source over the weighted lists (a tier may serve the id lists alone: kernel 2).
struct AnySource {
  template <class Source>
  int operator()(Source&&) const { return 0; }
};
template <class T, class Id>
constexpr bool kHasWeightedLists = requires(const Adjacency<Id, NodeWeight<Id>>& at, const PlacementSpec& spec) {
  T::template with_weighted_lists<Id>(at, spec, 1.0f, AnySource{});
};

template <class T, class Id>
TierOps<Id> make_tier_ops() {
  TierOps<Id> ops{};
  ops.prepare = [](PlacedGraph<Id>& pg, const TupleSource& source, const PlacementSpec& spec, const Topology& topo,
                   const PhaseProgress& progress) { T::template prepare<Id>(pg, source, spec, topo, progress); };
  ops.search = [](const PlacedGraph<Id>& pg, const PlacementSpec& spec, const BfsOptions& bfs) {
    return tier_search<T>(adjacency_of(pg), spec, bfs);
  };
  if constexpr (sizeof(Id) == 4 && kHasWeightedLists<T, Id>)
    ops.sssp = [](const PlacedGraph<Id>& pg, const PlacementSpec& spec, float delta) {
      return tier_sssp<T>(adjacency_of<Id, NodeWeight<Id>>(pg), spec, delta);
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
