// Kernel 3 in the Graph500 loop: delta-stepping from each root (sssp/delta_stepping.hpp) over the tier's
// weighted source, timed alone by time_searches like kernel 2; each result summed up in the numbers SSSP.md's
// vectors give (DistanceFacts: anyone can compare the bits with the reference's) and validated at once against
// kernel 1's weighted CSR (validate/sssp_validator.hpp, rules R1-R8) -- in DRAM in-core; on storage a batch of
// searches a pass over its files -- the search's idle state lent to the check.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "core/timer.hpp"
#include "driver/kernel_loop.hpp"
#include "driver/run_result.hpp"
#include "driver/validation_plan.hpp"
#include "engine/prepare.hpp"
#include "sssp/delta_stepping.hpp"
#include "tiers/tier_ops.hpp"
#include "validate/sssp_validator.hpp"

namespace strata {

// The facts of one result, by input label: a sequential pass, so the sum's rounding is the reference's order.
inline DistanceFacts distance_facts(const float* dist, uint64_t n) {
  DistanceFacts f;
  f.add(dist, n);
  return f;
}

// On storage, kernel 3's results checked a batch a pass (validate/sssp_validator.hpp's SsspStoredBatch, planned
// as kernel 2's pass against the on-disk CSR is), the edge cache lent to the pass and reloaded when the plan
// says so.
template <class Id>
struct SsspStoredValidation {
  PlacedGraph<Id>& pg;
  RunResult& result;
  const RunHooks& hooks;
  SsspStoredBatch<Id> batch;
  bool lend_cache;
  std::vector<size_t> waiting{};
  double busy = 0;

  SsspStoredValidation(PlacedGraph<Id>& g, RunResult& r, const RunHooks& h, const CsrPassPlan& plan)
      : pg(g), result(r), hooks(h), batch(g.g, g.kernel3_files(), g.report.csr_dir, plan.slots), lend_cache(plan.lend_cache) {}

  void add(size_t index, const SsspToCheck<Id>& s, std::span<int32_t> scratch, bool more) {
    const double t0 = now();
    Verdict v;
    if (!batch.add(s, scratch, v)) {
      result.record_sssp_verdict(index, v, now() - t0);
    } else {
      busy += now() - t0;
      waiting.push_back(index);
    }
    if (!waiting.empty() && (batch.full() || !more)) check(more);
  }
  void check(bool more) {
    lent_pass(pg, true, lend_cache, more, waiting, busy, result, hooks, [&] {
      ++result.validation.sssp_passes;
      return batch.check();
    }, [&](size_t i, const Verdict& v, double seconds) { result.record_sssp_verdict(i, v, seconds); });
  }
};

template <class Id>
struct SsspKernel {
  const RunConfig& cfg;
  const RunHooks& hooks;
  RunResult& result;
  const PlacedGraph<Id>& pg;
  ShortestPaths<Id>& sssp;
  const std::vector<uint64_t>& roots;
  const std::vector<Id>& internal;
  NumaArray<float>& dist;  // the search's output, in input labels
  NumaArray<Id>& parent;
  std::optional<SsspStoredValidation<Id>>& stored;  // on storage, batched; else each at once
  SsspStats stats{};

  void search(size_t i) { stats = sssp.search(internal[i], dist.data(), parent.data()); }
  uint64_t nedge(size_t) const { return sssp.reached_raw_degree_sum() / 2; }
  void searched(size_t i, bool more) {
    if (hooks.plant.corrupt_sssp == int(i)) plant_wrong_distance(roots[i]);
    result.sssp_facts.push_back(distance_facts(dist.data(), pg.g.n));
    result.sssp_stats.push_back(stats);
    if (cfg.bfs.trace && hooks.sssp_trace) hooks.sssp_trace(i, roots[i], stats, result.sssp_searches[i].time);
    if (!cfg.validate) return;
    const SsspToCheck<Id> check{roots[i], dist.data(), parent.data(), result.sssp_searches[i].nedge};
    if (stored) return stored->add(i, check, sssp.idle_memory(), more);
    const double v0 = now();
    if (pg.report.tier->on_storage) ++result.validation.sssp_passes;
    const Verdict v = pg.report.tier->on_storage ? check_sssp_stored<Id>(pg.g, pg.kernel3_files(), check, sssp.idle_memory())
                                                 : check_sssp<Id>(pg.g, pg.weights.data(), check, sssp.idle_memory());
    result.record_sssp_verdict(i, v, now() - v0);
  }
  // A planted error, after timing (--debug-corrupt-sssp): a reached vertex other than the root a little
  // farther than its parent makes it; rule R5/R6 must refuse it.
  void plant_wrong_distance(uint64_t root) {
    for (uint64_t v = 0; v < pg.g.n; ++v)
      if (parent[v] != kNoVertex<Id> && v != root) {
        dist[v] = std::nextafter(dist[v], 2.0f * dist[v] + 1.0f);
        return;
      }
  }
};

// Kernel 3's search over the prepared graph: its tier's.
template <class Id>
std::unique_ptr<ShortestPaths<Id>> make_sssp(const PlacedGraph<Id>& pg, const RunConfig& cfg) {
  const auto make = tier_ops<Id>(*pg.report.tier).sssp;
  if (!make) throw Error(fmt::format("kernel 3 does not run on --placement {}", pg.report.tier->name));
  return make(pg, cfg.place, cfg.delta);
}

// Kernel 3's searches from `roots` (input labels; `internal`, their ids), each validated as it ends: in DRAM
// at once, on storage in batches (one search a pass where no batch fits: the pass needs no scratch).
template <class Id>
void run_sssp_searches(RunResult& result, const RunConfig& cfg, PlacedGraph<Id>& pg, ShortestPaths<Id>& sssp,
                       const std::vector<uint64_t>& roots, const std::vector<Id>& internal, const RunHooks& hooks) {
  if constexpr (sizeof(Id) != 4) {
    throw Error("kernel 3 needs 32-bit vertex ids (SCALE 31 or less, no --debug-id-bytes 8)");
  } else {
    result.sssp_delta = cfg.delta;
    NumaArray<float> dist(pg.g.n);
    NumaArray<Id> parent(pg.g.n);
    std::optional<SsspStoredValidation<Id>> stored;
    if (cfg.validate && pg.report.tier->on_storage) {
      const CsrPassPlan plan = csr_pass_plan<Id, SsspStoredBatch<Id>>(
          pg, cfg.validate_batch, int(roots.size()), cfg.place.dram_budget > 0, pg.weighted_cache.entries_bytes());
      if (plan.slots > 1) stored.emplace(pg, result, hooks, plan);
      result.sssp_validate_batch = std::max(plan.slots, 1);
      result.validation.sssp_lent_cache = plan.slots > 1 && plan.lend_cache;
    }
    SsspKernel<Id> kernel{cfg, hooks, result, pg, sssp, roots, internal, dist, parent, stored};
    time_searches(kernel, roots, result.sssp_searches, hooks, "kernel 3");
  }
}

}  // namespace strata
