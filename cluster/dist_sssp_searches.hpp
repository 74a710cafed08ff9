// Kernel 3 under mpirun, registered in run_mpi.cpp's DistKernels: the rank's delta-stepping over its tier's
// weighted source, its result distances and parents by local vertex, checked by DistValidator's rules against the
// weighted tuples.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "cluster/dist_searches.hpp"
#include "cluster/dist_sssp.hpp"
#include "cluster/dist_validator.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "driver/run_result.hpp"
#include "driver/sssp_searches.hpp"
#include "sssp/delta_stepping.hpp"
#include "tiers/builtin.hpp"

namespace strata {

// Kernel 3's result on this rank: each local vertex's distance and parent (an input label).
template <class Id>
struct DistPaths {
  static constexpr const KernelInfo& kInfo = kSsspKernel;
  std::vector<float> dist;
  std::vector<Id> parent;

  explicit DistPaths(uint64_t local) : dist(local), parent(local) {}
  template <class Search>
  SsspStats search(Search& s, Id root) { return s.search(root, dist.data(), parent.data()); }
  // A wrong distance planted (--debug-corrupt-sssp): on the last rank holding a reached vertex other than the
  // root, the first such is a little farther than its parent makes it; R5 or R6 must refuse it.
  void plant(const DistGraph<Id>& g, uint64_t root, const Comm& comm) {
    uint64_t at = UINT64_MAX;
    for (uint64_t i = 0; i < g.local_count() && at == UINT64_MAX; ++i)
      if (parent[i] != kNoVertex<Id> && g.rows.to_input[i] != root) at = i;
    const uint64_t planter = comm.max(at == UINT64_MAX ? 0 : uint64_t(comm.rank()) + 1);
    if (planter == uint64_t(comm.rank()) + 1) dist[at] = std::nextafter(dist[at], 2.0f * dist[at] + 1.0f);
  }
  SearchFacts facts(const DistGraph<Id>& g, const SsspStats& stats, const Tier& tier, const Comm& comm) const {
    return search_facts(distance_facts_across(g, dist.data(), comm), stats, tier);
  }
  std::string trace(const SsspStats& stats, size_t i, uint64_t root, double seconds, const Tier&) const {
    return trace_lines(stats, i, root, seconds);
  }
  void validate(DistValidator<Id>& v, const DistGraph<Id>& g, uint64_t root, uint64_t nedge) const {
    v.add_sssp(g, dist.data(), parent.data(), root, nedge);
  }
};

// Over this rank's weighted lists: in DRAM, or (both kernels: once kernel 2's are given back) the weighted rows
// on its storage; validated against the weighted tuples.
struct DistSsspSearches {
  static constexpr const KernelInfo& kInfo = kSsspKernel;
  template <class Id>
  static void run(DistContext<Id>& c) {
    if constexpr (sizeof(Id) != 4) {
      throw Error("internal error: kernel 3 needs 32-bit vertex ids");  // check_run_config refuses it before
    } else {
      const Adjacency<Id, NodeWeight<Id>> at = c.lists.weighted();
      with_builtin_tier(*c.cfg.place.tier, [&](auto tier) {
        return decltype(tier)::template with_weighted_lists<Id>(at, c.cfg.place, c.cfg.delta, [&](auto source) {
          DistDeltaStepping<Id, decltype(source)> sssp(c.g, c.comm, at.g, std::move(source), c.cfg.delta);
          c.lists.source_buffers(sssp.io_buffer_bytes());
          const int passes = c.template run<DistPaths<Id>>(*c.wshare, sssp,
                                                           sssp.state_bytes() + c.g.local_count() * (sizeof(float) + sizeof(Id)));
          if (c.cfg.validate && c.cfg.place.tier->on_storage)  // its passes among the ranks' passes over the tuples
            c.r.run(kInfo).validation.json = sssp_validation_keys(std::min(c.slots, int(c.roots.size())), passes, false);
          return 0;
        });
      });
    }
  }
};

}  // namespace strata
