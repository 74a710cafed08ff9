// A bitmap of vertices: one bit per vertex in 64-bit words, so a word is owned by one thread when work is
// split on 64-vertex boundaries (no atomics in bottom-up).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "storage/numa_array.hpp"

namespace strata {

class Bitmap {
 public:
  Bitmap() = default;
  explicit Bitmap(uint64_t bits) : words_((bits + 63) / 64) {}
  // Readable (as zero, never set) up to readable_bits: testing any id below it is a safe load. Bottom-up
  // over lists read in place from a mapping looks up every 32-bit id it finds without a range check.
  Bitmap(uint64_t bits, uint64_t readable_bits) : words_((bits + 63) / 64, (readable_bits + 63) / 64) {}
  uint64_t word_count() const { return words_.size(); }
  uint64_t* words() { return words_.data(); }
  const uint64_t* words() const { return words_.data(); }
  bool test(uint64_t v) const { return (words_[v >> 6] >> (v & 63)) & 1; }
  void set_atomic(uint64_t v) {
    std::atomic_ref<uint64_t>(words_[v >> 6]).fetch_or(uint64_t(1) << (v & 63), std::memory_order_relaxed);
  }
  // Every word zero / the bits set, by the OpenMP team (top-down clears and counts a frontier per level).
  void clear() {
    uint64_t* w = words_.data();
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < words_.size(); ++i) w[i] = 0;
  }
  uint64_t count() const {
    const uint64_t* w = words_.data();
    uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (uint64_t i = 0; i < words_.size(); ++i) total += uint64_t(__builtin_popcountll(w[i]));
    return total;
  }
  void prefer_node(uint64_t first_word, uint64_t last_word, int node) { words_.prefer_node(first_word, last_word, node); }
  void swap(Bitmap& other) { std::swap(words_, other.words_); }
  // Its pages back to the OS (read as zeros when touched again).
  void release() { words_.release(0, words_.size()); }

 private:
  NumaArray<uint64_t> words_;
};

// The first id in [first, last) whose bit is set in words (last if none): bottom-up's parent search, lists
// being sorted highest degree first so that a hit usually comes early.
template <class Id>
inline const Id* first_marked(const uint64_t* words, const Id* first, const Id* last) {
  while (first != last && !((words[*first >> 6] >> (*first & 63)) & 1)) ++first;
  return first;
}

// The first id in [first, last) that is no vertex (>= n), or last: one vectorizable max pass in the common
// case that finds none. For lists read from storage, which can change after they were checked at load.
template <class Id>
inline const Id* first_out_of_range(const Id* first, const Id* last, uint64_t n) {
  Id max = 0;
  for (const Id* it = first; it != last; ++it) max = std::max(max, *it);
  if (max < n) [[likely]] return last;
  const Id* bad = std::find_if(first, last, [&](Id v) { return v >= n; });
  return bad == last ? first : bad;  // changed again meanwhile: report where the list starts
}

// first_marked over entries read in place from storage, which can change under the search: also stops at an
// entry that is no vertex id (>= n), which the caller reports instead of using.
template <class Id>
inline const Id* first_marked_or_invalid(const uint64_t* words, const Id* first, const Id* last, uint64_t n) {
  for (; first != last; ++first) {
    const uint64_t v = *first;
    if (v >= n || ((words[v >> 6] >> (v & 63)) & 1)) break;
  }
  return first;
}

}  // namespace strata
