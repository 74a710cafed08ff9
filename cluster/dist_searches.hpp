// A kernel's timed searches across the ranks, written once for every kernel: driver/kernel_loop.hpp's timing loop
// with the ranks aligned before each search and the slowest rank's time counted, each result handed to its
// kernel's output type (a parent tree, distances and parents: cluster/dist_<kernel>_searches.hpp) to be planted
// with a test's fault, traced, described and added to a validation batch checked in one pass over the tuples.
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "cluster/dist_validator.hpp"
#include "core/timer.hpp"
#include "core/units.hpp"
#include "driver/kernel_loop.hpp"
#include "driver/run_result.hpp"
#include "engine/adjacency.hpp"
#include "generators/edge_stream.hpp"
#include "storage/tuple_source.hpp"

namespace strata {

// A kernel's searches validated in batches across the ranks (DistValidator's kind: the kernel's), each added as
// it ends and the batch checked in one pass over the tuples when full or when the last search is in; each
// verdict filed in the kernel's records.
template <class Id, class Source>
struct DistValidation {
  DistValidator<Id> validator;
  const TupleShare<Source>& tuples;
  const Comm& comm;
  const RunHooks& hooks;
  RunResult& r;
  const KernelInfo& kernel;
  int passes = 0;                  // this kernel's passes over the tuples
  std::vector<size_t> waiting{};   // searches in the batch
  double busy = 0;                 // seconds spent on the batch so far

  template <class Add>
  void add(size_t i, bool more, Add&& add_to) {
    const double v0 = now();
    add_to(validator);
    busy += comm.max(now() - v0);
    waiting.push_back(i);
    if (!validator.full() && more) return;
    if (comm.root())
      hooks.report("validation", 0, 1, fmt::format("{} {}-{} in one pass", plural_of(kernel.search), waiting.front(), waiting.back()));
    const double c0 = now();
    const std::vector<Verdict> verdicts = validator.check(tuples);
    const double each = (busy + comm.max(now() - c0)) / double(waiting.size());
    for (size_t j = 0; j < waiting.size(); ++j) r.record_verdict(kernel, waiting[j], verdicts[j], each);
    ++r.validation.tuple_passes;
    ++passes;
    waiting.clear();
    busy = 0;
  }
};

struct SearchTotals {
  uint64_t bytes_sent = 0, bytes_read = 0;  // this rank's, over the timed searches
  int passes = 0;                           // over the tuples, validating them
};

// A kernel's searches across the ranks for time_searches: every rank starts a search together (align) and the
// slowest rank's time counts; this rank's bytes sent and read by the timed searches are counted (the warm-up's
// are not: searched() skips it); each result joins the validation batch. Output: the kernel's result on this
// rank (search, plant, facts, trace, validate), over Search.
template <class Output, class Id, class Source, class Search>
struct DistKernel {
  const Comm& comm;
  const RunConfig& cfg;
  const RunHooks& hooks;
  RunResult& r;
  const DistGraph<Id>& g;
  Search& s;
  const std::vector<uint64_t>& roots;
  const std::vector<Id>& internal;
  std::optional<DistValidation<Id, Source>>& validation;
  Output out{g.local_count()};
  decltype(out.search(s, Id())) stats{};
  SearchTotals totals{};
  uint64_t sent_before = 0, read_before = 0;

  void align() const { comm.barrier(); }
  double slowest(double seconds) const { return comm.max(seconds); }
  void search(size_t i) {
    sent_before = s.bytes_sent();
    read_before = s.bytes_read();
    stats = out.search(s, internal[i]);
  }
  uint64_t nedge(size_t) const { return s.reached_raw_degree_sum() / 2; }
  void searched(size_t i, bool more) {
    totals.bytes_sent += s.bytes_sent() - sent_before;  // this rank's; stats.bytes_sent is every rank's
    totals.bytes_read += s.bytes_read() - read_before;
    SearchRecord& record = r.run(Output::kInfo).searches[i];
    record.io = stats.io;
    if (hooks.plant.in(Output::kInfo, i)) out.plant(g, roots[i], comm);
    record.facts = out.facts(g, stats, *cfg.place.tier, comm);
    if (cfg.bfs.trace && comm.root() && hooks.trace) hooks.trace(out.trace(stats, i, roots[i], record.time, *cfg.place.tier));
    if (validation)
      validation->add(i, more, [&](DistValidator<Id>& v) { out.validate(v, g, roots[i], record.nedge); });
  }
};

// Kernel Output's timed searches across the ranks, validated against `tuples` (kernel 3: a weighted share's); rank
// 0 alone shows progress.
template <class Output, class Id, class Source, class Search>
SearchTotals run_dist_searches(RunResult& r, const RunConfig& cfg, const TupleShare<Source>& tuples,
                               const DistGraph<Id>& g, Search& search, const std::vector<uint64_t>& roots,
                               const std::vector<Id>& internal, int slots, const Comm& comm, const RunHooks& hooks) {
  constexpr const KernelInfo& kInfo = Output::kInfo;
  std::optional<DistValidation<Id, Source>> validation;
  if (cfg.validate) validation.emplace(DistValidator<Id>(g.n, comm, slots, kInfo.weighted), tuples, comm, hooks, r, kInfo);
  DistKernel<Output, Id, Source, Search> kernel{comm, cfg, hooks, r, g, search, roots, internal, validation};
  RunHooks shown = hooks;
  if (!comm.root()) shown.progress = nullptr;
  time_searches(kernel, roots, r.run(kInfo), shown);
  if (validation) kernel.totals.passes = validation->passes;
  return kernel.totals;
}

// Where this rank's lists are, as kernel 1 left them: kernel 2's (ids) and kernel 3's (with weights), in DRAM or
// in its rows on storage (kernel 3's loaded when first asked, kernel 2's given back then); and where a kernel's
// source tells its I/O buffers, for the rank's DRAM account.
template <class Id>
struct RankLists {
  std::function<Adjacency<Id>()> ids;
  std::function<Adjacency<Id, NodeWeight<Id>>()> weighted;
  std::function<void(uint64_t)> source_buffers;
};

// What a kernel's run across the ranks is given and adds to: the result, the options, the tuples (kernel 3's
// with their weights), this rank's graph and lists, the roots, the validation batch, and this rank's bytes sent
// and read (over every kernel's timed searches) and its search arrays (the larger kernel's).
template <class Id>
struct DistContext {
  RunResult& r;
  const RunConfig& cfg;
  const TupleShare<TupleSource>& share;
  const TupleShare<GeneratedEdges>* wshare;
  DistGraph<Id>& g;
  RankLists<Id> lists;
  const std::vector<uint64_t>& roots;
  const std::vector<Id>& internal;
  int slots;
  const Comm& comm;
  const RunHooks& hooks;
  SearchTotals totals{};
  uint64_t state = 0;

  // Kernel Output's searches with `search` (holding search_state bytes on this rank); returns its passes over
  // the tuples.
  template <class Output, class Source, class Search>
  int run(const TupleShare<Source>& tuples, Search& search, uint64_t search_state) {
    const SearchTotals t = run_dist_searches<Output>(r, cfg, tuples, g, search, roots, internal, slots, comm, hooks);
    totals.bytes_sent += t.bytes_sent;
    totals.bytes_read += t.bytes_read;
    state = std::max(state, search_state);
    return t.passes;
  }
};

}  // namespace strata
