// Kernel 1: builds the search CSR from an edge source in two streaming passes (count, fill), never holding
// the tuple list. Peak memory is the pre-dedup adjacency (2 ids per tuple) + the list bounds (4 bytes a vertex
// to SCALE 26 at edgefactor 16, then 8) + one id array: 8.5 bytes per tuple with 32-bit ids (8.75 beyond SCALE
// 26). Duplicates are then removed and their pages handed back as the compaction sweeps past them.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "engine/csr.hpp"
#include "engine/label_slots.hpp"
#include "engine/memory.hpp"
#include "generators/kronecker.hpp"

namespace strata {

using BuildProgress = std::function<void(const char* phase, uint64_t done, uint64_t total)>;

namespace build_detail {

// Edges are handled in small batches, each a few loops over the batch: the random reads and atomics of one
// loop are prefetched by the loop before, so the misses of a batch overlap instead of queueing.
inline constexpr size_t kBatch = 32;

template <class T>
inline T fetch_add(T& x, T v) {
  return std::atomic_ref<T>(x).fetch_add(v, std::memory_order_relaxed);
}

// fn(j, internal id of edges[j].u, of edges[j].v) for every edge whose ends' slots (su, sv) keep(su, sv) accepts;
// label holds the internal ids by slot (engine/label_slots.hpp). The lookups are random reads of an n-sized array
// (1 GiB at SCALE 28), so they are made apart from fn, a run of edges at a time: one loop computes the run's slots
// (vectorized), one reads the accepted edges' ids into the stack, each kLabelAhead edges after its loads were
// started, then fn takes them. Where fn's own work sat between the loads (a batch of 8 started before the last 8
// were used), its stores and misses left fewer label reads in flight (SCALE 26 in the flagship's regime, 5 rounds
// interleaved: the distribution 50.7 -> 43.6 s, medians).
template <class Id, class Keep, class Fn>
void for_each_labelled_if(std::span<const Edge> edges, const NumaArray<Id>& label, const LabelSlots& slots, Keep&& keep,
                          Fn&& fn) {
  constexpr size_t kRun = 1024, kLabelAhead = 32;
  uint32_t pick[kRun];
  uint64_t su[kRun], sv[kRun];
  Id a[kRun], b[kRun];
  const Id* labels = label.data();
  for (size_t i = 0; i < edges.size(); i += kRun) {
    const size_t end = std::min(edges.size(), i + kRun);
    slots.of_ends(edges.data() + i, end - i, su, sv);
    size_t k = 0;
    for (size_t j = 0; j < end - i; ++j) {  // branch-free: acceptance is random
      pick[k] = uint32_t(j);
      k += bool(keep(su[j], sv[j]));
    }
    for (size_t q = 0; q < k; ++q) {
      if (q + kLabelAhead < k) {
        __builtin_prefetch(labels + su[pick[q + kLabelAhead]]);
        __builtin_prefetch(labels + sv[pick[q + kLabelAhead]]);
      }
      a[q] = labels[su[pick[q]]];
      b[q] = labels[sv[pick[q]]];
    }
    for (size_t q = 0; q < k; ++q) fn(i + size_t(pick[q]), a[q], b[q]);
  }
}

// Lists at least this long are radix sorted: no mispredicted branches. With the digit fitted to the length
// (lsd_digit) the crossover with std::sort lies between 32 ids (21.6 against 14.4 ns an id) and 48 (13.5 against
// 16.7), random 28-bit ids (at 11 bits a pass it lay near 170 ids).
inline constexpr uint64_t kRadixMinLength = 40;

// LSD radix sort of elements by key_of(element), a key below 2^key_bits, up to 11 bits a pass, through a
// caller-owned scratch buffer (ids by default: their own keys).
struct OwnKey {
  template <class T>
  uint64_t operator()(const T& x) const { return uint64_t(x); }
};
// The digit of an LSD sort of len keys of key_bits bits: a pass costs its 2^digit counters (cleared and
// summed) and two touches an element, so a short list takes more, narrower passes. 28-bit ids, ns an element
// (bench: random lists, this machine): 64 ids 54 with 3 passes of 11 bits against 10.7 with 4 of 7; 200 ids
// 19.0 against 6.9; from about 3000 ids the widest digit, as before.
inline constexpr int kMaxDigit = 11;  // a pass's most counters: 2048, 16 KiB (L1)
inline int lsd_digit(size_t len, int key_bits) {
  int passes = (key_bits + kMaxDigit - 1) / kMaxDigit;
  double best = 1e300;
  for (int p = passes; p <= key_bits && p <= 16; ++p) {
    const double cost = p * (double(uint64_t(1) << ((key_bits + p - 1) / p)) + 2.0 * double(len));
    if (cost < best) best = cost, passes = p;
  }
  return (key_bits + passes - 1) / passes;
}
// LSD passes from src through dst; returns which of the two holds the sorted elements.
template <class T, class KeyOf>
T* lsd_passes(T* src, T* dst, size_t len, int key_bits, KeyOf key_of) {
  if (key_bits <= 0) return src;
  const int digit = lsd_digit(len, key_bits);
  const size_t buckets = size_t(1) << digit;
  uint64_t count[size_t(1) << kMaxDigit];
  for (int shift = 0; shift < key_bits; shift += digit) {
    std::fill(count, count + buckets, 0);
    for (size_t i = 0; i < len; ++i) ++count[(key_of(src[i]) >> shift) & (buckets - 1)];
    uint64_t sum = 0;
    for (size_t b = 0; b < buckets; ++b) sum += std::exchange(count[b], sum);
    for (size_t i = 0; i < len; ++i) dst[count[(key_of(src[i]) >> shift) & (buckets - 1)]++] = src[i];
    std::swap(src, dst);
  }
  return src;
}
template <class T, class KeyOf = OwnKey>
void radix_sort(T* a, T* scratch, size_t len, int key_bits, KeyOf key_of = {}) {
  const T* sorted = lsd_passes(a, scratch, len, key_bits, key_of);
  if (sorted != a) std::memcpy(static_cast<void*>(a), sorted, len * sizeof(T));
}
// The same order for an array far larger than the cache: one pass over it by the key's top bits into runs of
// about kCacheRun elements, then each run sorted by the rest while the cache holds it (and its scratch).
// Where every LSD pass went to DRAM, one does (kernel 1's tuple buckets: 5 passes of 53-bit keys).
template <class T, class KeyOf = OwnKey>
void cache_radix_sort(T* a, T* scratch, size_t len, int key_bits, KeyOf key_of = {}) {
  constexpr size_t kCacheRun = (size_t(128) << 10) / sizeof(T);  // 128 KiB, as much scratch beside it, in L2
  int top = 0;
  while (top < 12 && top < key_bits && (len >> top) > kCacheRun) ++top;
  if (top == 0) return radix_sort(a, scratch, len, key_bits, key_of);
  const int shift = key_bits - top;
  std::vector<uint64_t> at(size_t(1) << top, 0);  // run b's next slot; after the pass, its end
  for (size_t i = 0; i < len; ++i) ++at[key_of(a[i]) >> shift];
  uint64_t sum = 0;
  for (uint64_t& c : at) sum += std::exchange(c, sum);
  for (size_t i = 0; i < len; ++i) scratch[at[key_of(a[i]) >> shift]++] = a[i];
  for (size_t b = 0, lo = 0; b < at.size(); lo = at[b++]) {  // by the low bits, back into a's room for the run
    const size_t run = at[b] - lo;
    const T* sorted = lsd_passes(scratch + lo, a + lo, run, shift, key_of);
    if (sorted != a + lo) std::memcpy(static_cast<void*>(a + lo), sorted, run * sizeof(T));
  }
}
template <class T, class KeyOf = OwnKey>
void radix_sort(T* a, size_t len, std::vector<T>& scratch, int key_bits, KeyOf key_of = {}) {
  scratch.resize(len);
  radix_sort(a, scratch.data(), len, key_bits, key_of);
}

}  // namespace build_detail

// Kernel 1's degree count over one chunk of tuples: each end's non-self-loop degree by input label, a batch's
// counters prefetched together (the array is far larger than the caches at the SCALEs that matter). kAtomic:
// whether other threads count into the same array meanwhile.
template <class Id, bool kAtomic = true>
void count_degrees(std::span<const Edge> edges, NumaArray<Id>& degree) {
  using build_detail::kBatch;
  for (size_t i = 0; i < edges.size(); i += kBatch) {
    const size_t nb = std::min(kBatch, edges.size() - i);
    for (size_t j = 0; j < nb; ++j) {
      __builtin_prefetch(&degree[edges[i + j].u], 1);
      __builtin_prefetch(&degree[edges[i + j].v], 1);
    }
    for (size_t j = 0; j < nb; ++j) {
      const Edge& e = edges[i + j];
      if (e.u == e.v) continue;
      if constexpr (kAtomic) {
        build_detail::fetch_add(degree[e.u], Id(1));
        build_detail::fetch_add(degree[e.v], Id(1));
      } else {
        ++degree[e.u];
        ++degree[e.v];
      }
    }
  }
}

// The degree count of one pass over the tuples on the OpenMP team: add() from any of its threads, then finish().
// One shared array costs a locked increment an end and, once the counters outgrow the caches, a DRAM line each
// (SCALE 28: 8.6 G ends into 1 GiB of counters, 57 s of kernel 0's pass). So, by the counters' size:
// - up to kOwnCopiesUpTo (the last-level cache; SCALE 23 with 32-bit ids), while the copies together stay within
//   kOwnCopiesAtMost: each thread counts into its own copy with plain increments, and finish() sums the copies
//   (SCALE 22, 2 threads: 0.57 -> 0.28 s);
// - beyond: each thread stages its ends by block of 2^16 vertices (a 16-bit offset an end; a block's counters fit
//   L2) and counts a block's ends when its staging fills, under the block's lock. All the threads' staging
//   together is a quarter of the counters' bytes, so a line of counters fetched serves 8 / threads increments
//   instead of one: worth it up to 4 threads (2: four a line; SCALE 26, 1.75 GiB cap: 13.0 -> 8.1 s);
// - otherwise one shared array (kShared; also a test's choice).
template <class Id>
class DegreeCount {
 public:
  enum class Mode { kShared, kOwnCopies, kBlocks };
  static constexpr uint64_t kOwnCopiesUpTo = uint64_t(32) << 20;
  static constexpr uint64_t kOwnCopiesAtMost = uint64_t(64) << 20;
  static Mode mode_for(uint64_t counter_bytes, int threads) {
    if (counter_bytes <= kOwnCopiesUpTo)
      return threads > 1 && uint64_t(threads) * counter_bytes <= kOwnCopiesAtMost ? Mode::kOwnCopies : Mode::kShared;
    return staged_a_block(threads) >= 2 * kBlockLines ? Mode::kBlocks : Mode::kShared;
  }

  explicit DegreeCount(NumaArray<Id>& degree) : DegreeCount(degree, mode_for(degree.bytes(), omp_get_max_threads())) {}
  DegreeCount(NumaArray<Id>& degree, Mode mode) : degree_(degree), mode_(mode) {
    const int threads = omp_get_max_threads();
    if (mode_ == Mode::kOwnCopies)
      for (int t = 0; t < threads; ++t) own_.emplace_back(degree.size());
    if (mode_ == Mode::kBlocks) {
      blocks_ = (degree.size() + kBlock - 1) / kBlock;
      staged_ = std::max<uint64_t>(staged_a_block(threads), 1);
      locks_ = std::make_unique<std::atomic<bool>[]>(blocks_);
      for (int t = 0; t < threads; ++t) staging_.push_back({NumaArray<uint16_t>(blocks_ * staged_), std::vector<uint32_t>(blocks_)});
    }
  }

  void add(std::span<const Edge> edges) {
    const size_t t = size_t(omp_get_thread_num());
    const size_t made_for = std::max(own_.size(), staging_.size());
    if (mode_ != Mode::kShared && t >= made_for)  // a larger team than at construction: a caller's bug
      throw Error("internal: a degree count made for " + std::to_string(made_for) + " threads was given thread " +
                  std::to_string(t));
    switch (mode_) {
      case Mode::kShared: return count_degrees(edges, degree_);
      case Mode::kOwnCopies: return count_degrees<Id, false>(edges, own_[t]);
      case Mode::kBlocks: {
        Staging& s = staging_[t];
        for (const Edge& e : edges) {
          if (e.u == e.v) continue;
          stage(s, e.u);
          stage(s, e.v);
        }
      }
    }
  }

  void finish() {
    if (mode_ == Mode::kOwnCopies) {
#pragma omp parallel for schedule(static)
      for (uint64_t v = 0; v < degree_.size(); ++v) {
        Id sum = degree_[v];
        for (const NumaArray<Id>& copy : own_) sum += copy[v];
        degree_[v] = sum;
      }
    }
    if (mode_ == Mode::kBlocks) {
#pragma omp parallel for schedule(dynamic, 16)
      for (uint64_t b = 0; b < blocks_; ++b)
        for (Staging& s : staging_) count_block(s, b);
    }
    own_.clear();
    staging_.clear();
  }

 private:
  static constexpr uint64_t kBlock = uint64_t(1) << 16;  // vertices a block: 256 KiB of 32-bit counters
  static constexpr uint64_t kBlockLines = kBlock * sizeof(Id) / 64;
  // Ends staged a block a thread (2 bytes each): all the threads' staging a quarter of the counters' bytes.
  static uint64_t staged_a_block(int threads) { return kBlock * sizeof(Id) / 4 / 2 / uint64_t(std::max(threads, 1)); }
  struct Staging {
    NumaArray<uint16_t> ends;    // block b's at [b * staged_, + fill[b])
    std::vector<uint32_t> fill;
  };

  void stage(Staging& s, uint64_t end) {
    const uint64_t b = end / kBlock;
    uint32_t& fill = s.fill[b];
    s.ends[b * staged_ + fill] = uint16_t(end % kBlock);
    if (++fill == staged_) count_block(s, b);
  }
  void count_block(Staging& s, uint64_t b) {
    if (s.fill[b] == 0) return;
    std::atomic<bool>& lock = locks_[b];
    while (lock.exchange(true, std::memory_order_acquire))
      while (lock.load(std::memory_order_relaxed)) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      }
    Id* counters = degree_.data() + b * kBlock;
    const uint16_t* ends = s.ends.data() + b * staged_;
    // The block's counters asked for in address order before the increments at random: a staging holds about
    // four ends a line of counters, so the loop spent its time on a miss a line with few in flight.
    const uint64_t lines = (std::min(kBlock, degree_.size() - b * kBlock) * sizeof(Id) + 63) / 64;
    for (uint64_t l = 0; l < lines; ++l) __builtin_prefetch(reinterpret_cast<const char*>(counters) + l * 64, 1);
    const uint32_t count = s.fill[b];  // a local: the counters' stores could otherwise alias it
    for (uint32_t i = 0; i < count; ++i) ++counters[ends[i]];
    lock.store(false, std::memory_order_release);
    s.fill[b] = 0;
  }

  NumaArray<Id>& degree_;
  Mode mode_;
  std::vector<NumaArray<Id>> own_;
  uint64_t blocks_ = 0, staged_ = 0;
  std::unique_ptr<std::atomic<bool>[]> locks_;
  std::vector<Staging> staging_;
};

// Degrees by input label counted as kernel 0 generated (or read) the tuples, so that kernel 1 needs no pass of
// its own for them (the driver's kernel 0 feeds count_degrees; SCALE 28 spec alone: a generation pass, 87 s).
// `seconds`: the counting's share of that pass, which kernel 1's time takes back. The first build takes the
// degrees (`taken`); a second build (kernel 3's CSR beside kernel 2's) counts its own.
struct CountedDegrees {
  NumaArray<uint32_t> narrow;
  NumaArray<uint64_t> wide;
  double seconds = 0;
  bool taken = false;
  template <class Id>
  NumaArray<Id>& of() {
    if constexpr (sizeof(Id) == 4) return narrow;
    else return wide;
  }
  uint64_t held_bytes() const { return narrow.bytes() + wide.bytes(); }
  // What kernel 1 adds to its own time: the count's share when a build took the degrees.
  double taken_seconds() const { return taken ? seconds : 0; }
};
inline double taken_seconds(const CountedDegrees* counted) { return counted ? counted->taken_seconds() : 0; }

// fn(first, count) for runs of up to kRunOfVertices of [0, n) on the OpenMP team: a run's slot arithmetic in one
// loop the compiler vectorizes, its random accesses in the next.
inline constexpr uint64_t kRunOfVertices = 1024;
template <class Fn>
void for_each_run(uint64_t n, Fn&& fn) {
#pragma omp parallel for schedule(static)
  for (uint64_t first = 0; first < n; first += kRunOfVertices) fn(first, std::min(kRunOfVertices, n - first));
}

// The internal ids by input label moved to their slots (engine/label_slots.hpp), in a copy: one parallel pass of
// random writes (4.7-8.5 s at SCALE 28 here; kept by slot, the distribution took 199.7 and 209.6 s against
// 229-281 s by input label in the same hour, bench/README.md). The copy is made while the build holds the raw
// offsets and no more (16 bytes a vertex with the copy, the O(N) that the budget leaves the build), and the
// labels by input label are freed at once.
template <class Id>
NumaArray<Id> to_slots(const NumaArray<Id>& by_label, const LabelSlots& slots) {
  NumaArray<Id> by_slot(by_label.size());
  for_each_run(by_label.size(), [&](uint64_t first, uint64_t count) {
    uint64_t at[kRunOfVertices];
    slots.slots_of(first, count, at);
    for (uint64_t j = 0; j < count; ++j) by_slot[at[j]] = by_label[first + j];
  });
  return by_slot;
}

// Kernel 1's first pass, shared by the in-memory and the external build: counts each input label's
// non-self-loop degree (or takes kernel 0's count), then renumbers by degree (highest first, ties by input label)
// with a stable counting sort done in place, so that label[v] turns from v's degree into v's internal id; then
// moves each id to v's slot (LabelSlots: label[slot(v)], for the random lookups that follow). Returns the raw
// (pre-deduplication) list bounds over internal ids: n + 1 offsets, 64-bit, as they serve as fill cursors.
template <class Id, class Source>
NumaArray<uint64_t> order_by_degree(const Source& source, NumaArray<Id>& label, const BuildProgress& progress,
                                    CountedDegrees* counted = nullptr) {
  const uint64_t n = source.spec().vertex_count();
  const uint64_t m = source.spec().edge_count();
  if (counted && !counted->taken && counted->of<Id>().size() == n) {
    label = std::exchange(counted->of<Id>(), NumaArray<Id>());
    counted->taken = true;
  } else {
    label = NumaArray<Id>(n);
    DegreeCount<Id> count(label);
    std::atomic<uint64_t> done{0};
    source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
      count.add(edges);
      const uint64_t d = done.fetch_add(edges.size(), std::memory_order_relaxed) + edges.size();
      if (progress && omp_get_thread_num() == 0) progress("count", d, m);
    });
    count.finish();
  }

  Id max_degree = 0;
#pragma omp parallel for reduction(max : max_degree)
  for (uint64_t v = 0; v < n; ++v) max_degree = std::max(max_degree, label[v]);
  std::vector<uint64_t> next_slot(uint64_t(max_degree) + 2, 0);
  for (uint64_t v = 0; v < n; ++v) ++next_slot[max_degree - label[v] + 1];
  for (size_t d = 1; d < next_slot.size(); ++d) next_slot[d] += next_slot[d - 1];
  NumaArray<uint64_t> offsets(n + 1);
  for (uint64_t v = 0; v < n; ++v) {
    const Id degree = label[v];
    const uint64_t id = next_slot[max_degree - degree]++;
    label[v] = Id(id);
    offsets[id + 1] = degree;
  }
  for (uint64_t i = 0; i < n; ++i) offsets[i + 1] += offsets[i];
  label = to_slots(label, LabelSlots(source.spec()));
  return offsets;
}

// The internal-to-input label map, from the renumbering (label: internal ids by slot).
template <class Id>
NumaArray<Id> invert_labels(const NumaArray<Id>& label, const LabelSlots& slots) {
  NumaArray<Id> to_input(label.size());
  for_each_run(label.size(), [&](uint64_t first, uint64_t count) {
    uint64_t input[kRunOfVertices];
    slots.labels_of(first, count, input);
    for (uint64_t j = 0; j < count; ++j) to_input[label[first + j]] = Id(input[j]);
  });
  return to_input;
}

// Sorts and deduplicates `count` lists in place: list i is adj[offsets[i] - offsets[0], offsets[i+1] - offsets[0]),
// ids below id_limit. A list that shrank ends with a kNoVertex<Id> sentinel (larger than any id, so it cannot be
// mistaken for a neighbour). Lists come ordered by length (ids are degree-ordered), so the long lists (most
// of the entries) come first: one list at a time with a radix sort, then the short ones with std::sort.
template <class Id, class Off>
void sort_and_dedup_lists(Id* adj, const Off* offsets, uint64_t count, uint64_t id_limit) {
  const uint64_t base = offsets[0];
  uint64_t long_lists = 0, hi = count;  // list lengths do not increase with the id
  while (long_lists < hi) {
    const uint64_t mid = long_lists + (hi - long_lists) / 2;
    if (offsets[mid + 1] - offsets[mid] >= build_detail::kRadixMinLength) long_lists = mid + 1; else hi = mid;
  }
  int key_bits = 1;
  while (key_bits < 64 && (id_limit - 1) >> key_bits) ++key_bits;
#pragma omp parallel
  {
    std::vector<Id> scratch;
    auto dedup = [&](Id* first, Id* last) {
      Id* end = std::unique(first, last);
      if (end != last) *end = kNoVertex<Id>;
    };
#pragma omp for schedule(dynamic, 1) nowait
    for (uint64_t v = 0; v < long_lists; ++v) {
      Id* first = adj + (offsets[v] - base);
      Id* last = adj + (offsets[v + 1] - base);
      build_detail::radix_sort(first, size_t(last - first), scratch, key_bits);
      dedup(first, last);
    }
#pragma omp for schedule(dynamic, 1024)
    for (uint64_t v = long_lists; v < count; ++v) {
      Id* first = adj + (offsets[v] - base);
      Id* last = adj + (offsets[v + 1] - base);
      std::sort(first, last);
      dedup(first, last);
    }
  }
}

// Kernel 1's compaction, for every build (in-core, on-disk ranges, MPI rows): `count` sorted, deduplicated
// lists (list i: adj[raw[i] - raw[0], raw[i + 1] - raw[0]), ended early by a kNoVertex sentinel where one
// shrank) moved to the front of adj in order. on_list(i, start, old_start, kept, removed) follows each move
// (start: the list's new first entry in adj). Returns the entries kept. Lists [first, count) alone, the first
// moved to adj[write] (the lists before it squished already, `write` entries kept): a build that squishes a chunk
// of lists at a time.
template <class Entry, class Off, class OnList>
uint64_t squish_lists(Entry* adj, const Off* raw, uint64_t count, OnList&& on_list, uint64_t first = 0, uint64_t write = 0) {
  using Id = decltype(entry_id(std::declval<Entry>()));
  const uint64_t base = raw[0];
  for (uint64_t i = first; i < count; ++i) {
    const uint64_t old_start = raw[i] - base, len = raw[i + 1] - raw[i];  // raw[i] read before on_list(i) runs
    const Entry* list = adj + old_start;
    const uint64_t kept = uint64_t(std::find_if(list, list + len, [](const Entry& e) { return entry_id(e) == kNoVertex<Id>; }) - list);
    if (write != old_start) std::memmove(adj + write, list, kept * sizeof(Entry));
    on_list(i, write, old_start, kept, len - kept);
    write += kept;
  }
  return write;
}

namespace weighted_sort_detail {

// Two parallel arrays (a list's ids and weights) ordered as pairs, by (a, b).
template <class A, class B>
struct Paired {
  A* a;
  B* b;
  bool less(size_t i, size_t j) const { return a[i] < a[j] || (a[i] == a[j] && b[i] < b[j]); }
  void swap(size_t i, size_t j) const {
    std::swap(a[i], a[j]);
    std::swap(b[i], b[j]);
  }
};

template <class P>
void heap_sort(const P& p, size_t lo, size_t hi) {
  const size_t n = hi - lo;
  auto sift = [&](size_t root, size_t end) {
    for (size_t c; (c = 2 * root + 1) < end; root = c) {
      if (c + 1 < end && p.less(lo + c, lo + c + 1)) ++c;
      if (!p.less(lo + root, lo + c)) return;
      p.swap(lo + root, lo + c);
    }
  };
  for (size_t i = n / 2; i-- > 0;) sift(i, n);
  for (size_t end = n; end-- > 1;) {
    p.swap(lo, lo + end);
    sift(0, end);
  }
}

// [lo, hi) sorted in place: quicksort (median of three, Hoare's partition), heapsort past `depth` levels,
// insertion sort below 16 entries.
template <class P>
void sort_in_place(const P& p, size_t lo, size_t hi, int depth) {
  while (hi - lo > 16) {
    if (depth-- == 0) return heap_sort(p, lo, hi);
    const size_t mid = lo + (hi - lo) / 2;
    if (p.less(mid, lo)) p.swap(mid, lo);
    if (p.less(hi - 1, lo)) p.swap(hi - 1, lo);
    if (p.less(hi - 1, mid)) p.swap(hi - 1, mid);
    p.swap(lo, mid);  // the median is the pivot, at lo while the rest is partitioned
    size_t i = lo, j = hi;
    for (;;) {
      do ++i; while (i < hi && p.less(i, lo));
      do --j; while (p.less(lo, j));
      if (i >= j) break;
      p.swap(i, j);
    }
    p.swap(lo, j);
    if (j - lo < hi - j) {  // the smaller side by recursion, the larger by the loop
      sort_in_place(p, lo, j, depth);
      lo = j + 1;
    } else {
      sort_in_place(p, j + 1, hi, depth);
      hi = j;
    }
  }
  for (size_t i = lo + 1; i < hi; ++i)
    for (size_t k = i; k > lo && p.less(k, k - 1); --k) p.swap(k, k - 1);
}

// A list sorted by (id, weight), deduplicated to each id's first entry (its lightest) and split light first (the
// entries lighter than light_below, then the rest, each part in order) where it lies; returns the entries kept.
// Only the light entries are set aside (about len x delta of them; none for lists by id).
template <class Id, class W>
uint64_t dedup_light_first(Id* ids, W* ws, uint64_t len, W light_below, std::vector<std::pair<Id, W>>& light) {
  uint64_t kept = 0;
  for (uint64_t i = 0; i < len; ++i)
    if (kept == 0 || ids[i] != ids[kept - 1]) {
      ids[kept] = ids[i];
      ws[kept++] = ws[i];
    }
  light.clear();
  for (uint64_t i = 0; i < kept; ++i)
    if (ws[i] < light_below) light.push_back({ids[i], ws[i]});
  if (light.empty()) return kept;
  for (uint64_t i = kept, to = kept; i-- > 0;)  // the heavy ones to the end, in order (to >= i throughout)
    if (!(ws[i] < light_below)) {
      ids[--to] = ids[i];
      ws[to] = ws[i];
    }
  for (size_t k = 0; k < light.size(); ++k) std::tie(ids[k], ws[k]) = light[k];
  return kept;
}

// A 32-bit field's bits in its own order: an id's as they are, a float's with the sign flipped (and the rest too
// where it is negative), so that comparing the bits compares the values.
template <class T>
uint32_t order_bits(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    const uint32_t u = std::bit_cast<uint32_t>(x);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
  } else {
    return uint32_t(x);
  }
}
template <class T>
T from_order_bits(uint32_t u) {
  if constexpr (std::is_floating_point_v<T>) return std::bit_cast<T>(u & 0x80000000u ? u & 0x7fffffffu : ~u);
  else return T(u);
}

// A pair of 32-bit fields as one key ordered as the pair is, a's bits high.
template <class A, class B>
uint64_t pair_key(A a, B b) {
  return uint64_t(order_bits(a)) << 32 | order_bits(b);
}
inline constexpr uint64_t kPairRadixMin = 512;
// keys[0, len) sorted, keys[len, 2 len) its scratch: radix sorted from kPairRadixMin keys, 11 bits a pass over
// their span from the least (5-6 passes for a list's pairs), std::sort below.
inline void sort_keys(uint64_t* keys, uint64_t len) {
  if (len < kPairRadixMin) return std::sort(keys, keys + len);
  uint64_t least = UINT64_MAX, most = 0;
  for (uint64_t i = 0; i < len; ++i) least = std::min(least, keys[i]), most = std::max(most, keys[i]);
  build_detail::radix_sort(keys, keys + len, len, std::max(1, int(std::bit_width(most - least))),
                           [least](uint64_t k) { return k - least; });
}

// One list of two parallel arrays sorted as pairs by (a, b): as one 64-bit key an entry (a's bits high) in a
// thread's scratch (sort_keys) or where it lies when longer than kScratchEntries (the hubs: their copies, 1.1 MB at
// SCALE 20, were resident beside the raw adjacency at kernel 1's peak; sorted in place, the few longest cost no
// measurable time). Keys, not pairs: a pair's comparison branches twice, and kernel 3's two sorts (by id for
// the duplicates, by weight for the stages) were half of its in-core kernel 1 (SCALE 22).
inline constexpr uint64_t kScratchEntries = uint64_t(1) << 15;
template <class A, class B>
void sort_list(A* a, B* b, uint64_t len, std::vector<uint64_t>& scratch) {
  // 64-bit ids (no kernel 3 runs on them; the weighted build is instantiated for them all the same): in place.
  constexpr bool kKeyed = sizeof(A) == 4 && sizeof(B) == 4;
  if (!kKeyed || len > kScratchEntries) return sort_in_place(Paired<A, B>{a, b}, 0, len, 2 * std::bit_width(len));
  if constexpr (kKeyed) {
    scratch.resize(2 * len);
    uint64_t* keys = scratch.data();
    for (uint64_t i = 0; i < len; ++i) keys[i] = pair_key(a[i], b[i]);
    sort_keys(keys, len);
    for (uint64_t i = 0; i < len; ++i) {
      a[i] = from_order_bits<A>(uint32_t(keys[i] >> 32));
      b[i] = from_order_bits<B>(uint32_t(keys[i]));
    }
  }
}

// A list of (id, weight) entries of 32-bit ids as keys in `scratch`: sorted by (id, weight), each neighbour's
// lightest copy kept and rekeyed (weight, id), sorted again and written back; returns the entries kept.
template <class Id>
uint64_t dedup_by_weight_as_keys(NodeWeight<Id>* list, uint64_t len, std::vector<uint64_t>& scratch) {
  static_assert(sizeof(Id) == 4, "an entry as one 64-bit key");
  scratch.resize(2 * len);
  uint64_t* keys = scratch.data();
  for (uint64_t k = 0; k < len; ++k) keys[k] = pair_key(list[k].v, list[k].w);
  sort_keys(keys, len);
  uint64_t kept = 0;
  for (uint64_t k = 0; k < len; ++k)  // an id's first key is its lightest copy
    if (kept == 0 || keys[k] >> 32 != uint32_t(keys[kept - 1])) keys[kept++] = keys[k] << 32 | keys[k] >> 32;
  sort_keys(keys, kept);
  for (uint64_t k = 0; k < kept; ++k)
    list[k] = {from_order_bits<Id>(uint32_t(keys[k])), from_order_bits<float>(uint32_t(keys[k] >> 32))};
  return kept;
}

}  // namespace weighted_sort_detail

// The weighted lists' sort: each list by (id, weight), so that deduplication keeps each neighbour's lightest
// copy; a list that shrank ends with a kNoVertex<Id> sentinel, like sort_and_dedup_lists'. With light_below > 0,
// the entries lighter than it are written first, then the rest (Csr::light_below): kernel 3's light rounds
// then read a list's first entries instead of testing every weight (in-core SCALE 20: the light rounds were a
// quarter of a search, reading every reached list's weights once more).
template <class Id, class W, class Off>
void sort_and_dedup_weighted_lists(Id* adj, W* weights, const Off* offsets, uint64_t count, W light_below = W(0)) {
#pragma omp parallel
  {
    std::vector<uint64_t> scratch;
    std::vector<std::pair<Id, W>> light;
#pragma omp for schedule(dynamic, 64)
    for (uint64_t v = 0; v < count; ++v) {
      const uint64_t first = offsets[v], len = offsets[v + 1] - first;
      Id* ids = adj + first;
      W* ws = weights + first;
      weighted_sort_detail::sort_list(ids, ws, len, scratch);
      const uint64_t kept = weighted_sort_detail::dedup_light_first(ids, ws, len, light_below, light);
      if (kept < len) ids[kept] = kNoVertex<Id>;
    }
  }
}

// Kernel 3's in-core lists reordered by (weight, id) where they lie, once kernel 2 and the certificate are done
// with them by id (the bottom-up's hubs first, the lookups' binary searches): a search in stages then stops each
// scan at its cut (sssp/weighted_sources.hpp's InCoreByWeight). Only a permutation within each list, and checked
// as one: each list's entries hashed as a set before and after must agree, so the certified graph is the searched.
template <class Id, class W, class Offsets>
void order_lists_by_weight(Id* adj, W* weights, const Offsets& offsets, uint64_t count) {
  auto hashed = [](const Id* ids, const W* ws, uint64_t len) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < len; ++i) {
      uint64_t x = (uint64_t(ids[i]) << 32 ^ std::bit_cast<uint32_t>(ws[i])) * 0x9e3779b97f4a7c15ull;
      sum += x ^ (x >> 29);
    }
    return sum;
  };
  std::atomic<uint64_t> broken{UINT64_MAX};
#pragma omp parallel
  {
    std::vector<uint64_t> scratch;
#pragma omp for schedule(dynamic, 64)
    for (uint64_t v = 0; v < count; ++v) {
      const uint64_t first = offsets[v], len = offsets[v + 1] - first;
      Id* ids = adj + first;
      W* ws = weights + first;
      const uint64_t before = hashed(ids, ws, len);
      weighted_sort_detail::sort_list(ws, ids, len, scratch);
      if (hashed(ids, ws, len) != before) broken.store(v, std::memory_order_relaxed);
    }
  }
  if (broken.load() != UINT64_MAX)
    throw Error("internal error: vertex " + std::to_string(broken.load()) + "'s list changed while ordered by weight");
}

// The on-disk weighted lists' sort (kernel 3 on storage): each list deduplicated to its neighbours' lightest
// copies, then ordered by (weight, id), light edges first; a list that shrank ends with a sentinel entry.
template <class Id>
void sort_and_dedup_lists_by_weight(NodeWeight<Id>* adj, const uint64_t* offsets, uint64_t count) {
  const uint64_t base = offsets[0];
  auto by_id = [](const NodeWeight<Id>& a, const NodeWeight<Id>& b) { return a.v != b.v ? a.v < b.v : a.w < b.w; };
  auto by_weight = [](const NodeWeight<Id>& a, const NodeWeight<Id>& b) { return a.w != b.w ? a.w < b.w : a.v < b.v; };
#pragma omp parallel
  {
    std::vector<uint64_t> scratch;
#pragma omp for schedule(dynamic, 64)
    for (uint64_t i = 0; i < count; ++i) {
      NodeWeight<Id>* first = adj + (offsets[i] - base);
      NodeWeight<Id>* last = adj + (offsets[i + 1] - base);
      NodeWeight<Id>* end = nullptr;
      if constexpr (sizeof(Id) == 4)
        if (uint64_t(last - first) <= weighted_sort_detail::kScratchEntries)
          end = first + weighted_sort_detail::dedup_by_weight_as_keys(first, uint64_t(last - first), scratch);
      if (!end) {  // a hub's list (or 64-bit ids) where it lies
        std::sort(first, last, by_id);
        end = std::unique(first, last, [](const NodeWeight<Id>& a, const NodeWeight<Id>& b) { return a.v == b.v; });
        std::sort(first, end, by_weight);
      }
      if (end != last) *end = {kNoVertex<Id>, 0.0f};
    }
  }
}

namespace build_detail {

// Kernel 1's second pass and the rest, over list bounds of type Off (offsets: n + 1 raw list starts over internal
// ids): scatter both directions of every tuple, offsets[v] serving as v's cursor, then sort, deduplicate and
// compact the lists into g.
template <class Id, class W, class Off, class Source>
void fill_lists(const Source& source, const NumaArray<Id>& label, NumaArray<Off>& offsets, Csr<Id, W>& g,
                const BuildProgress& progress) {
  const LabelSlots slots(source.spec());
  constexpr bool kWeighted = !std::is_void_v<W>;
  const uint64_t n = g.n;
  const uint64_t m = source.spec().edge_count();
  std::atomic<uint64_t> done{0};
  g.adj = NumaArray<Id>(offsets[n]);
  if constexpr (kWeighted) g.weights = NumaArray<W>(offsets[n]);
  auto scatter = [&](std::span<const Edge> edges, [[maybe_unused]] const float* weight) {
    Id a[kBatch], b[kBatch];
    uint64_t su[kBatch], sv[kBatch];
    for (size_t i = 0; i < edges.size(); i += kBatch) {
      const size_t nb = std::min(kBatch, edges.size() - i);
      slots.of_ends(edges.data() + i, nb, su, sv);
      for (size_t j = 0; j < nb; ++j) {
        __builtin_prefetch(&label[su[j]]);
        __builtin_prefetch(&label[sv[j]]);
      }
      for (size_t j = 0; j < nb; ++j) {
        a[j] = label[su[j]];
        b[j] = su[j] == sv[j] ? kNoVertex<Id> : label[sv[j]];
        __builtin_prefetch(&offsets[a[j]], 1);
        __builtin_prefetch(&offsets[b[j] == kNoVertex<Id> ? a[j] : b[j]], 1);
      }
      // The writes' lines too: each lands at random in the adjacency, and a cursor read early is close enough.
      for (size_t j = 0; j < nb; ++j) {
        if (b[j] == kNoVertex<Id>) continue;
        const Off at_a = std::atomic_ref<Off>(offsets[a[j]]).load(std::memory_order_relaxed);
        const Off at_b = std::atomic_ref<Off>(offsets[b[j]]).load(std::memory_order_relaxed);
        __builtin_prefetch(&g.adj[at_a], 1);
        __builtin_prefetch(&g.adj[at_b], 1);
        if constexpr (kWeighted) {  // the weights land as much at random: a miss each unless fetched with the ids
          __builtin_prefetch(&g.weights[at_a], 1);
          __builtin_prefetch(&g.weights[at_b], 1);
        }
      }
      for (size_t j = 0; j < nb; ++j) {
        if (b[j] == kNoVertex<Id>) continue;  // a self-loop
        const Off at_a = fetch_add(offsets[a[j]], Off(1));
        const Off at_b = fetch_add(offsets[b[j]], Off(1));
        g.adj[at_a] = b[j];
        g.adj[at_b] = a[j];
        if constexpr (kWeighted) g.weights[at_a] = g.weights[at_b] = W(weight[i + j]);
      }
    }
    const uint64_t d = done.fetch_add(edges.size(), std::memory_order_relaxed) + edges.size();
    if (progress && omp_get_thread_num() == 0) progress("fill", d, m);
  };
  if constexpr (kWeighted)
    source.for_each_weighted_chunk([&](uint64_t, std::span<const Edge> e, std::span<const float> w) { scatter(e, w.data()); });
  else
    source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> e) { scatter(e, nullptr); });
  std::memmove(offsets.data() + 1, offsets.data(), n * sizeof(Off));
  offsets[0] = 0;

  if constexpr (kWeighted) sort_and_dedup_weighted_lists(g.adj.data(), g.weights.data(), offsets.data(), n, W(g.light_below));
  else sort_and_dedup_lists(g.adj.data(), offsets.data(), n, n);

  // Compact left in one sweep, handing back the pages behind it as it goes; the old list bounds give the
  // number of duplicates removed.
  g.duplicates = NumaArray<uint8_t>(n);
  uint64_t released = 0;
  const uint64_t write = squish_lists(g.adj.data(), offsets.data(), n, [&](uint64_t v, uint64_t start, uint64_t old_start,
                                                                            uint64_t kept, uint64_t removed) {
    if constexpr (kWeighted)
      if (start != old_start) std::memmove(g.weights.data() + start, g.weights.data() + old_start, kept * sizeof(W));
    offsets[v] = Off(start);
    Csr<Id, W>::note_duplicates(g.duplicates[v], g.many_duplicates, v, removed);
    const uint64_t end = start + kept, old_end = old_start + kept + removed;
    // Dead space [end, old_end) back to the OS a million entries at a time (2^22 kept 1 MB more resident at the
    // start of the compaction, kernel 1's in-core peak, with no measurable gain in time).
    if (old_end - released > (uint64_t(1) << 20)) {
      g.adj.release(end, old_end);
      if constexpr (kWeighted) g.weights.release(end, old_end);
      released = old_end;
    }
  });
  offsets[n] = Off(write);
  g.adj.shrink(write);
  if constexpr (kWeighted) g.weights.shrink(write);

  // 4-byte offsets in-core: 2-byte ones measured 0.95 of the TEPS, and the adjacency dominates memory here.
  g.offsets = BlockOffsets(offsets, /*narrow=*/false);
}

}  // namespace build_detail

// Source: spec() and for_each_edge_chunk(fn(first, span<const Edge>)) (GeneratedEdges, GraphDir); weighted (W
// not void), for_each_weighted_chunk(fn(first, span<const Edge>, span<const float>)) too. A weighted build holds
// a weight beside each pre-dedup entry: 16.5 bytes a tuple at its peak with 32-bit ids and float weights.
// The list bounds are 32-bit while the entries' count allows (to SCALE 26 at edgefactor 16): 4 bytes a vertex
// less at the peak, and the scatter's cursors half the random footprint.
// light_below (weighted): the lists' light part (Csr::light_below), 0 for lists by id.
template <class Id, class W = void, class Source>
Csr<Id, W> build_csr(const Source& source, const BuildProgress& progress = {}, CountedDegrees* counted = nullptr,
                     float light_below = 0) {
  const uint64_t n = source.spec().vertex_count();
  Csr<Id, W> g;
  g.n = n;
  if constexpr (!std::is_void_v<W>) g.light_below = light_below;
  NumaArray<Id> label;  // internal id of each vertex, by slot (LabelSlots)
  NumaArray<uint64_t> offsets = order_by_degree<Id>(source, label, progress, counted);
  if (build_bound_bytes(offsets[n]) == 4) {
    NumaArray<uint32_t> narrow(n + 1);
    for (uint64_t v = 0; v <= n; ++v) narrow[v] = uint32_t(offsets[v]);
    offsets = NumaArray<uint64_t>();
    build_detail::fill_lists(source, label, narrow, g, progress);
  } else {
    build_detail::fill_lists(source, label, offsets, g, progress);
  }
  g.to_input = invert_labels(label, LabelSlots(source.spec()));
  return g;
}

}  // namespace strata
