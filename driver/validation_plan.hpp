// How many searches one validation pass checks, by the method chosen: against the tuples (a packed batch in
// the memory kernel 1's peak or the budget leaves) or against the on-disk CSR (its rows, buffers and spill in
// the budget's slack and the disk's free space, the edge cache lent where that saves passes).
#pragma once
#include <errno.h>
#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "core/units.hpp"
#include "driver/run_result.hpp"
#include "engine/memory.hpp"
#include "engine/prepare.hpp"
#include "storage/file.hpp"
#include "validate/csr_pass_validator.hpp"
#include "validate/sssp_validator.hpp"
#include "validate/validator.hpp"

namespace strata {

// A tiered run's --validate-batch against the tuples refused where its packed batch cannot fit in what is
// available now: before kernel 0 (driver/graph500.cpp) and again once the graph is loaded.
template <class Id>
void check_packed_batch(uint64_t n, int slots) {
  const uint64_t need = slots > 1 ? BatchValidator<Id>::batch_bytes(n, slots) : 0, have = available_memory_bytes();
  if (need > have)
    throw Error(fmt::format("--validate-batch {} needs {} for its packed batch against the tuples; {} "
                            "(lower it, or add --validate-against csr to check it against the on-disk CSR)",
                            slots, human_bytes(double(need)), available_words(have)));
}

// How many searches one pass over the tuples checks (a packed batch; 1: each in place, adding only a bitmap).
// In-core, validation uses what kernel 1's peak already proved available -- the pre-dedup adjacency that
// deduplication gave back -- so a run's peak is its construction's. Tiered, it uses the budget's slack (what
// the edge cache and I/O buffers leave of an explicit --dram-budget), or without one half of what is free
// once the graph is loaded, as the default budget leaves it. --validate-batch trades memory for passes.
template <class Id>
int validation_batch(const PlacedGraph<Id>& pg, int requested, int roots, bool budget_given) {
  const Csr<Id>& g = pg.g;
  if (requested > 0) {
    const int slots = std::min(requested, roots);
    if (pg.report.tier->on_storage) check_packed_batch<Id>(g.n, slots);  // in-core runs were checked before kernel 1
    return slots;
  }
  if (pg.report.tier->on_storage) {
    const uint64_t slack = pg.dram.budget - std::min(pg.dram.budget, pg.dram.edge_cache + pg.dram.io_buffers);
    const uint64_t room = budget_given ? std::min(slack, available_memory_bytes()) : available_memory_bytes() / 2;
    return validation_slots_within(g.n, sizeof(Id), room, roots);
  }
  uint64_t raw_entries = 0;
#pragma omp parallel for reduction(+ : raw_entries)
  for (uint64_t v = 0; v < g.n; ++v) raw_entries += g.raw_degree(v);
  return validation_batch_within_build_peak(g.n, sizeof(Id), raw_entries, g.bytes(), roots);
}

// How a tiered run checks its searches against the on-disk CSR (validate/csr_pass_validator.hpp): searches
// a pass, and whether the pass borrows the edge cache's DRAM (reloaded after it, before the next search). The
// pass always has the search's two parent arrays (internal and output), idle while it runs.
struct CsrPassPlan {
  int slots = 0;  // 0: it does not fit
  bool lend_cache = false;
  uint64_t dram = 0, disk = 0;
  std::string why_not;  // slots == 0: what is short
};

// The largest batch whose rows and buffers fit `room` and whose spill fits `disk_free`, at most `roots`. V: the
// pass validator (kernel 2's CsrPassValidator, kernel 3's SsspStoredBatch); held: the vertices its rows and
// spill hold (V::pass_vertices).
template <class V>
int csr_pass_slots(uint64_t n, uint64_t held, uint64_t entries, uint64_t room, uint64_t disk_free, int roots) {
  int slots = 0;
  while (slots < std::min(roots, V::kMaxSlots) &&
         V::rows_bytes(held, slots + 1) + V::buffer_bytes(n, entries, slots + 1) <= room &&
         V::spill_bytes(n, held, slots + 1) <= disk_free)
    ++slots;
  return slots;
}

// What is short where not one search's batch fits a pass against the on-disk CSR in `dir`: its scratch space
// (unwritable: the errno of the access check), or its DRAM (`lent`: with the edge cache lent).
template <class V>
std::string csr_pass_shortfall(uint64_t n, uint64_t held, uint64_t entries, uint64_t lent, uint64_t disk, int unwritable,
                               const std::string& dir) {
  if (unwritable) return errno_message(fmt::format("scratch space in {}, which cannot be written", dir), unwritable);
  if (V::spill_bytes(n, held, 1) > disk)
    return fmt::format("{} of scratch space in {} for one search, {} free", human_bytes(double(V::spill_bytes(n, held, 1))),
                       dir, human_bytes(double(disk)));
  return fmt::format("{} of DRAM for one search's batch, {} with the edge cache lent",
                     human_bytes(double(V::rows_bytes(held, 1) + V::buffer_bytes(n, entries, 1))), human_bytes(double(lent)));
}

// The plan: what the budget's slack (as validation_batch reckons it) and the idle parent arrays hold, or with
// the cache lent when that saves time (a reload reads the adjacency like a pass, with little to compute: half
// a pass); `requested` (--validate-batch) is taken as asked or refused with the figures. cache: the edge
// cache's bytes the pass may borrow (its kernel's).
template <class Id, class V = CsrPassValidator<Id>>
CsrPassPlan csr_pass_plan(const PlacedGraph<Id>& pg, int requested, int roots, bool budget_given, uint64_t cache) {
  const uint64_t n = pg.g.n, held = V::pass_vertices(pg.g), entries = pg.g.directed_edges();
  const uint64_t slack = pg.dram.budget - std::min(pg.dram.budget, pg.dram.edge_cache + pg.dram.io_buffers);
  const uint64_t room = (budget_given ? std::min(slack, available_memory_bytes()) : available_memory_bytes() / 2) +
                        2 * n * sizeof(Id);
  const uint64_t lent = room + cache;
  // A tenth left for the rest of the machine; none where the scratch cannot be created (a read-only mount,
  // another user's directory): then auto takes the tuples, and an explicit csr is refused before any search.
  const int unwritable = ::access(pg.report.csr_dir.c_str(), W_OK) == 0 ? 0 : errno;
  const uint64_t disk = unwritable ? 0 : free_bytes_at(pg.report.csr_dir) / 10 * 9;
  CsrPassPlan plan;
  auto take = [&](int slots, bool lend) {
    plan.slots = slots;
    plan.lend_cache = lend && slots > 0;
    plan.dram = slots > 0 ? V::rows_bytes(held, slots) + V::buffer_bytes(n, entries, slots) : 0;
    plan.disk = V::spill_bytes(n, held, slots);
  };
  if (requested > 0) {
    const int slots = std::min({requested, roots, V::kMaxSlots});
    const uint64_t need = V::rows_bytes(held, slots) + V::buffer_bytes(n, entries, slots), spill = V::spill_bytes(n, held, slots);
    if (need > lent)
      throw Error(fmt::format("--validate-batch {} against the on-disk CSR needs {} of DRAM for its batch; the "
                              "budget's slack, the idle parent arrays and the edge cache give {} (lower it)",
                              slots, human_bytes(double(need)), human_bytes(double(lent))));
    if (unwritable)
      throw Error(errno_message(fmt::format("--validate-against csr keeps its scratch in {}, which cannot be written "
                                            "(use --validate-against tuples)", pg.report.csr_dir), unwritable));
    if (spill > disk)
      throw Error(fmt::format("--validate-batch {} against the on-disk CSR needs {} of scratch space in {}; {} free "
                              "(lower it)",
                              slots, human_bytes(double(spill)), pg.report.csr_dir, human_bytes(double(disk))));
    take(slots, need > room);
    return plan;
  }
  const int kept = csr_pass_slots<V>(n, held, entries, room, disk, roots),
            with_cache = csr_pass_slots<V>(n, held, entries, lent, disk, roots);
  auto passes = [&](int slots) { return slots > 0 ? (roots + slots - 1) / slots : INT32_MAX; };
  const bool lend = kept == 0 || (with_cache > 0 && 1.5 * passes(with_cache) - 0.5 < double(passes(kept)));
  // As few searches a batch as give the same passes: the batches even, and no wider rows than they need (a pass
  // of 34 nibble rows took two vector loads a row, of 32 one).
  const int most = lend ? with_cache : kept;
  take(most > 0 ? (roots + passes(most) - 1) / passes(most) : 0, lend);
  if (plan.slots == 0) plan.why_not = csr_pass_shortfall<V>(n, held, entries, lent, disk, unwritable, pg.report.csr_dir);
  return plan;
}

// A batch's pass against the on-disk CSR, as both kernels run it: the edge cache (kernel 2's, or kernel 3's when
// weighted) lent to the pass and reloaded where more searches follow; each waiting search charged an equal share
// of its add's and the pass's time. pass() returns the batch's verdicts in the order added; record(index,
// verdict, seconds) takes each.
template <class Id, class Pass, class Record>
void lent_pass(PlacedGraph<Id>& pg, bool weighted, bool lend, bool more, std::vector<size_t>& waiting, double& busy,
               RunResult& result, const RunHooks& hooks, Pass&& pass, Record&& record) {
  if (waiting.empty()) return;
  const double t0 = now();
  if (lend && weighted) pg.weighted_cache.adj = NumaArray<NodeWeight<Id>>();
  else if (lend) pg.cache.adj = NumaArray<Id>();
  const std::vector<Verdict> verdicts = pass();
  if (lend && more) {
    const double r0 = now();
    reload_edge_cache(pg, weighted, [&](const std::string& phase, uint64_t d, uint64_t t) { hooks.report(phase, d, t); });
    result.validation.cache_reload_time += now() - r0;
  }
  const double each = (busy + now() - t0) / double(waiting.size());
  for (size_t j = 0; j < waiting.size(); ++j) record(waiting[j], verdicts[j], each);
  waiting.clear();
  busy = 0;
}

}  // namespace strata
