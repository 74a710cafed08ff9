// Kernel 2 in the Graph500 loop, one process: the tier's hybrid BFS (bfs/hybrid_bfs.hpp over its neighbour
// source), timed by time_searches, each result validated by the method the run chose -- against kernel 1's
// CSR in DRAM (certified once), against the on-disk CSR in spilled batches (on storage, where that takes fewer
// passes), or against the tuples in packed batches (search_validation.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/timer.hpp"
#include "driver/kernel_loop.hpp"
#include "driver/run_result.hpp"
#include "driver/search_validation.hpp"
#include "driver/validation_plan.hpp"
#include "engine/memory.hpp"
#include "engine/prepare.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

// The search for a prepared graph: its tier's (the hybrid kernel over the tier's neighbour source).
template <class Id>
std::unique_ptr<GraphSearch<Id>> make_bfs_search(const PlacedGraph<Id>& pg, const RunConfig& cfg) {
  return tier_ops<Id>(*pg.report.tier).search(pg, cfg.place, cfg.bfs);
}

// A planted error, after timing: proves the run catches it (--debug-corrupt-search).
template <class Id>
void plant_cycle(Id* parent, uint64_t n, uint64_t root) {
  for (uint64_t v = 0; v < n; ++v)
    if (parent[v] != kNoVertex<Id> && v != root) {
      parent[v] = Id(v);
      return;
    }
}

// A tiered run's validation method and, against the on-disk CSR, its plan. Left to choose (--validate-against
// auto), it takes the on-disk CSR only where that needs fewer passes than the tuples (a tight budget), since
// the tuples are the input itself.
template <class Id>
std::optional<CsrPassPlan> plan_tiered_validation(RunResult& result, const RunConfig& cfg, const PlacedGraph<Id>& pg,
                                                  int count) {
  const bool budget_given = cfg.place.dram_budget > 0;
  if (!cfg.validate || !pg.report.tier->on_storage || result.validation.method == ValidationMethod::kTuples) return {};
  auto passes = [&](int slots) { return slots > 0 ? (count + slots - 1) / slots : INT32_MAX; };
  if (result.validation.method == ValidationMethod::kAuto && cfg.validate_batch > 0) {
    result.validation.method = ValidationMethod::kTuples;  // a batch asked for: as many passes either way
  } else if (result.validation.method == ValidationMethod::kAuto) {
    const CsrPassPlan fit = csr_pass_plan(pg, 0, count, budget_given, pg.dram.edge_cache);
    const bool fewer = passes(fit.slots) < passes(validation_batch(pg, 0, count, budget_given));
    result.validation.method = fewer ? ValidationMethod::kCsr : ValidationMethod::kTuples;
  }
  if (result.validation.method != ValidationMethod::kCsr) return {};
  CsrPassPlan plan = csr_pass_plan(pg, cfg.validate_batch, count, budget_given, pg.dram.edge_cache);
  if (plan.slots == 0)
    throw Error("--validate-against csr cannot check even one search a pass against the on-disk CSR: it needs " +
                plan.why_not + " (use --validate-against tuples)");
  return plan;
}

// Kernel 2 for time_searches: the hybrid BFS into one output array, each search then planted with a fault
// if a test asks, traced, and validated by the method chosen -- against the certified CSR right away
// (in-core), against the on-disk CSR in spilled batches (tiered), or against the tuples in packed batches.
template <class Id, class Source>
struct BfsKernel {
  const RunConfig& cfg;
  const RunHooks& hooks;
  RunResult& result;
  PlacedGraph<Id>& pg;
  GraphSearch<Id>& bfs;
  const std::vector<uint64_t>& roots;
  const std::vector<Id>& internal;
  const std::optional<CsrValidator<Id>>& csr;
  NumaArray<Id>& parent;  // the search's output, in input labels
  TupleValidation<Id, Source>& tuples;
  std::optional<CsrPassValidation<Id, Source>>& on_disk;
  SearchStats stats{};

  void search(size_t i) { stats = bfs.search(internal[i], parent.data()); }
  uint64_t nedge(size_t) const { return bfs.reached_raw_degree_sum() / 2; }
  void searched(size_t i, bool more) {
    if (hooks.plant.in(kBfsKernel, i)) plant_cycle(parent.data(), pg.g.n, roots[i]);
    if (cfg.bfs.trace && hooks.trace) hooks.trace(trace_lines(stats, i, roots[i], *pg.report.tier));
    SearchRecord& record = result.run(kBfsKernel).searches[i];
    record.io = stats.io;
    record.facts = search_facts(stats, *pg.report.tier, false);
    const SearchToCheck<Id> check{roots[i], parent.data(), record.nedge};
    if (csr) {
      const double v0 = now();
      const Verdict v = csr->check(check, bfs.idle_memory());
      tuples.record(i, v, now() - v0);
    } else if (on_disk) {
      on_disk->add(i, check, internal[i], more);
    } else if (cfg.validate) {
      tuples.add(i, check);
      if (!more) tuples.check();
    }
  }
};

// Kernel 2 and its validation: the validation chosen and set up, then the timing loop. csr: the certified
// in-core CSR when validating against it.
template <class Id, class Source>
void run_bfs_searches(RunResult& result, const RunConfig& cfg, const Source& source, PlacedGraph<Id>& pg,
                  GraphSearch<Id>& bfs, const std::vector<uint64_t>& roots, const std::vector<Id>& internal,
                  const std::optional<CsrValidator<Id>>& csr, const RunHooks& hooks) {
  const int count = int(roots.size());
  const std::optional<CsrPassPlan> plan = plan_tiered_validation(result, cfg, pg, count);
  result.validate_batch = !cfg.validate || csr ? 1
                          : plan               ? plan->slots
                                               : validation_batch(pg, cfg.validate_batch, count, cfg.place.dram_budget > 0);
  if (plan) {
    result.validation.lent_cache = plan->lend_cache;
    result.validation.spill_bytes = plan->disk;
    pg.dram.validation_batch = plan->dram;
  }
  NumaArray<Id> parent(pg.g.n);
  TupleValidation<Id, Source> tuples(source, bfs, result, hooks, pg.g.n,
                                     cfg.validate && !csr && !plan ? result.validate_batch : 1);
  std::optional<CsrPassValidation<Id, Source>> on_disk;
  if (plan) on_disk.emplace(pg, source, bfs, parent, result, hooks, *plan);
  BfsKernel<Id, Source> kernel{cfg, hooks, result, pg, bfs, roots, internal, csr, parent, tuples, on_disk};
  time_searches(kernel, roots, result.run(kBfsKernel), hooks);
}

// Whether kernel 2's searches are checked against the on-disk CSR (spilled batches), or against the tuples in
// packed batches; otherwise each in place as it ends.
inline bool validated_on_disk(const RunResult& r, const Tier& tier) {
  return tier.on_storage && r.validation.method == ValidationMethod::kCsr;
}
inline bool validated_packed(const RunResult& r) {
  return r.validate && r.validation.method == ValidationMethod::kTuples && r.validate_batch > 1;
}

// Kernel 2 as the one-process loop runs it (kernels.hpp): its search made over the prepared graph, its searches
// timed and validated, and what it held (its pages go back when it returns, before the next kernel's).
struct BfsSearches {
  static constexpr const KernelInfo& kInfo = kBfsKernel;
  static void check(const RunConfig&) {}
  template <class Id, class Source>
  static KernelFootprint run(const KernelContext<Id, Source>& c) {
    const std::unique_ptr<GraphSearch<Id>> bfs = make_bfs_search(c.pg, c.cfg);
    run_bfs_searches(c.r, c.cfg, c.source, c.pg, *bfs, c.roots, c.internal, c.csr, c.hooks);
    // Its search's arrays and output, and a bitmap where each search is checked in place.
    const uint64_t n = c.pg.g.n;
    const bool in_place = c.r.validate && !validated_packed(c.r) && !validated_on_disk(c.r, *c.pg.report.tier);
    return {bfs->state_bytes() + n * sizeof(Id) + (in_place ? (n + 63) / 64 * sizeof(uint64_t) : 0),
            search_state_bytes(n, sizeof(Id), 1), bfs->io_buffer_bytes(), bfs->registered_buffers()};
  }
};

}  // namespace strata
