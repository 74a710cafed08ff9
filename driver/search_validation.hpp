// Validation as the searches end, by method: against the tuples (packed batches, or each in place), against
// the on-disk CSR (spilled batches, one sequential pass each), or against kernel 1's CSR in DRAM (certified
// once); each records its verdicts and times in the RunResult.
#pragma once
#include <fmt/format.h>
#include <omp.h>

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/timer.hpp"
#include "driver/run_result.hpp"
#include "driver/validation_plan.hpp"
#include "engine/prepare.hpp"
#include "validate/csr_pass_validator.hpp"
#include "validate/csr_validator.hpp"
#include "validate/validator.hpp"

namespace strata {

// Validation against the tuples as the searches end: each packed into a batch (one pass checks all of it), or,
// with a batch of one, checked in place at once. A tree deeper than a packed level holds is checked in place.
template <class Id, class Source>
struct TupleValidation {
  const Source& source;
  GraphSearch<Id>& bfs;
  RunResult& result;
  const RunHooks& hooks;
  std::optional<BatchValidator<Id>> batch;  // absent: in place
  std::vector<size_t> waiting;              // the searches in the batch, by index
  double busy = 0;                          // seconds spent on the batch so far

  TupleValidation(const Source& s, GraphSearch<Id>& b, RunResult& r, const RunHooks& h, uint64_t vertices, int slots)
      : source(s), bfs(b), result(r), hooks(h) {
    if (slots > 1) batch.emplace(vertices, slots);
  }
  void add(size_t index, const SearchToCheck<Id>& s) {
    const double t0 = now();
    if (batch && batch->add(s, bfs.idle_memory())) {
      busy += now() - t0;
      waiting.push_back(index);
      if (batch->full()) check();
      return;
    }
    const Verdict v = validate_search_in_place(source, s, bfs.idle_memory(), progress(fmt::format("search {} in place", index)));
    ++result.validation.tuple_passes;
    record(index, v, now() - t0);
  }
  void check() {  // the pass over the tuples for the searches waiting
    if (waiting.empty()) return;
    const double t0 = now();
    check_pass(source, *batch, progress(fmt::format("searches {}-{} in one pass", waiting.front(), waiting.back())));
    ++result.validation.tuple_passes;
    const std::vector<Verdict> verdicts = batch->finish();
    const double each = (busy + now() - t0) / double(waiting.size());
    for (size_t j = 0; j < waiting.size(); ++j) record(waiting[j], verdicts[j], each);
    waiting.clear();
    busy = 0;
  }
  auto progress(std::string what) {  // a pass's progress, chunk by chunk, called from the OpenMP team
    return [this, what = std::move(what), done = std::make_shared<std::atomic<uint64_t>>(0)] {
      const uint64_t d = done->fetch_add(1, std::memory_order_relaxed) + 1;
      if (omp_get_thread_num() == 0) hooks.report("validation", d, source.chunk_count(), what);
    };
  }
  void record(size_t index, const Verdict& v, double seconds) { result.record_verdict(kBfsKernel, index, v, seconds); }
};

// Validation against the on-disk CSR as the searches end: each spilled, the batch checked in one sequential
// pass; the edge cache freed for the pass and reloaded after it when the plan lends it. A tree deeper than a
// level byte is checked in place against the tuples.
template <class Id, class Source>
struct CsrPassValidation {
  PlacedGraph<Id>& pg;
  const Source& source;
  GraphSearch<Id>& bfs;
  NumaArray<Id>& output;  // the searches' output parents: idle during a pass
  RunResult& result;
  const RunHooks& hooks;
  CsrPassValidator<Id> batch;
  bool lend_cache;
  std::vector<size_t> waiting;
  double busy = 0;

  CsrPassValidation(PlacedGraph<Id>& g, const Source& s, GraphSearch<Id>& b, NumaArray<Id>& out, RunResult& r,
                    const RunHooks& h, const CsrPassPlan& plan)
      : pg(g), source(s), bfs(b), output(out), result(r), hooks(h),
        batch(g.g, *g.files, g.report.csr_dir, plan.slots, b.idle_memory()), lend_cache(plan.lend_cache) {}

  // s: the search just timed, from internal vertex root; its output (s.parent, in `output`) is the levels'
  // scratch once checked against the internal parents.
  void add(size_t index, const SearchToCheck<Id>& s, Id root, bool more) {
    const double t0 = now();
    Verdict v;
    const std::span<int32_t> scratch{reinterpret_cast<int32_t*>(output.data()), output.bytes() / sizeof(int32_t)};
    const auto added = batch.add(s, bfs.internal_parents(), root, scratch, v);
    result.validation.csr_phases = batch.phases();
    switch (added) {
      case CsrPassValidator<Id>::Added::kAdded:
        busy += now() - t0;
        waiting.push_back(index);
        if (batch.full() || !more) check(more);
        return;
      case CsrPassValidator<Id>::Added::kChecked:
        result.record_verdict(kBfsKernel, index, v, now() - t0);
        break;
      case CsrPassValidator<Id>::Added::kTooDeep: {
        auto on_chunk = [&, done = std::make_shared<std::atomic<uint64_t>>(0)] {
          const uint64_t d = done->fetch_add(1, std::memory_order_relaxed) + 1;
          if (omp_get_thread_num() == 0)
            hooks.report("validation", d, source.chunk_count(), fmt::format("search {} in place (a deep tree)", index));
        };
        v = validate_search_in_place(source, s, bfs.idle_memory(), on_chunk);
        ++result.validation.tuple_passes;
        result.record_verdict(kBfsKernel, index, v, now() - t0);
        break;
      }
    }
    if (!more) check(false);
  }
  void check(bool more) {  // the pass for the searches waiting, the cache lent and given back if asked
    lent_pass(pg, false, lend_cache, more, waiting, busy, result, hooks, [&] {
      output.release(0, output.size());  // both parent arrays' pages, until the next search writes them
      bfs.release_idle_memory();
      const std::string what = fmt::format("searches {}-{} in one pass over the on-disk CSR", waiting.front(), waiting.back());
      std::vector<Verdict> verdicts = batch.check([&](uint64_t d, uint64_t t) { hooks.report("validation", d, t, what); });
      result.validation.csr_passes += batch.last_passes();
      result.validation.csr_phases = batch.phases();
      return verdicts;
    }, [&](size_t i, const Verdict& v, double seconds) { result.record_verdict(kBfsKernel, i, v, seconds); });
  }
};

// Validation against kernel 1's CSR (csr_validator.hpp): certified once, with kernel 3's weights when it has
// them, then each search checked in DRAM.
template <class Id, class Source>
std::optional<CsrValidator<Id>> certify_csr(RunResult& result, const Source& source, const PlacedGraph<Id>& pg,
                                            const RunHooks& hooks) {
  hooks.report("validation", 0, 1, "certifying kernel 1's graph against the tuples");
  const double t0 = now();
  try {
    std::optional<CsrValidator<Id>> v(std::in_place, pg.g, source, pg.weights.size() == 0 ? nullptr : pg.weights.data());
    result.validation.certificate_time = now() - t0;
    result.validation.tuple_passes = 1;
    return v;
  } catch (const Error& e) {
    result.failure = std::string("validation failed: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace strata
