// Kernel 2 under mpirun, registered in run_mpi.cpp's DistKernels: the rank's BFS over its tier's neighbour source
// (tiers/, as for one process), its result a parent array by local vertex, checked by DistValidator's rules.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "bfs/graph_search.hpp"
#include "cluster/comm.hpp"
#include "cluster/dist_bfs.hpp"
#include "cluster/dist_graph.hpp"
#include "cluster/dist_searches.hpp"
#include "cluster/dist_validator.hpp"
#include "core/ids.hpp"
#include "driver/run_result.hpp"
#include "tiers/builtin.hpp"

namespace strata {

// Kernel 2's result on this rank: each local vertex's parent, as an input label.
template <class Id>
struct DistTree {
  static constexpr const KernelInfo& kInfo = kBfsKernel;
  std::vector<Id> parent;

  explicit DistTree(uint64_t local) : parent(local) {}
  template <class Search>
  SearchStats search(Search& s, Id root) { return s.search(root, parent.data()); }
  // A cycle planted (--debug-corrupt-search): the last rank with a reached vertex other than the root makes it its
  // own parent.
  void plant(const DistGraph<Id>& g, uint64_t root, const Comm& comm) {
    uint64_t at = UINT64_MAX;
    for (uint64_t v = g.lo; v < g.hi && at == UINT64_MAX; ++v)
      if (parent[v - g.lo] != kNoVertex<Id> && g.label(v) != root) at = v;
    const uint64_t planter = comm.max(at == UINT64_MAX ? 0 : uint64_t(comm.rank()) + 1);
    if (planter == uint64_t(comm.rank()) + 1) parent[at - g.lo] = g.label(at);
  }
  SearchFacts facts(const DistGraph<Id>&, const SearchStats& stats, const Tier& tier, const Comm&) const {
    return search_facts(stats, tier, true);
  }
  std::string trace(const SearchStats& stats, size_t i, uint64_t root, double, const Tier& tier) const {
    return trace_lines(stats, i, root, tier);
  }
  void validate(DistValidator<Id>& v, const DistGraph<Id>& g, uint64_t root, uint64_t nedge) const {
    v.add(g, parent.data(), root, nedge);
  }
};

struct DistBfsSearches {
  static constexpr const KernelInfo& kInfo = kBfsKernel;
  template <class Id>
  static void run(DistContext<Id>& c) {
    const Adjacency<Id> at = c.lists.ids();
    with_builtin_tier(*c.cfg.place.tier, [&](auto tier) {
      return decltype(tier)::template with_id_lists<Id>(at, c.cfg.place, [&](auto source) {
        DistBfs<Id, decltype(source)> bfs(c.g, c.comm, c.cfg.bfs, at.g, std::move(source));
        c.template run<DistTree<Id>>(c.share, bfs, bfs.state_bytes() + c.g.local_count() * sizeof(Id));
        return 0;
      });
    });
  }
};

}  // namespace strata
