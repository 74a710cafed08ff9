// Where a vertex's neighbours come from: the search (hybrid_bfs.hpp) is written once over these sources.
// Every source has a prefix of each list in DRAM -- the whole list in-core, the edge cache's first K entries
// out-of-core and DAX -- and handles the rest of the list (its tail) itself:
//
//   adj()                      the prefixes, laid out in vertex order: vertex 64w's starts at word_prefix(w),
//   word_prefix(w)             and each takes prefix_length(degree) entries (the search walks g's offsets
//   prefix_length(degree)      for the degrees, so a source keeps no offsets of its own)
//   kChecked                   the prefixes are read in place from a mapping: ids are range-checked
//   kHasTails                  lists may continue past their prefix (prefix_length(d) < d); then:
//     top_down_tail(u, p, len, expand, scanned)    scan u's tail now, or mark it for top_down_finish
//     top_down_finish(expand, io)                  scan what was marked; returns what expand returned
//     bottom_up_tail(v, p, len, front, scanned)    v's parent in its tail, or kNoVertex (sources
//                                                  that read tails in place)
//     kDefers, deferred_words()  bottom-up marks the tails instead, a word at a time, for:
//     bottom_up_finish(claim, io)                  claim(v, first, last) on each marked tail
//   check()                    throws if an entry read in place was no vertex id (the file changed)
//   limit_ids(ids)             cached sources: ids read from storage are below ids (default g's n; a rank's
//                              rows, g its local lists, name the whole distributed id space: the search sets it)
//
// A source decides how a tail is reached (io_uring reads merged in file order, or loads from a mapping);
// the search decides direction, frontier and claiming. A new tier is one more source here.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bfs/bitmap.hpp"
#include "bfs/tail_reads.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/movable_atomic.hpp"
#include "engine/block_offsets.hpp"
#include "engine/csr.hpp"
#include "engine/edge_cache.hpp"
#include "engine/topology.hpp"
#include "storage/csr_files.hpp"

namespace strata {

// Partition files mapped in place (DAX), and the first entry found in them that is no vertex id: the file
// changed after its checksums were verified at load. Such an entry is never used; check() reports it.
template <class Id>
class MappedParts {
 public:
  MappedParts() = default;
  MappedParts(std::vector<const Id*> base, const CsrFiles& files)
      : base_(std::move(base)), first_(files.layout().part_first), dir_(files.path()) {}

  const Id* list(int p, uint64_t entry) const { return base_[p] + (entry - first_[p]); }
  void note_bad(const Id* at) {
    const Id* none = nullptr;
    bad_.compare_exchange_strong(none, at, std::memory_order_relaxed);
  }
  // Whether every id in [first, last) is below n; notes the first that is not.
  bool in_range(const Id* first, const Id* last, uint64_t n) {
    const Id* bad = first_out_of_range(first, last, n);
    if (bad == last) [[likely]] return true;
    note_bad(bad);
    return false;
  }
  void check() {
    const Id* at = bad_.exchange(nullptr, std::memory_order_relaxed);
    if (!at) return;
    for (size_t p = 0; p < base_.size(); ++p)
      if (at >= base_[p] && at < base_[p] + (first_[p + 1] - first_[p]))
        throw Error(fmt::format("{}/{} is corrupted: the entry at offset {} holds {}, not a vertex id (the file "
                                "changed after it was checked at load); remove {} to rebuild it",
                                dir_, CsrFiles::adj_name(int(p)), uint64_t(at - base_[p]) * sizeof(Id), uint64_t(*at),
                                dir_), Error::kFixSaid);
    throw Error(fmt::format("internal error: adjacency entry {} is no vertex id", uint64_t(*at)));
  }

 private:
  std::vector<const Id*> base_;
  std::vector<uint64_t> first_;
  std::string dir_;
  MovableAtomic<const Id*> bad_{nullptr};
};

// Every list whole in one array: in DRAM (in-core), or kMapped, a mapping read in place (DAX without a cache
// on one partition), whose ids the search checks.
template <class Id, bool kMapped = false>
class WholeLists {
 public:
  static constexpr bool kChecked = kMapped, kHasTails = false, kDefers = false;
  WholeLists(const Id* adj, const BlockOffsets& off) : adj_(adj), off_(&off) {}
  WholeLists(const Id* mapped, const BlockOffsets& off, const CsrFiles& files)
      : adj_(mapped), off_(&off), parts_(std::vector<const Id*>{mapped}, files) {}

  const Id* adj() const { return adj_; }
  uint64_t word_prefix(uint64_t w) const { return (*off_)[w * 64]; }
  static uint64_t prefix_length(uint64_t degree) { return degree; }
  bool in_range(const Id* first, const Id* last, uint64_t n) { return parts_.in_range(first, last, n); }
  void note_bad(const Id* at) { parts_.note_bad(at); }
  void check() {
    if constexpr (kMapped) parts_.check();
  }

 private:
  const Id* adj_;
  const BlockOffsets* off_;
  MappedParts<Id> parts_;
};

// Shared by the cached sources: the edge cache's prefixes, and g's offsets for where whole lists lie.
template <class Id>
class CachedPrefixes {
 public:
  static constexpr bool kChecked = false, kHasTails = true;
  CachedPrefixes(const Csr<Id>& g, const EdgeCache<Id>& cache) : g_(g), cache_(cache), ids_(g.n) {}
  void limit_ids(uint64_t ids) { ids_ = ids; }
  const Id* adj() const { return cache_.adj.data(); }
  uint64_t word_prefix(uint64_t w) const { return cache_.index.word_begin(w); }
  uint64_t prefix_length(uint64_t degree) const { return cache_.index.length(degree); }
  bool in_range(const Id*, const Id*, uint64_t) { return true; }  // DRAM prefixes, checked at load
  void note_bad(const Id*) {}

 protected:
  const Csr<Id>& g_;
  const EdgeCache<Id>& cache_;
  uint64_t ids_;  // ids read from storage are below it
};

// Out-of-core: tails marked during a step, then read with io_uring in file order (TailReads), each buffer
// range-checked before use.
template <class Id>
class PrefixAndReadTails : public CachedPrefixes<Id> {
 public:
  static constexpr bool kDefers = true;
  PrefixAndReadTails(const Csr<Id>& g, const EdgeCache<Id>& cache, const CsrFiles& files, const IoOptions& io,
                     const Partitioning& parts, uint64_t active)
      : CachedPrefixes<Id>(g, cache), reads_(std::make_unique<TailReads<Id>>(g, cache.index, files, io, parts, active)) {}

  template <class Expand>
  uint64_t top_down_tail(Id u, int, uint64_t, Expand&, uint64_t&) {
    reads_->mark(u);
    return 0;
  }
  template <class Expand>
  uint64_t top_down_finish(Expand& expand, LevelIo& io) {
    std::atomic<uint64_t> scout{0};
    const uint64_t n = this->ids_;
    reads_->read([&](Id u, const Id* first, const Id* last) {
      if (const Id* bad = first_out_of_range(first, last, n); bad != last) [[unlikely]] throw InvalidEntry{bad};
      scout.fetch_add(expand(u, first, last), std::memory_order_relaxed);
      return uint64_t(last - first);
    }, io);
    return scout.load();
  }
  uint64_t* deferred_words() { return reads_->mark_words(); }
  template <class Claim>
  void bottom_up_finish(Claim& claim, LevelIo& io) {
    reads_->read(claim, io);
  }
  void reset() { reads_->clear(); }  // a search ended by a read error leaves marks
  void check() {}
  uint64_t io_buffer_bytes() const { return reads_->buffer_bytes(); }
  uint64_t state_bytes() const { return reads_->mark_bytes(); }
  bool registered_buffers() const { return reads_->registered_buffers(); }

 private:
  std::unique_ptr<TailReads<Id>> reads_;
};

// DAX with a cache or several partitions: tails scanned in place in the mapped partition files.
template <class Id>
class PrefixAndMappedTails : public CachedPrefixes<Id> {
 public:
  static constexpr bool kDefers = false;
  PrefixAndMappedTails(const Csr<Id>& g, const EdgeCache<Id>& cache, std::vector<const Id*> mapped,
                       const CsrFiles& files)
      : CachedPrefixes<Id>(g, cache), parts_(std::move(mapped), files) {}

  template <class Expand>
  uint64_t top_down_tail(Id u, int p, uint64_t len, Expand& expand, uint64_t& scanned) {
    const Id* list = parts_.list(p, this->g_.offsets[u]);
    const uint64_t degree = this->g_.degree(u);
    scanned += degree - len;
    return parts_.in_range(list + len, list + degree, this->ids_) ? expand(u, list + len, list + degree) : 0;
  }
  template <class Expand>
  uint64_t top_down_finish(Expand&, LevelIo&) {
    return 0;
  }
  // Out of line: the cold path of the bottom-up loop, whose code it would otherwise slow down (7% measured).
  [[gnu::noinline]] Id bottom_up_tail(uint64_t v, int p, uint64_t len, const uint64_t* front, uint64_t& scanned) {
    const Id* first = parts_.list(p, this->g_.offsets[v]) + len;
    const Id* last = parts_.list(p, this->g_.offsets[v + 1]);
    const Id* it = first_marked_or_invalid(front, first, last, this->ids_);
    scanned += uint64_t(std::min(it + 1, last) - first);
    if (it == last) return kNoVertex<Id>;
    const Id found = *it;
    if (found < this->ids_) return found;
    parts_.note_bad(it);
    return kNoVertex<Id>;
  }
  uint64_t* deferred_words() { return nullptr; }
  template <class Claim>
  void bottom_up_finish(Claim&, LevelIo&) {}
  void reset() {}
  void check() { parts_.check(); }

 private:
  MappedParts<Id> parts_;
};

}  // namespace strata
