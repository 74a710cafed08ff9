// Where kernel 3 finds a vertex's weighted edges, one source a tier, so delta-stepping (delta_stepping.hpp) is
// written once. A source serves a bucket's light edges (w < delta) or its heavy ones:
//   scan(u, light, relax)      relax(v, w) for the edges of u's list it holds in DRAM or in place
//   kDefers                    the rest of a list (its tail) is on storage; then scan returns, for a heavy
//                              round, the least weight u's tail can hold (-1: nothing left to read), and
//                              marks the tails a light round needs at once; and:
//     mark(u)                  marks u's tail to read (the search's deferred tails, when due)
//     long_tail(u)             whether u's tail is worth a read of its own when due (else it waits for all)
//     finish(light, visit, io) reads the marked tails: visit(u, first, last) for each piece of one
//   check()                    throws if an entry read in place was no vertex id (the file changed)
//   kByWeight                  each list is ordered by weight, so a scan can stop where a stage's cut lies;
//                              then (kernel 3's stage ends):
//   pull(v, limit, take)       take(u, w) for the entries of v's list lighter than `limit` it holds; kDefers:
//                              marks v's tail where it may hold more, read by finish(false, visit, io, nullptr,
//                              limit)
//   band_cost(u, limit)        what reading u's entries lighter than limit would cost (bytes from storage or in
//                              place), for choosing at a stage's end between the settled pushing and the others
//                              pulling
//   finish(..., need)          (kDefers) a heavy read of each tail's entries lighter than need(u) only
// In-core, lists are g's with the weights beside: by id (each entry tested) while kernel 2 and the certificate
// need them so, then by weight (InCoreByWeight). On storage, the weighted CSR
// orders each list by weight: a bucket's light edges are a list's first entries, which the edge cache holds,
// so a light phase reads nothing from storage unless a list's whole cached prefix is light; each vertex's tail
// is relaxed for its heavy edges at its final distance, up to the search's stage (delta_stepping.hpp's
// next_stage): read when due, or sooner where it came whole in a buffer read for other tails (finish's wants;
// delta_stepping.hpp's read_marked).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <omp.h>

#include "bfs/tail_reads.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/movable_atomic.hpp"
#include "engine/csr.hpp"
#include "engine/edge_cache.hpp"
#include "engine/topology.hpp"
#include "storage/csr_files.hpp"

namespace strata {

// In-core: g's lists with a weight per entry beside them. Built for this delta (light_below == delta), each
// list holds its light entries first: a light round reads them alone and a heavy one the rest. Otherwise
// (lists by id, or another delta) each entry is tested.
template <class Id>
class InCoreWeights {
 public:
  static constexpr bool kDefers = false;
  static constexpr bool kByWeight = false;
  InCoreWeights(const Csr<Id>& g, const float* weights, float delta, float light_below = 0)
      : g_(g), w_(weights), delta_(delta), light_first_(light_below == delta) {}

  template <class Relax>
  void scan(Id u, bool light, Relax& relax) const {
    const auto ids = g_.neighbors(u);
    const float* ws = w_ + g_.offsets[u];
    const size_t len = ids.size();
    if (light_first_) {
      size_t j = 0;
      for (; j < len && ws[j] < delta_; ++j)
        if (light) relax(ids[j], ws[j]);
      if (!light)
        for (; j < len; ++j) relax(ids[j], ws[j]);
      return;
    }
    for (size_t j = 0; j < len; ++j)
      if ((ws[j] < delta_) == light) relax(ids[j], ws[j]);
  }
  template <class Visit>
  void finish(bool, Visit&, LevelIo&) {}
  void check() {}

 private:
  const Csr<Id>& g_;
  const float* w_;
  float delta_;
  bool light_first_;
};

namespace sssp_detail {

// Relaxes the entries of [first, last) that belong to the phase: light ones come first in a list by weight.
// A relax with ahead(v) is told each target kAhead entries early, to fetch what it will load (out-of-core tails
// in a read buffer: 1.04-1.09x on top of the counters' fix; dax's lists in place: 1.14-1.17x; SCALE 22, 3
// interleaved rounds).
inline constexpr long kAhead = 16;
// A list by weight as the loops below read it: entry i's id and weight, from (id, weight) pairs (on storage, a
// rank's rows) or from g's ids with the weights beside them (one process in DRAM).
template <class Id>
struct PairList {
  const NodeWeight<Id>* p;
  Id id(size_t i) const { return p[i].v; }
  float w(size_t i) const { return p[i].w; }
  PairList from(uint64_t k) const { return {p + k}; }
};
template <class Id>
struct SplitList {
  const Id* ids;
  const float* ws;
  Id id(size_t i) const { return ids[i]; }
  float w(size_t i) const { return ws[i]; }
  SplitList from(uint64_t k) const { return {ids + k, ws + k}; }
};

// A relax with beyond(w) says where the search's stage ends: that entry and (by weight) the rest are left.
template <class List, class Relax>
void relax_by_weight(List list, size_t len, bool light, float delta, Relax& relax) {
  for (size_t i = 0; i < len; ++i) {
    const float w = list.w(i);
    if constexpr (requires { relax.beyond(w); })
      if (relax.beyond(w)) return;
    if constexpr (requires { relax.ahead(list.id(i)); })
      if (i + kAhead < len) relax.ahead(list.id(i + kAhead));
    if ((w < delta) != light) {
      if (light) return;  // the rest are heavy
      continue;
    }
    relax(list.id(i), w);
  }
}
template <class Id, class Relax>
void relax_by_weight(const NodeWeight<Id>* first, const NodeWeight<Id>* last, bool light, float delta, Relax& relax) {
  relax_by_weight(PairList<Id>{first}, size_t(last - first), light, delta, relax);
}

// How many of a tail's `tail` entries, ordered by weight from w0 on, to read for those lighter than limit: as
// many as the weights (uniform in [0, 1) by the spec) make them, a quarter more and 32; all where that is most.
inline uint64_t entries_below(uint64_t tail, float w0, float limit) {
  if (!(limit < 1.0f) || w0 >= 1.0f) return tail;
  if (!(w0 < limit)) return 0;
  const double share = (double(limit) - w0) / (1.0 - w0);
  return std::min<uint64_t>(tail, uint64_t(share * double(tail) * 1.25) + 32);
}

// The weight of the last of u's `len` cached entries (0 for none): a tail by weight holds none lighter.
template <class Id>
float prefix_last(const EdgeCache<NodeWeight<Id>>& cache, const Csr<Id>& g, Id u, uint64_t len) {
  return len > 0 ? cache.adj[cache.index.begin(u, g.offsets) + len - 1].w : 0.0f;
}

// The entries of a list by weight lighter than limit: take(u, w) each; returns whether all were.
template <class List, class Take>
bool pull_by_weight(List list, size_t len, float limit, Take& take) {
  for (size_t i = 0; i < len; ++i) {
    if (!(list.w(i) < limit)) return false;
    take(list.id(i), list.w(i));
  }
  return true;
}
template <class Id, class Take>
bool pull_by_weight(const NodeWeight<Id>* first, const NodeWeight<Id>* last, float limit, Take& take) {
  return pull_by_weight(PairList<Id>{first}, size_t(last - first), limit, take);
}

}  // namespace sssp_detail

// Lists by weight in DRAM, each lightest first: a light scan stops at a list's first heavy edge, a stage's at its
// cut. List: an MPI rank's rows as (id, weight) pairs (PairLists), or one process's g with the weights beside
// (InCoreByWeight: engine/build_csr.hpp's order_lists_by_weight, once kernel 2 and the certificate have had
// them by id); list v is entries [offsets[v], offsets[v + 1]) of `all`.
template <class Id, class List>
class DramByWeight {
 public:
  static constexpr bool kDefers = false;
  static constexpr bool kByWeight = true;
  DramByWeight(List all, const BlockOffsets& offsets, float delta) : all_(all), off_(&offsets), delta_(delta) {}
  template <class Relax>
  void scan(Id u, bool light, Relax& relax) const {
    sssp_detail::relax_by_weight(all_.from((*off_)[u]), length(u), light, delta_, relax);
  }
  // Bytes a scan of u's entries lighter than limit would touch, as the spec's weights make them.
  uint64_t band_cost(Id u, float limit) const {
    return sssp_detail::entries_below(length(u), 0.0f, limit) * sizeof(NodeWeight<Id>);
  }
  template <class Take>
  void pull(Id v, float limit, Take& take) const {
    sssp_detail::pull_by_weight(all_.from((*off_)[v]), length(v), limit, take);
  }
  template <class Visit>
  void finish(bool, Visit&, LevelIo&) {}
  void check() {}

 private:
  uint64_t length(Id u) const { return (*off_)[u + 1] - (*off_)[u]; }
  List all_;
  const BlockOffsets* off_;
  float delta_;
};
template <class Id>
using PairLists = DramByWeight<Id, sssp_detail::PairList<Id>>;
template <class Id>
using InCoreByWeight = DramByWeight<Id, sssp_detail::SplitList<Id>>;

// Out-of-core: the weighted edge cache's prefixes in DRAM, the tails read with io_uring in file order
// (TailReads over the weighted CSR's pairs), every id read from storage range-checked.
template <class Id>
class WeightsReadTails {
 public:
  static constexpr bool kDefers = true;
  static constexpr bool kByWeight = true;
  // head_entries: how much of a tail a light round reads first (its light edges lead it; 512 entries, a 4 KiB
  // page, hold a hub's light edges up to degree 512 / delta), the rest only where the head ends light.
  WeightsReadTails(const Csr<Id>& g, const EdgeCache<NodeWeight<Id>>& cache, const CsrFiles& files,
                   const IoOptions& io, const Partitioning& parts, float delta, uint64_t head_entries = 512)
      : g_(g), cache_(cache), delta_(delta), head_(head_entries),
        reads_(std::make_unique<TailReads<Id, NodeWeight<Id>>>(g, cache.index, files, io, parts, g.n)),
        longer_(size_t(omp_get_max_threads())), ids_(g.n) {}
  // Ids read from storage are below `ids` (default the graph's vertices; a rank's rows hold global ids).
  void limit_ids(uint64_t ids) { ids_ = ids; }

  template <class Relax>
  float scan(Id u, bool light, Relax& relax) {
    const uint64_t degree = g_.degree(u), len = cache_.index.length(degree);
    const NodeWeight<Id>* prefix = cache_.adj.data() + cache_.index.begin(u, g_.offsets);
    sssp_detail::relax_by_weight(prefix, prefix + len, light, delta_, relax);
    if (len == degree) return -1.0f;
    // The tail holds light edges only where the whole prefix is light; its heavy ones weigh at least the
    // prefix's last (and delta).
    const float last = len > 0 ? prefix[len - 1].w : 0.0f;
    if (!light) return std::max(last, delta_);
    if (last < delta_) mark(u);
    return -1.0f;
  }
  // The least weight u's tail can hold: its prefix's last (0 for none). A heavy scan's answer is no bound for a
  // tail whose prefix is all light: it may hold light entries too.
  float tail_floor(Id u) const {
    return sssp_detail::prefix_last(cache_, g_, u, cache_.index.length(g_.degree(u)));
  }
  // Whether u's tail fills a page of the direct reads: then it is read alone when due (its request wastes at
  // most its end pages), where a shorter one waits to be read with every other (neighbouring short tails share
  // pages and requests).
  bool long_tail(Id u) const {
    const uint64_t d = g_.degree(u);
    return (d - cache_.index.length(d)) * sizeof(NodeWeight<Id>) >= kDirectAlign;
  }
  // Bytes a read of u's entries lighter than limit would take from storage (its tail's head, in whole pages).
  uint64_t band_cost(Id u, float limit) const {
    const uint64_t degree = g_.degree(u), len = cache_.index.length(degree);
    if (len == degree) return 0;
    const uint64_t want = sssp_detail::entries_below(degree - len, sssp_detail::prefix_last(cache_, g_, u, len), limit);
    return want == 0 ? 0 : align_up(want * sizeof(NodeWeight<Id>)) + kDirectAlign;
  }
  // The prefix's entries lighter than limit; the tail is marked where it may hold more (the prefix ended lighter).
  template <class Take>
  void pull(Id v, float limit, Take& take) {
    const uint64_t degree = g_.degree(v), len = cache_.index.length(degree);
    const NodeWeight<Id>* prefix = cache_.adj.data() + cache_.index.begin(v, g_.offsets);
    if (sssp_detail::pull_by_weight(prefix, prefix + len, limit, take) && len < degree) mark(v);
  }
  void mark(Id u) {
    reads_->mark(u);
    if (!marked_.load(std::memory_order_relaxed)) marked_.store(true, std::memory_order_relaxed);
  }
  // Reads the marked tails. A light round reads each tail's head, then the whole tail of those whose head
  // ended light (its first entries relaxed twice: harmless, a relaxation only lowers a distance). A heavy read
  // also visits each unmarked tail that came whole in its buffers where wants(u), if given, says so.
  // need(u), if given: a heavy read (or a stage end's pull) wants of u's tail only the entries lighter than it.
  template <class Visit, class Wants = std::nullptr_t, class Need = std::nullptr_t>
  void finish(bool light, Visit& visit, LevelIo& io, Wants&& wants = nullptr, Need&& need = nullptr) {
    if (!marked_.exchange(false, std::memory_order_relaxed)) return;  // most light phases: nothing to read
    auto checked = checking(visit);
    if (!light) {
      if constexpr (std::is_same_v<std::decay_t<Need>, std::nullptr_t>) return reads_->read(checked, io, UINT64_MAX, wants);
      else return read_heads(checked, io, need, wants);
    }
    reads_->read([&](Id u, const NodeWeight<Id>* first, const NodeWeight<Id>* last) {
      const uint64_t seen = checked(u, first, last);
      const uint64_t tail = g_.degree(u) - cache_.index.length(g_.degree(u));
      // A head is one piece (at most a request): it ends light and the tail goes on, so read the rest.
      if (last != first && last[-1].w < delta_ && tail > head_) longer_[size_t(omp_get_thread_num())].push_back(u);
      return seen;
    }, io, head_);
    read_longer(checked, io);
  }
  void reset() {
    reads_->clear();
    marked_.store(false, std::memory_order_relaxed);
  }
  void check() {}
  uint64_t io_buffer_bytes() const { return reads_->buffer_bytes(); }
  uint64_t state_bytes() const { return reads_->mark_bytes(); }

 private:
  // visit wrapped to check every id read from storage first, returning the entries it was given.
  template <class Visit>
  auto checking(Visit& visit) const {
    return [&visit, n = ids_](Id u, const NodeWeight<Id>* first, const NodeWeight<Id>* last) {
      for (const NodeWeight<Id>* e = first; e != last; ++e)
        if (e->v >= n) [[unlikely]] throw InvalidEntry{e};
      visit(u, first, last);
      return uint64_t(last - first);
    };
  }
  // Reads the marked tails' entries lighter than limit(u): a head of each, as long as the weights (uniform in
  // [0, 1) by the spec, a tail's from its prefix's last on) make them and a quarter more (a head longer than a
  // request comes in pieces; the piece that ends it says so); then the whole tail of each whose head ended
  // lighter than limit.
  template <class Checked, class Limit, class Wants>
  void read_heads(Checked& checked, LevelIo& io, Limit& limit, Wants&& wants) {
    auto head = [&](Id u) -> uint64_t {
      const uint64_t degree = g_.degree(u), len = cache_.index.length(degree), tail = degree - len;
      const uint64_t want = sssp_detail::entries_below(tail, sssp_detail::prefix_last(cache_, g_, u, len), limit(u));
      return want >= tail ? UINT64_MAX : want;
    };
    auto more = [&](Id u, const NodeWeight<Id>* first, const NodeWeight<Id>* last, bool short_head) {
      const uint64_t seen = checked(u, first, last);
      if (short_head && last != first && last[-1].w < limit(u)) longer_[size_t(omp_get_thread_num())].push_back(u);
      return seen;
    };
    reads_->read(more, io, head, wants);
    read_longer(checked, io);
  }
  // Reads whole the tails whose heads were left short (longer_).
  template <class Checked>
  void read_longer(Checked& checked, LevelIo& io) {
    bool any = false;
    for (auto& list : longer_) {
      for (Id u : list) reads_->mark(u);
      any |= !list.empty();
      list.clear();
    }
    if (any) reads_->read(checked, io);
  }

  const Csr<Id>& g_;
  const EdgeCache<NodeWeight<Id>>& cache_;
  float delta_;
  uint64_t head_;
  std::unique_ptr<TailReads<Id, NodeWeight<Id>>> reads_;
  MovableAtomic<bool> marked_{false};  // a tail was marked since the last finish
  std::vector<std::vector<Id>> longer_;  // [thread]: tails whose head ended light, to read whole
  uint64_t ids_;
};

// DAX: the weighted edge cache's prefixes (if any) in DRAM, the rest of each list read in place from the mapped
// partition files. An entry that is no vertex id is skipped and reported by check() after the search.
template <class Id>
class WeightsInPlace {
 public:
  static constexpr bool kDefers = false;
  static constexpr bool kByWeight = true;
  WeightsInPlace(const Csr<Id>& g, const EdgeCache<NodeWeight<Id>>& cache, std::vector<const NodeWeight<Id>*> mapped,
                 const CsrFiles& files, float delta)
      : g_(g), cache_(cache), mapped_(std::move(mapped)), first_(files.layout().part_first),
        bounds_(files.layout().bounds), dir_(files.path()), delta_(delta), ids_(g.n) {}
  // Ids read in place are below `ids` (default the graph's vertices; a rank's rows hold global ids).
  void limit_ids(uint64_t ids) { ids_ = ids; }

  template <class Relax>
  void scan(Id u, bool light, Relax& relax) {
    const uint64_t degree = g_.degree(u), len = cache_.index.length(degree);
    const NodeWeight<Id>* prefix = cache_.adj.data() + (len ? cache_.index.begin(u, g_.offsets) : 0);
    sssp_detail::relax_by_weight(prefix, prefix + len, light, delta_, relax);
    if (len == degree || (light && len > 0 && !(prefix[len - 1].w < delta_))) return;
    int p = 0;
    while (u >= bounds_[p + 1]) ++p;
    const NodeWeight<Id>* list = mapped_[p] + (g_.offsets[u] - first_[p]);
    const NodeWeight<Id>* end = list + degree;  // what the stage may relax: up to its cut
    if constexpr (requires { relax.beyond(0.0f); }) {
      end = list + len;
      while (end != list + degree && !relax.beyond(end->w)) ++end;
    }
    if (!valid(list + len, end)) return;
    sssp_detail::relax_by_weight(list + len, end, light, delta_, relax);
  }
  // Bytes of the mapping a scan of u's entries lighter than limit would touch.
  uint64_t band_cost(Id u, float limit) const {
    const uint64_t degree = g_.degree(u), len = cache_.index.length(degree);
    const float w0 = sssp_detail::prefix_last(cache_, g_, u, len);
    return len == degree ? 0 : sssp_detail::entries_below(degree - len, w0, limit) * sizeof(NodeWeight<Id>);
  }
  template <class Take>
  void pull(Id v, float limit, Take& take) {
    const uint64_t degree = g_.degree(v), len = cache_.index.length(degree);
    const NodeWeight<Id>* prefix = cache_.adj.data() + (len ? cache_.index.begin(v, g_.offsets) : 0);
    if (!sssp_detail::pull_by_weight(prefix, prefix + len, limit, take) || len == degree) return;
    int p = 0;
    while (v >= bounds_[p + 1]) ++p;
    const NodeWeight<Id>* list = mapped_[p] + (g_.offsets[v] - first_[p]);
    const NodeWeight<Id>* end = list + len;
    while (end != list + degree && end->w < limit) ++end;
    if (valid(list + len, end)) sssp_detail::pull_by_weight(list + len, end, limit, take);
  }
  template <class Visit>
  void finish(bool, Visit&, LevelIo&) {}
  void check() {
    const NodeWeight<Id>* at = bad_.exchange(nullptr, std::memory_order_relaxed);
    if (!at) return;
    for (size_t p = 0; p < mapped_.size(); ++p)
      if (at >= mapped_[p] && at < mapped_[p] + (first_[p + 1] - first_[p]))
        throw Error(fmt::format("{}/{} is corrupted: the entry at offset {} holds {}, not a vertex id (the file "
                                "changed after it was checked at load); remove {} to rebuild it",
                                dir_, CsrFiles::adj_name(int(p)), uint64_t(at - mapped_[p]) * sizeof(*at),
                                uint64_t(at->v), dir_), Error::kFixSaid);
    throw Error("internal error: a weighted adjacency entry is no vertex id");
  }

 private:
  // Whether every entry of [first, last), read in place, names a vertex; the first that does not is kept for check().
  bool valid(const NodeWeight<Id>* first, const NodeWeight<Id>* last) {
    for (const NodeWeight<Id>* e = first; e != last; ++e)
      if (e->v >= ids_) [[unlikely]] {
        const NodeWeight<Id>* none = nullptr;
        bad_.compare_exchange_strong(none, e, std::memory_order_relaxed);
        return false;
      }
    return true;
  }

  const Csr<Id>& g_;
  const EdgeCache<NodeWeight<Id>>& cache_;
  std::vector<const NodeWeight<Id>*> mapped_;
  std::vector<uint64_t> first_, bounds_;
  std::string dir_;
  float delta_;
  MovableAtomic<const NodeWeight<Id>*> bad_{nullptr};
  uint64_t ids_;
};

}  // namespace strata
