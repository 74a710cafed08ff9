#include "driver/graph500.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <optional>
#include <memory>
#include <type_traits>

#include "bfs/searches.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/timer.hpp"
#include "core/units.hpp"
#include "generators/edge_stream.hpp"
#include "storage/atomic_dir.hpp"
#include "storage/graph_dir.hpp"
#include "validate/csr_pass_validator.hpp"
#include "validate/csr_validator.hpp"
#include "validate/stats.hpp"
#include "validate/validator.hpp"

namespace strata {

uint64_t RunResult::bytes_read() const {
  uint64_t sum = 0;
  for (const SearchStats& s : search_stats) sum += s.io.bytes_read;
  return sum;
}
double RunResult::statistic(const std::string& name) const {
  for (const auto& [key, value] : statistics)
    if (key == name) return value;
  return 0;
}
void RunResult::record_verdict(size_t index, const Verdict& v, double seconds) {
  SearchRecord& r = searches[index];
  r.validate_time = seconds;
  r.valid = v.valid;
  validation.time += seconds;
  if (!r.valid && failure.empty())
    failure = fmt::format("validation failed for search {} (root {}): {}", index, r.root, v.message);
}
uint64_t RunResult::io_requests() const {
  uint64_t sum = 0;
  for (const SearchStats& s : search_stats) sum += s.io.requests;
  return sum;
}

const char* validation_method_name(ValidationMethod m) {
  switch (m) {
    case ValidationMethod::kAuto: return "auto";
    case ValidationMethod::kTuples: return "tuples";
    case ValidationMethod::kCsr: return "csr";
  }
  return "?";
}
std::optional<ValidationMethod> validation_method_from_name(const std::string& name) {
  for (ValidationMethod m : {ValidationMethod::kAuto, ValidationMethod::kTuples, ValidationMethod::kCsr})
    if (name == validation_method_name(m)) return m;
  return std::nullopt;
}

namespace {

void report(const RunHooks& hooks, const std::string& phase, uint64_t done, uint64_t total, const std::string& detail = {}) {
  if (hooks.progress) hooks.progress(phase, done, total, detail);
}

PlacementSpec placement_spec(const RunConfig& cfg, int parts) {
  PlacementSpec spec = cfg.place;
  spec.parts = parts;
  spec.threads = omp_get_max_threads();
  return spec;
}

// The search for a prepared graph: the hybrid kernel over the placement's neighbour source.
template <class Id>
std::unique_ptr<GraphSearch<Id>> make_search(const PlacedGraph<Id>& pg, const RunConfig& cfg) {
  switch (pg.report.kind) {
    case Placement::kInCore: return in_core_search(pg.g, pg.partitioning, cfg.bfs);
    case Placement::kOutOfCore: return out_of_core_search(pg.g, pg.cache, *pg.files, cfg.place.io, pg.partitioning, cfg.bfs);
    case Placement::kDax:
      return dax_search(pg.g, pg.cache, pg.mapped_lists(), *pg.files, pg.partitioning, cfg.bfs);
  }
  throw Error("internal error: unknown placement");
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
    const uint64_t need = slots > 1 ? BatchValidator<Id>::batch_bytes(g.n, slots) : 0, have = available_memory_bytes();
    if (pg.report.kind != Placement::kInCore && need > have)  // in-core runs were checked before kernel 1
      throw Error(fmt::format("--validate-batch {} needs {} for its packed batch; {} available (lower it)", slots,
                              human_bytes(double(need)), human_bytes(double(have))));
    return slots;
  }
  if (pg.report.kind != Placement::kInCore) {
    const uint64_t slack = pg.dram.budget - std::min(pg.dram.budget, pg.dram.edge_cache + pg.dram.io_buffers);
    const uint64_t room = budget_given ? std::min(slack, available_memory_bytes()) : available_memory_bytes() / 2;
    return validation_slots_within(g.n, sizeof(Id), room, roots);
  }
  uint64_t raw_entries = 0;
#pragma omp parallel for reduction(+ : raw_entries)
  for (uint64_t v = 0; v < g.n; ++v) raw_entries += g.raw_degree(v);
  return validation_batch_within_build_peak(g.n, sizeof(Id), raw_entries, g.bytes(), roots);
}

// Roots exactly as the reference chooses them: vertices with an edge other than self-loops.
template <class Id>
std::vector<uint64_t> graph500_roots(const Csr<Id>& g, const KroneckerSpec& spec, int count) {
  std::vector<uint64_t> has_edge((g.n + 63) / 64, 0);
  for (uint64_t v = 0; v < g.n; ++v)
    if (g.degree(v) > 0) has_edge[g.to_input[v] >> 6] |= uint64_t(1) << (g.to_input[v] & 63);
  std::vector<uint64_t> roots = search_roots(spec, count, [&](uint64_t v) { return (has_edge[v >> 6] >> (v & 63)) & 1; });
  if (roots.empty()) throw Error(fmt::format("SCALE {} graph has no vertex with an edge: nothing to search", spec.scale));
  return roots;
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
      if (omp_get_thread_num() == 0) report(hooks, "validation", d, source.chunk_count(), what);
    };
  }
  void record(size_t index, const Verdict& v, double seconds) { result.record_verdict(index, v, seconds); }
};

// How a tiered run checks its searches against the on-disk CSR (validate/csr_pass_validator.hpp): searches
// a pass, and whether the pass borrows the edge cache's DRAM (reloaded after it, before the next search). The
// pass always has the search's two parent arrays (internal and output), idle while it runs.
struct CsrPassPlan {
  int slots = 0;  // 0: it does not fit
  bool lend_cache = false;
  uint64_t dram = 0, disk = 0;
  std::string why_not;  // slots == 0: what is short
};

// The largest batch whose rows and buffers fit `room` and whose spill fits `disk_free`, at most `roots`.
template <class Id>
int csr_pass_slots(uint64_t n, uint64_t entries, uint64_t room, uint64_t disk_free, int roots) {
  using V = CsrPassValidator<Id>;
  int slots = 0;
  while (slots < std::min(roots, V::kMaxSlots) && V::rows_bytes(n, slots + 1) + V::buffer_bytes(n, entries, slots + 1) <= room &&
         V::spill_bytes(n, slots + 1) <= disk_free)
    ++slots;
  return slots;
}

// The plan: what the budget's slack (as validation_batch reckons it) and the idle parent arrays hold, or with
// the cache lent when that saves time (a reload reads the adjacency like a pass, with little to compute: half
// a pass); `requested` (--validate-batch) is taken as asked or refused with the figures.
template <class Id>
CsrPassPlan csr_pass_plan(const PlacedGraph<Id>& pg, int requested, int roots, bool budget_given) {
  using V = CsrPassValidator<Id>;
  const uint64_t n = pg.g.n, entries = pg.g.directed_edges();
  const uint64_t slack = pg.dram.budget - std::min(pg.dram.budget, pg.dram.edge_cache + pg.dram.io_buffers);
  const uint64_t room = (budget_given ? std::min(slack, available_memory_bytes()) : available_memory_bytes() / 2) +
                        2 * n * sizeof(Id);
  const uint64_t lent = room + pg.dram.edge_cache;
  // A tenth left for the rest of the machine; none where the scratch cannot be created (a read-only mount,
  // another user's directory): then auto takes the tuples, and an explicit csr is refused before any search.
  const int unwritable = ::access(pg.report.csr_dir.c_str(), W_OK) == 0 ? 0 : errno;
  const uint64_t disk = unwritable ? 0 : free_bytes_at(pg.report.csr_dir) / 10 * 9;
  CsrPassPlan plan;
  auto take = [&](int slots, bool lend) {
    plan.slots = slots;
    plan.lend_cache = lend && slots > 0;
    plan.dram = slots > 0 ? V::rows_bytes(n, slots) + V::buffer_bytes(n, entries, slots) : 0;
    plan.disk = V::spill_bytes(n, slots);
  };
  if (requested > 0) {
    const int slots = std::min({requested, roots, V::kMaxSlots});
    const uint64_t need = V::rows_bytes(n, slots) + V::buffer_bytes(n, entries, slots), spill = V::spill_bytes(n, slots);
    if (need > lent)
      throw Error(fmt::format("--validate-batch {} against the on-disk CSR needs {} of DRAM for its levels; the "
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
  const int kept = csr_pass_slots<Id>(n, entries, room, disk, roots),
            with_cache = csr_pass_slots<Id>(n, entries, lent, disk, roots);
  auto passes = [&](int slots) { return slots > 0 ? (roots + slots - 1) / slots : INT32_MAX; };
  const bool lend = kept == 0 || (with_cache > 0 && 1.5 * passes(with_cache) - 0.5 < double(passes(kept)));
  take(lend ? with_cache : kept, lend);
  if (plan.slots == 0)
    plan.why_not = unwritable ? errno_message(fmt::format("scratch space in {}, which cannot be written",
                                                          pg.report.csr_dir), unwritable)
                   : V::spill_bytes(n, 1) > disk
                       ? fmt::format("{} of scratch space in {} for one search, {} free", human_bytes(double(V::spill_bytes(n, 1))),
                                     pg.report.csr_dir, human_bytes(double(disk)))
                       : fmt::format("{} of DRAM for one search's levels, {} with the edge cache lent",
                                     human_bytes(double(V::rows_bytes(n, 1) + V::buffer_bytes(n, entries, 1))), human_bytes(double(lent)));
  return plan;
}

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
    switch (batch.add(s, bfs.internal_parents(), root, scratch, v)) {
      case CsrPassValidator<Id>::Added::kAdded:
        busy += now() - t0;
        waiting.push_back(index);
        if (batch.full() || !more) check(more);
        return;
      case CsrPassValidator<Id>::Added::kChecked:
        result.record_verdict(index, v, now() - t0);
        break;
      case CsrPassValidator<Id>::Added::kTooDeep: {
        auto on_chunk = [&, done = std::make_shared<std::atomic<uint64_t>>(0)] {
          const uint64_t d = done->fetch_add(1, std::memory_order_relaxed) + 1;
          if (omp_get_thread_num() == 0)
            report(hooks, "validation", d, source.chunk_count(), fmt::format("search {} in place (a deep tree)", index));
        };
        v = validate_search_in_place(source, s, bfs.idle_memory(), on_chunk);
        ++result.validation.tuple_passes;
        result.record_verdict(index, v, now() - t0);
        break;
      }
    }
    if (!more) check(false);
  }
  void check(bool more) {  // the pass for the searches waiting, the cache lent and given back if asked
    if (waiting.empty()) return;
    const double t0 = now();
    if (lend_cache) pg.cache.adj = NumaArray<Id>();
    output.release(0, output.size());  // both parent arrays' pages, until the next search writes them
    bfs.release_idle_memory();
    const std::string what = fmt::format("searches {}-{} in one pass over the on-disk CSR", waiting.front(), waiting.back());
    const std::vector<Verdict> verdicts = batch.check([&](uint64_t d, uint64_t t) { report(hooks, "validation", d, t, what); });
    ++result.validation.csr_passes;
    if (lend_cache && more) {
      const double r0 = now();
      EdgeCache<Id> fresh = pg.mappings.empty()
                                ? load_edge_cache(pg.g, *pg.files, pg.cache.k, pg.cache.hub_degree,
                                                  [&](uint64_t d, uint64_t t) { report(hooks, "validation: reloading the edge cache", d, t); })
                                : load_edge_cache_mapped(pg.g, *pg.files, prepare_detail::mapped_bases(pg), pg.cache.k,
                                                         pg.cache.hub_degree);
      pg.cache.adj = std::move(fresh.adj);  // the search refers to pg.cache: same index, same K
      result.validation.cache_reload_time += now() - r0;
    }
    const double each = (busy + now() - t0) / double(waiting.size());
    for (size_t j = 0; j < waiting.size(); ++j) result.record_verdict(waiting[j], verdicts[j], each);
    waiting.clear();
    busy = 0;
  }
};

// A planted kernel-1 error (--debug-corrupt-csr): two vertices of different degrees trade input labels, so
// their edges move; the searches stay consistent with the damaged graph, only the certificate can tell.
template <class Id>
void swap_two_labels(Csr<Id>& g) {
  uint64_t b = 1;
  while (b < g.n && g.degree(b) == g.degree(0)) ++b;
  if (b < g.n) std::swap(g.to_input[0], g.to_input[b]);
}

// Validation against kernel 1's CSR (csr_validator.hpp): certified once, then each search checked in DRAM.
template <class Id, class Source>
std::optional<CsrValidator<Id>> certify_csr(RunResult& result, const Source& source, const PlacedGraph<Id>& pg,
                                            const RunHooks& hooks) {
  report(hooks, "validation", 0, 1, "certifying kernel 1's graph against the tuples");
  const double t0 = now();
  try {
    std::optional<CsrValidator<Id>> v(std::in_place, pg.g, source);
    result.validation.certificate_time = now() - t0;
    result.validation.tuple_passes = 1;
    return v;
  } catch (const Error& e) {
    result.failure = std::string("validation failed: ") + e.what();
    return std::nullopt;
  }
}

// Kernel 2 and validation: the warm-up, then each root's search timed alone, validated against the CSR right
// after it (in-core), against the on-disk CSR in spilled batches (tiered), or against the tuples in packed
// batches. A tiered run left to choose (--validate-against auto) takes the on-disk CSR only where it needs
// fewer passes than the tuples (a tight budget), since the tuples are the input itself.
template <class Id, class Source>
void run_searches(RunResult& result, const RunConfig& cfg, const Source& source, PlacedGraph<Id>& pg,
                  GraphSearch<Id>& bfs, const RunHooks& hooks) {
  const std::vector<uint64_t> roots = graph500_roots(pg.g, source.spec(), cfg.roots);
  const std::vector<Id> internal = internal_ids(pg.g, roots);
  const bool tiered = pg.report.kind != Placement::kInCore, budget_given = cfg.place.dram_budget > 0;
  const int count = int(roots.size());
  std::optional<CsrPassPlan> plan;
  if (cfg.validate && tiered && result.validation.method != ValidationMethod::kTuples) {
    auto passes = [&](int slots) { return slots > 0 ? (count + slots - 1) / slots : INT32_MAX; };
    if (result.validation.method == ValidationMethod::kAuto && cfg.validate_batch > 0) {
      result.validation.method = ValidationMethod::kTuples;  // a batch asked for: as many passes either way
    } else if (result.validation.method == ValidationMethod::kAuto) {
      const CsrPassPlan fit = csr_pass_plan(pg, 0, count, budget_given);
      const bool fewer = passes(fit.slots) < passes(validation_batch(pg, 0, count, budget_given));
      result.validation.method = fewer ? ValidationMethod::kCsr : ValidationMethod::kTuples;
    }
    if (result.validation.method == ValidationMethod::kCsr) {
      plan = csr_pass_plan(pg, cfg.validate_batch, count, budget_given);
      if (plan->slots == 0)
        throw Error("--validate-against csr cannot check even one search a pass against the on-disk CSR: it needs " +
                    plan->why_not + " (use --validate-against tuples)");
    }
  }
  const bool against_csr = cfg.validate && !tiered && result.validation.method == ValidationMethod::kCsr;
  const std::optional<CsrValidator<Id>> csr = against_csr ? certify_csr(result, source, pg, hooks) : std::nullopt;
  if (against_csr && !csr) return;
  result.validate_batch = !cfg.validate || against_csr ? 1
                          : plan                       ? plan->slots
                                                       : validation_batch(pg, cfg.validate_batch, count, budget_given);
  if (plan) {
    result.validation.lent_cache = plan->lend_cache;
    result.validation.spill_bytes = plan->disk;
    pg.dram.validation_batch = plan->dram;
  }
  NumaArray<Id> parent(pg.g.n);  // the search's output, in input labels
  TupleValidation<Id, Source> tuples(source, bfs, result, hooks, pg.g.n,
                                     cfg.validate && !csr && !plan ? result.validate_batch : 1);
  std::optional<CsrPassValidation<Id, Source>> on_disk;
  if (plan) on_disk.emplace(pg, source, bfs, parent, result, hooks, *plan);
  bfs.search(internal[0], parent.data());  // warm-up search, untimed and not reported
  for (size_t i = 0; i < roots.size(); ++i) {
    const double s0 = now();
    SearchStats stats = bfs.search(internal[i], parent.data());
    const double time = now() - s0;
    const uint64_t nedge = bfs.reached_raw_degree_sum() / 2;
    result.searches.push_back({roots[i], time, nedge, 0.0, false});
    if (cfg.corrupt_search == int(i)) plant_cycle(parent.data(), pg.g.n, roots[i]);
    if (cfg.bfs.trace && hooks.trace) hooks.trace(i, roots[i], stats);
    stats.levels.clear();
    result.search_stats.push_back(std::move(stats));
    const SearchToCheck<Id> check{roots[i], parent.data(), nedge};
    const bool more = i + 1 < roots.size();
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
    report(hooks, "kernel 2", i + 1, roots.size(), fmt::format("search {} root {}: {:.3g} TEPS", i, roots[i], double(nedge) / time));
  }
}

// Everything a result says of the prepared graph and the run around the searches.
template <class Id>
void describe(RunResult& r, const PlacedGraph<Id>& pg, const GraphSearch<Id>& bfs, const Topology& topo) {
  r.parts = pg.partitioning.parts();
  r.partitions = pg.partitioning.describe();
  r.numa_nodes = topo.nodes();
  r.directed_edges = pg.g.directed_edges();
  r.id_bytes = int(sizeof(Id));
  r.construction_time = pg.construction_time;
  r.placement = pg.report;
  r.dram = pg.dram;
  const bool on_disk = pg.report.kind != Placement::kInCore && r.validation.method == ValidationMethod::kCsr;
  const bool packed = r.validate && r.validation.method == ValidationMethod::kTuples && r.validate_batch > 1;
  const uint64_t in_place_bits = r.validate && !packed && !on_disk ? (pg.g.n + 63) / 64 * sizeof(uint64_t) : 0;
  if (!on_disk) r.dram.validation_batch = packed ? BatchValidator<Id>::batch_bytes(pg.g.n, r.validate_batch) : 0;
  if (pg.report.kind != Placement::kInCore)  // what is allocated: graph metadata, cache index, search, output
    r.dram.state = pg.g.bytes() + pg.cache.index.bytes() + bfs.state_bytes() + pg.g.n * sizeof(Id) + in_place_bits;
  r.io_buffer_bytes = bfs.io_buffer_bytes();
  r.registered_buffers = bfs.registered_buffers();
  // A lent edge cache is given back to the pass: the larger of the two is the peak.
  const uint64_t lent = r.validation.lent_cache ? std::min(r.dram.edge_cache, r.dram.validation_batch) : 0;
  r.dram_bytes = pg.dram.graph + search_state_bytes(pg.g.n, sizeof(Id), 1) + r.io_buffer_bytes + r.dram.validation_batch - lent;
  if (r.validate && r.validation.method == ValidationMethod::kCsr && !on_disk)
    r.dram_bytes += csr_validation_bytes(pg.g.n, pg.g.directed_edges(), sizeof(Id));
}

template <class Id, class Source>
void search_and_summarize(RunResult& r, const RunConfig& cfg, const Source& source, PlacedGraph<Id>& pg,
                          const Topology& topo, const RunHooks& hooks, double busy_at_start) {
  if (cfg.corrupt_csr) swap_two_labels(pg.g);
  const std::unique_ptr<GraphSearch<Id>> bfs = make_search(pg, cfg);
  pin_threads(pg.partitioning, topo, r.threads);
  run_searches(r, cfg, source, pg, *bfs, hooks);
  describe(r, pg, *bfs, topo);
  if (!r.ok()) return;  // no statistics from a failed run
  r.statistics = graph500_statistics(r.spec.scale, r.spec.edgefactor, r.generation_time, r.construction_time, r.searches);
  r.measurement_warnings = measurement_warnings(r.searches, busy_at_start, r.threads);
}

template <class Id>
void check_in_core_memory(const KroneckerSpec& spec, int validate_batch, bool against_csr) {
  const uint64_t need = in_core_bytes(spec, sizeof(Id), std::max(validate_batch, 1), against_csr);
  const uint64_t have = available_memory_bytes();
  if (need > have)
    throw Error(fmt::format("SCALE {} needs about {} of memory for an in-core run; {} available (an out-of-core run, "
                            "--placement out-of-core, needs far less)",
                            spec.scale, human_bytes(double(need)), human_bytes(double(have))));
}

// Kernel 0: with a stored graph, producing a verified edge list (reading it and checking every block);
// generated, one timed pass generating every tuple (kernel 1 regenerates them as it needs them).
double kernel0(const GraphDir& dir, const RunHooks& hooks) {
  const double t0 = now();
  const std::string phase = dir.stores_tuples() ? "verifying " + dir.path() : "kernel 0 (regenerating " + dir.path() + "'s tuples)";
  dir.verify([&](uint64_t done, uint64_t total) { report(hooks, phase, done, total); });
  return now() - t0;
}
double kernel0(const GeneratedEdges& source, const RunHooks& hooks) {
  const double t0 = now();
  std::atomic<uint64_t> done{0};
  source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
    const uint64_t d = done += edges.size();
    if (omp_get_thread_num() == 0) report(hooks, "kernel 0", d, source.spec().edge_count());
  });
  return now() - t0;
}

template <class Id, class Source>
void run_on(RunResult& r, const RunConfig& cfg, const Source& source, const Topology& topo, int parts,
            const RunHooks& hooks, double busy_at_start) {
  r.spec = source.spec();
  r.generation_time = kernel0(source, hooks);
  PlacedGraph<Id> pg;
  const PhaseProgress progress = [&](const std::string& phase, uint64_t d, uint64_t t) { report(hooks, phase, d, t); };
  if constexpr (std::is_same_v<Source, GraphDir>) {
    if (cfg.place.kind != Placement::kInCore) prepare_tiered(pg, source, placement_spec(cfg, parts), topo, progress);
    else prepare_in_core(pg, source, placement_spec(cfg, parts), topo, progress);
  } else {
    prepare_in_core(pg, source, placement_spec(cfg, parts), topo, progress);
  }
  search_and_summarize(r, cfg, source, pg, topo, hooks, busy_at_start);
}

template <class Id>
RunResult run_typed(const RunConfig& cfg, const RunHooks& hooks, double busy_at_start) {
  const Topology topo = Topology::detect();
  const int parts = cfg.numa_parts > 0 ? cfg.numa_parts : topo.nodes();
  check_memory_nodes(cfg.place.memory.mem_nodes, topo);
  if (cfg.place.memory.any() && cfg.place.kind != Placement::kInCore)
    throw Error("--mem-nodes and --interleave place the in-core adjacency; they do not apply to --placement " +
                std::string(placement_name(cfg.place.kind)));
  const bool in_core = cfg.place.kind == Placement::kInCore;
  RunResult r;
  // Tiered runs choose once their graph is loaded (run_searches): what fits their budget decides.
  r.validation.method = cfg.validate_against == ValidationMethod::kAuto && in_core ? ValidationMethod::kCsr
                                                                                 : cfg.validate_against;
  const bool against_csr = cfg.validate && r.validation.method == ValidationMethod::kCsr;
  r.graph_dir = cfg.graph_dir;
  r.threads = omp_get_max_threads();
  r.bfs = cfg.bfs;
  r.validate = cfg.validate;
  r.place = cfg.place;
  if (!cfg.graph_dir.empty()) {
    const GraphDir dir = GraphDir::open(cfg.graph_dir);
    if (cfg.place.kind == Placement::kInCore) check_in_core_memory<Id>(dir.spec(), cfg.validate_batch, against_csr);
    run_on<Id>(r, cfg, dir, topo, parts, hooks, busy_at_start);
    return r;
  }
  if (cfg.place.kind != Placement::kInCore)
    throw Error(fmt::format("--placement {} needs a graph directory (--graph DIR; make one with `strata generate "
                            "--scale {} --out DIR`)",
                            placement_name(cfg.place.kind), cfg.spec.scale));
  check_in_core_memory<Id>(cfg.spec, cfg.validate_batch, against_csr);
  run_on<Id>(r, cfg, GeneratedEdges{Kronecker(cfg.spec)}, topo, parts, hooks, busy_at_start);
  return r;
}

}  // namespace

// Held for the whole run: `generate --force` cannot replace the directory under it (nor its CSR). A lock
// held only for a moment (a --force that is refused, a probe) is waited out for up to 2 s.
DirLock lock_graph_dir(const std::string& dir) {
  DirLock lock;
  if (dir.empty() || !path_exists(dir)) return lock;
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (DirLock::try_lock(dir, DirLock::kShared, lock)) return lock;
    ::usleep(100000);
  }
  throw Error(dir + " is being replaced by another strata process (generate --force); run again when it has finished");
}


RunResult run_graph500(const RunConfig& config, const RunHooks& hooks) {
  const double busy_at_start = busy_cpus();
  if (config.threads > 0) omp_set_num_threads(config.threads);
  const DirLock graph_lock = lock_graph_dir(config.graph_dir);
  const int scale = config.graph_dir.empty() ? config.spec.scale : GraphDir::open(config.graph_dir).spec().scale;
  const bool wide = scale > 31 || config.id_bytes == 8;
  return wide ? run_typed<uint64_t>(config, hooks, busy_at_start) : run_typed<uint32_t>(config, hooks, busy_at_start);
}

std::vector<std::pair<std::string, double>> graph500_statistics(int scale, uint64_t edgefactor, double generation,
                                                                double construction,
                                                                const std::vector<SearchRecord>& searches,
                                                                int processes) {
  std::vector<double> time, nedge, validate;
  for (const auto& s : searches) {
    time.push_back(s.time);
    nedge.push_back(double(s.nedge));
    validate.push_back(s.validate_time);
  }
  std::vector<std::pair<std::string, double>> r = {{"SCALE", scale},
                                                   {"edgefactor", double(edgefactor)},
                                                   {"NBFS", double(searches.size())},
                                                   {"graph_generation", generation},
                                                   {"num_mpi_processes", double(processes)},
                                                   {"construction_time", construction}};
  auto add = [&](const std::string& prefix, const std::string& suffix, const Summary& s) {
    r.push_back({prefix + "min" + suffix, s.min});
    r.push_back({prefix + "firstquartile" + suffix, s.firstquartile});
    r.push_back({prefix + "median" + suffix, s.median});
    r.push_back({prefix + "thirdquartile" + suffix, s.thirdquartile});
    r.push_back({prefix + "max" + suffix, s.max});
    r.push_back({prefix + "mean" + suffix, s.mean});
    r.push_back({prefix + "stddev" + suffix, s.stddev});
  };
  add("bfs_", "_time", summarize(time));
  add("", "_nedge", summarize(nedge));
  const TepsSummary t = summarize_teps(time, nedge);
  r.insert(r.end(), {{"bfs_min_TEPS", t.min},
                     {"bfs_firstquartile_TEPS", t.firstquartile},
                     {"bfs_median_TEPS", t.median},
                     {"bfs_thirdquartile_TEPS", t.thirdquartile},
                     {"bfs_max_TEPS", t.max},
                     {"bfs_harmonic_mean_TEPS", t.harmonic_mean},
                     {"bfs_harmonic_stddev_TEPS", t.harmonic_stddev}});
  add("bfs_", "_validate", summarize(validate));
  return r;
}

double busy_cpus(double seconds) {
  // /proc/stat's first line: user nice system idle iowait irq softirq steal ... (jiffies over all CPUs).
  auto sample = [](uint64_t& busy, uint64_t& total) {
    std::FILE* f = std::fopen("/proc/stat", "r");
    if (!f) return false;
    unsigned long long v[8] = {};
    const bool ok = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                                &v[5], &v[6], &v[7]) == 8;
    std::fclose(f);
    total = 0;
    for (unsigned long long x : v) total += x;
    busy = total - v[3] - v[4];
    return ok;
  };
  uint64_t b0, t0, b1, t1;
  if (!sample(b0, t0)) return -1;
  ::usleep(useconds_t(seconds * 1e6));
  if (!sample(b1, t1) || t1 <= t0) return -1;
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  return double(b1 - b0) / double(t1 - t0) * double(cpus > 0 ? cpus : 1);
}

std::vector<std::string> measurement_warnings(const std::vector<SearchRecord>& searches, double busy_at_start,
                                              int threads) {
  constexpr double kSpread = 20, kBusy = 0.5;
  std::vector<std::string> w;
  if (busy_at_start >= kBusy)
    w.push_back(fmt::format("other processes kept {:.1f} CPUs busy when the run started (it used {} thread{}): they "
                            "competed for the CPUs",
                            busy_at_start, threads, threads == 1 ? "" : "s"));
  std::map<uint64_t, std::pair<double, double>> by_nedge;  // nedge -> fastest, slowest search
  for (const SearchRecord& s : searches) {
    auto [it, fresh] = by_nedge.try_emplace(s.nedge, s.time, s.time);
    if (!fresh) it->second = {std::min(it->second.first, s.time), std::max(it->second.second, s.time)};
  }
  for (const auto& [nedge, range] : by_nedge)
    if (range.first > 0 && range.second / range.first > kSpread) {
      w.push_back(fmt::format("searches of equal nedge ({}) took {:.3g} s to {:.3g} s, a {:.0f}x spread: the "
                              "machine was probably busy; measure again on an idle one",
                              nedge, range.first, range.second, range.second / range.first));
      break;
    }
  return w;
}

}  // namespace strata
