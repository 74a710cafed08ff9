// Kernel 3 in the Graph500 loop: delta-stepping from each root (sssp/delta_stepping.hpp) over the tier's
// weighted source, timed alone by time_searches like kernel 2; each result (the search's words by internal id,
// read through the graph's labels) summed up in the numbers SSSP.md's vectors give (DistanceFacts: anyone can
// compare the bits with the reference's) and validated at once against kernel 1's weighted CSR
// (validate/sssp_validator.hpp, rules R1-R8) -- in DRAM in-core; on storage a batch of searches a pass over its
// files.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "core/units.hpp"
#include "driver/kernel_loop.hpp"
#include "driver/run_result.hpp"
#include "driver/validation_plan.hpp"
#include "engine/memory.hpp"
#include "engine/prepare.hpp"
#include "sssp/delta_stepping.hpp"
#include "sssp/distance_facts.hpp"
#include "tiers/tier_ops.hpp"
#include "validate/sssp_validator.hpp"

namespace strata {

// The facts of one result, by input label: its words' distances laid out by label in `by_label` (-1.0f
// unreached), then summed in one sequential pass, so the sum's rounding is the reference's order.
template <class Id>
DistanceFacts distance_facts(const Csr<Id>& g, std::span<const uint64_t> words, float* by_label) {
#pragma omp parallel for schedule(static)
  for (uint64_t i = 0; i < g.n; ++i)
    by_label[g.to_input[i]] = words[i] == distance_word::kUnreached<Id> ? -1.0f : distance_word::dist_of(words[i]);
  DistanceFacts f;
  f.add(by_label, g.n);
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
  int& passes;  // kernel 3's passes over its files
  SsspStoredBatch<Id> batch;
  bool lend_cache;
  std::vector<size_t> waiting{};
  double busy = 0;

  SsspStoredValidation(PlacedGraph<Id>& g, RunResult& r, const RunHooks& h, int& p, const CsrPassPlan& plan)
      : pg(g), result(r), hooks(h), passes(p), batch(g.g, g.kernel3_files(), g.report.csr_dir, plan.slots),
        lend_cache(plan.lend_cache) {}

  void add(size_t index, const SsspWords<Id>& s, std::span<int32_t> scratch, bool more) {
    const double t0 = now();
    Verdict v;
    if (!batch.add(s, scratch, v)) {
      result.record_verdict(kSsspKernel, index, v, now() - t0);
    } else {
      busy += now() - t0;
      waiting.push_back(index);
    }
    if (!waiting.empty() && (batch.full() || !more)) check(more);
  }
  void check(bool more) {
    lent_pass(pg, true, lend_cache, more, waiting, busy, result, hooks, [&] {
      ++passes;
      return batch.check();
    }, [&](size_t i, const Verdict& v, double seconds) { result.record_verdict(kSsspKernel, i, v, seconds); });
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
  NumaArray<float>& by_label;  // n floats: the facts' distances by input label, then the validator's levels
  std::optional<SsspStoredValidation<Id>>& stored;  // on storage, batched; else each at once
  int& passes;  // on storage: passes over kernel 3's files
  SsspStats stats{};

  void search(size_t i) { stats = sssp.search(internal[i]); }
  uint64_t nedge(size_t) const { return sssp.reached_raw_degree_sum() / 2; }
  void searched(size_t i, bool more) {
    if (hooks.plant.in(kSsspKernel, i)) plant_wrong_distance(roots[i]);
    SearchRecord& record = result.run(kSsspKernel).searches[i];
    record.io = stats.io;
    record.facts = search_facts(distance_facts(pg.g, sssp.words(), by_label.data()), stats, *pg.report.tier);
    if (cfg.bfs.trace && hooks.trace) hooks.trace(trace_lines(stats, i, roots[i], record.time));
    if (!cfg.validate) return;
    const SsspWords<Id> check{roots[i], internal[i], sssp.words().data(), record.nedge};
    const std::span<int32_t> level{reinterpret_cast<int32_t*>(by_label.data()), by_label.size()};
    if (stored) return stored->add(i, check, level, more);
    const double v0 = now();
    if (pg.report.tier->on_storage) ++passes;
    const Verdict v = pg.report.tier->on_storage ? check_sssp_stored<Id>(pg.g, pg.kernel3_files(), check, level)
                                                 : check_sssp<Id>(pg.g, pg.weights.data(), check, level);
    result.record_verdict(kSsspKernel, i, v, now() - v0);
  }
  // A planted error, after timing (--debug-corrupt-sssp): the first reached vertex other than the root (by
  // internal id) a little farther than its parent makes it; rule R5/R6 must refuse it.
  void plant_wrong_distance(uint64_t root) {
    const std::span<uint64_t> word = sssp.words_to_plant();
    for (uint64_t i = 0; i < pg.g.n; ++i)
      if (word[i] != distance_word::kUnreached<Id> && pg.g.to_input[i] != root) {
        const float d = distance_word::dist_of(word[i]);
        word[i] = distance_word::pack(std::nextafter(d, 2.0f * d + 1.0f), distance_word::parent_of<Id>(word[i]));
        return;
      }
  }
};

// Kernel 3's validation on storage as JSON keys (one process, and the ranks'): at most `batch` searches a pass,
// its passes, and whether the edge cache was lent to them.
inline SearchFacts sssp_validation_keys(int batch, int passes, bool lent) {
  SearchFacts keys;
  keys.add("sssp_validate_batch", uint64_t(batch));
  keys.add("sssp_validation_passes", uint64_t(passes));
  keys.add("sssp_validation_lent_cache", lent);
  return keys;
}

// Kernel 3's own validation in one process, as the front end tells it: in DRAM against the certified CSR's
// weights; on storage over its weighted on-disk CSR, its passes.
inline KernelValidation sssp_validation(bool on_storage, int batch, int passes, bool lent) {
  if (!on_storage) return {"by rules R1-R7 and a parent-cycle check, against the CSR's weights, certified with it"};
  return {"by rules R1-R7 and a parent-cycle check over kernel 1's weighted on-disk CSR",
          count_of(uint64_t(passes), "pass") + " of up to " + count_of(uint64_t(batch), "search") +
              (lent ? ", the edge cache lent to them" : ""),
          sssp_validation_keys(batch, passes, lent)};
}

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
    NumaArray<float> by_label(pg.g.n);
    std::optional<SsspStoredValidation<Id>> stored;
    const bool on_storage = pg.report.tier->on_storage;
    int passes = 0, batch = 1;
    bool lent = false;
    if (cfg.validate && on_storage) {
      const CsrPassPlan plan = csr_pass_plan<Id, SsspStoredBatch<Id>>(
          pg, cfg.validate_batch, int(roots.size()), cfg.place.dram_budget > 0, pg.weighted_cache.entries_bytes());
      if (plan.slots > 1) stored.emplace(pg, result, hooks, passes, plan);
      batch = std::max(plan.slots, 1);
      lent = plan.slots > 1 && plan.lend_cache;
    }
    SsspKernel<Id> kernel{cfg, hooks, result, pg, sssp, roots, internal, by_label, stored, passes};
    time_searches(kernel, roots, result.run(kSsspKernel), hooks);
    if (cfg.validate) result.run(kSsspKernel).validation = sssp_validation(on_storage, batch, passes, lent);
  }
}

// Kernel 3 as the one-process loop runs it (kernels.hpp): its lists readied (in DRAM, by weight; on storage its
// cache loaded), its search made over them, its searches timed and validated, and what it held.
struct SsspSearches {
  static constexpr const KernelInfo& kInfo = kSsspKernel;
  // Refused before any work: a tier without kernel 3, and validation against the tuples (its rules need the
  // weighted CSR).
  static void check(const RunConfig& cfg) {
    if (!tier_ops<uint32_t>(*cfg.place.tier).sssp)
      throw Error(fmt::format("kernel 3 (--kernel {}) does not run on --placement {}", cfg.kernels.name(),
                              cfg.place.tier->name));
    if (cfg.validate_against == ValidationMethod::kTuples)
      throw Error("kernel 3 is validated against kernel 1's weighted CSR (in-core: certified against the tuples); "
                  "--validate-against tuples applies to --kernel bfs alone");
  }
  template <class Id, class Source>
  static KernelFootprint run(const KernelContext<Id, Source>& c) {
    ready_kernel3_lists(c.pg, [&](const std::string& phase, uint64_t d, uint64_t t) { c.hooks.report(phase, d, t); });
    const std::unique_ptr<ShortestPaths<Id>> sssp = make_sssp(c.pg, c.cfg);
    run_sssp_searches(c.r, c.cfg, c.pg, *sssp, c.roots, c.internal, c.hooks);
    const uint64_t n = c.pg.g.n;  // its state, and beside it the distances by label and validation's bits
    return {sssp->state_bytes() + sssp_beside_state_bytes(n), sssp_search_bytes(n), sssp->io_buffer_bytes(), false};
  }
};

}  // namespace strata
