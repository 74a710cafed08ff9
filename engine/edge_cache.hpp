// The DRAM edge cache of the out-of-core placement (NETALX's on-mem-edges): the first K entries of every
// neighbour list, and whole lists of hubs (degree >= hub_degree). Lists are sorted by neighbour degree, so
// the cached prefix holds a vertex's best parent candidates; the rest of the list (the tail) stays on
// storage at offsets[v] + cached(v). Changing K never rebuilds the on-disk CSR.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "engine/block_offsets.hpp"
#include "engine/csr.hpp"
#include "generators/edge_stream.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace strata {

inline constexpr uint64_t kNoHubs = UINT64_MAX;

inline uint64_t cached_entries(uint64_t degree, uint64_t k, uint64_t hub_degree) {
  return degree >= hub_degree ? degree : std::min(degree, k);
}

// Where the cached prefixes lie in the cache's array: the first entry of every 64th vertex's prefix, the rest
// derived from the degrees (a prefix holds min(degree, K) entries, a hub its whole list). 1/8 byte a vertex
// instead of 4 for offsets: O(N) state is what limits the graphs an out-of-core run can take.
class PrefixIndex {
 public:
  PrefixIndex() = default;
  PrefixIndex(const BlockOffsets& offsets, uint64_t n, uint64_t k, uint64_t hub_degree) : k_(k), hub_(hub_degree) {
    base_.assign((n + 63) / 64 + 1, 0);
    uint64_t sum = 0;
    for (uint64_t v = 0; v < n; ++v) {
      if (v % 64 == 0) base_[v / 64] = sum;
      sum += length(offsets[v + 1] - offsets[v]);
    }
    base_.back() = sum;
  }
  uint64_t length(uint64_t degree) const { return cached_entries(degree, k_, hub_); }  // of a prefix
  uint64_t word_begin(uint64_t w) const { return base_[w]; }  // first entry of vertex 64w's prefix
  // First entry of v's prefix (sums the prefixes of up to 63 lists before v in its word: for sequential use,
  // prefer word_begin and length). Where the word's ends are 16-bit (nearly every vertex) the sum is one
  // vectorized pass over them: kernel 3's sources ask it for each vertex they scan or pull, and a walk of one
  // end after another took a tenth of an out-of-core search (SCALE 24).
  uint64_t begin(uint64_t v, const BlockOffsets& offsets) const {
    uint64_t at = base_[v / 64];
    const uint64_t count = v % 64;
    if (count == 0) return at;
    const BlockOffsets::WordEnds ends = offsets.word(v / 64);
    if (ends.rel) return at + narrow_lengths(ends.rel, count);
    uint64_t start = ends.begin();
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t end = ends(i);
      at += length(end - start);
      start = end;
    }
    return at;
  }
  uint64_t entries() const { return base_.empty() ? 0 : base_.back(); }
  // The prefix lengths of the first `count` lists of a word whose ends are 16 bits from its base (each degree
  // below 2^16, so are K and the hub degree as they apply, and the sum fits 32 bits).
  uint64_t narrow_lengths(const uint16_t* rel, uint64_t count) const {
    const uint32_t k = uint32_t(std::min<uint64_t>(k_, 1 << 16)), hub = uint32_t(std::min<uint64_t>(hub_, 1 << 16));
    auto length32 = [&](uint32_t d) { return d >= hub ? d : std::min(d, k); };
    uint32_t sum = length32(rel[0]);
    for (uint64_t i = 1; i < count; ++i) sum += length32(uint32_t(rel[i]) - uint32_t(rel[i - 1]));
    return sum;
  }
  uint64_t bytes() const { return base_.size() * sizeof(uint64_t); }
  static uint64_t bytes_for(uint64_t n) { return ((n + 63) / 64 + 1) * sizeof(uint64_t); }

 private:
  uint64_t k_ = 0, hub_ = kNoHubs;
  std::vector<uint64_t> base_;
};

// Entry: an id, or (kernel 3 on storage) a NodeWeight: the prefixes of the weighted CSR, light edges first.
template <class Entry>
struct EdgeCache {
  uint64_t k = 0;
  uint64_t hub_degree = kNoHubs;
  PrefixIndex index;  // v's cached entries start at index.begin(v) and number index.length(degree(v))
  NumaArray<Entry> adj;
  uint64_t entries_bytes() const { return adj.bytes(); }
};

// Entries the cache holds with prefix K.
template <class Id>
uint64_t cache_entries(const Csr<Id>& g, uint64_t k, uint64_t hub_degree) {
  uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (uint64_t v = 0; v < g.n; ++v) sum += cached_entries(g.degree(v), k, hub_degree);
  return sum;
}

// The cache's entries for any K from one pass over the degrees: the vertices counted by degree below kDense, the
// longer lists' degrees kept apart. k_for_budget's binary search asks for about log2(max degree) sizes, and a pass
// over every vertex for each was 6.7% of the CPU of a run reusing an on-disk CSR at SCALE 26 (26 passes of 2^26).
class CacheSizes {
 public:
  static constexpr uint64_t kDense = uint64_t(1) << 12;
  template <class Id>
  explicit CacheSizes(const Csr<Id>& g) : CacheSizes(g.n, [&g](uint64_t v) { return g.degree(v); }) {}
  // Of n lists of degree(v) (kernel 1's raw lists, before the CSR exists).
  template <class Degree>
  CacheSizes(uint64_t n, Degree&& degree) : count_(kDense, 0) {
#pragma omp parallel
    {
      std::vector<uint64_t> count(kDense, 0), longer;
#pragma omp for schedule(static) nowait
      for (uint64_t v = 0; v < n; ++v) {
        const uint64_t d = degree(v);
        if (d < kDense) ++count[d];
        else longer.push_back(d);
      }
#pragma omp critical
      {
        for (uint64_t d = 0; d < kDense; ++d) count_[d] += count[d];
        long_.insert(long_.end(), longer.begin(), longer.end());
      }
    }
    for (uint64_t d = kDense; d-- > 0 && max_degree_ == 0;)
      if (count_[d] > 0) max_degree_ = d;
    for (uint64_t d : long_) max_degree_ = std::max(max_degree_, d);
  }
  // cache_entries(g, k, hub_degree) of the graph counted.
  uint64_t entries(uint64_t k, uint64_t hub_degree) const {
    uint64_t sum = 0;
    for (uint64_t d = 1; d < kDense; ++d) sum += count_[d] * cached_entries(d, k, hub_degree);
    for (uint64_t d : long_) sum += cached_entries(d, k, hub_degree);
    return sum;
  }
  // The longest list: the largest K searched. Not vertex 0's: ids are ordered by raw degree (duplicates
  // counted), so after deduplication another list may be longer.
  uint64_t max_degree() const { return max_degree_; }

 private:
  std::vector<uint64_t> count_;  // [d]: vertices of degree d < kDense
  std::vector<uint64_t> long_;   // the degrees from kDense, in no order
  uint64_t max_degree_ = 0;
};

// The longest list of g (every list is whole in the cache from this K).
template <class Id>
uint64_t max_degree(const Csr<Id>& g) {
  uint64_t longest = 0;
#pragma omp parallel for reduction(max : longest)
  for (uint64_t v = 0; v < g.n; ++v) longest = std::max(longest, g.degree(v));
  return longest;
}

// The largest K whose cache fits in `bytes` (K = the longest list's degree means every list is whole); returns false
// when even K = 0 does not fit (the hubs alone exceed it). entry_bytes: an id's, or an id and weight's.
inline bool k_for_budget(const CacheSizes& sizes, uint64_t bytes, uint64_t hub_degree, uint64_t& k, uint64_t entry_bytes) {
  const uint64_t cap = bytes / entry_bytes;
  if (sizes.entries(0, hub_degree) > cap) return false;
  uint64_t lo = 0, hi = sizes.max_degree();
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (sizes.entries(mid, hub_degree) <= cap) lo = mid; else hi = mid - 1;
  }
  k = lo;
  return true;
}
template <class Id>
bool k_for_budget(const Csr<Id>& g, uint64_t bytes, uint64_t hub_degree, uint64_t& k, uint64_t entry_bytes = sizeof(Id)) {
  return k_for_budget(CacheSizes(g), bytes, hub_degree, k, entry_bytes);
}

// The largest K whose cache fits in `budget` beside `io_buffers`; an Error naming the figures when the hubs'
// lists alone do not fit (`whose` hubs: "the" for one process, "this rank's" under mpirun).
template <class Id>
uint64_t k_for_budget_or_refuse(const Csr<Id>& g, uint64_t budget, uint64_t io_buffers, uint64_t hub_degree,
                                const char* whose, uint64_t entry_bytes = sizeof(Id)) {
  uint64_t k = 0;
  if (!k_for_budget(g, budget - io_buffers, hub_degree, k, entry_bytes))
    throw Error(fmt::format("--dram-budget {} cannot hold {} hubs' lists (--hub-degree {}): they need {} plus {} of "
                            "I/O buffers",
                            human_bytes(double(budget)), whose, hub_degree,
                            human_bytes(double(cache_entries(g, 0, hub_degree) * entry_bytes)),
                            human_bytes(double(io_buffers))), Error::kFixSaid);
  return k;
}

// Reads the whole on-disk adjacency once, sequentially (O_DIRECT, 4 MiB requests, each checked against its
// block checksum -- a corrupted or truncated file is found here, before any search), keeping the prefixes.
// Defined in edge_cache.cpp for 32- and 64-bit ids, and for 32-bit ids with weights (Entry = NodeWeight).
template <class Id, class Entry = Id>
EdgeCache<Entry> load_edge_cache(const Csr<Id>& g, const CsrFiles& files, uint64_t k, uint64_t hub_degree,
                                 const std::function<void(uint64_t, uint64_t)>& progress = {});

// The same from mapped partition files (DAX): every block checked in place, in parallel, prefixes copied.
template <class Id, class Entry = Id>
EdgeCache<Entry> load_edge_cache_mapped(const Csr<Id>& g, const CsrFiles& files, const std::vector<const char*>& mapped,
                                        uint64_t k, uint64_t hub_degree);

// `strata tune`'s sweep: the caches of K = 0, 1, 2, 4, 8, 16 and of the K that fills each 1/steps of `room`
// bytes, those that fit, smallest first, each larger than the one before.
struct CacheStep {
  uint64_t k, bytes;
};
template <class Id>
std::vector<CacheStep> cache_sweep(const Csr<Id>& g, uint64_t room, int steps, uint64_t entry_bytes = sizeof(Id)) {
  const CacheSizes sizes(g);
  std::set<uint64_t> ks = {0, 1, 2, 4, 8, 16};
  for (int i = 1; i <= steps; ++i) {
    uint64_t k;
    if (k_for_budget(sizes, room / uint64_t(steps) * uint64_t(i), kNoHubs, k, entry_bytes)) ks.insert(k);
  }
  std::vector<CacheStep> sweep;
  for (uint64_t k : ks) {
    const uint64_t bytes = sizes.entries(k, kNoHubs) * entry_bytes;
    if (bytes <= room && (sweep.empty() || bytes > sweep.back().bytes)) sweep.push_back({k, bytes});
  }
  return sweep;
}

}  // namespace strata
