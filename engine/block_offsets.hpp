// CSR offsets in about 2 bytes a vertex: where lists are short (nearly all vertices, ids being ordered by
// degree) each vertex's list end is 16 bits from a 64-bit base per 64 vertices; where they are long, 32 bits
// from a base per block of up to 4096. The largest O(N) array of a search after the parents; kernel 1 builds
// with plain 64-bit offsets, then packs.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "storage/numa_array.hpp"

namespace strata {

class BlockOffsets {
 public:
  static constexpr int kMaxShift = 12;
  static constexpr uint64_t kWord = 64;  // vertices per base in the 16-bit region: one bitmap word

  // The list ends of the vertices 64w + i, i < 64, for loops that walk a word in order: in the 16-bit region
  // one base and 64 small ends, so a step costs one 2-byte load.
  struct WordEnds {
    uint64_t base;
    const uint16_t* rel;        // null: outside the 16-bit region, ask `all`
    const BlockOffsets* all;
    uint64_t first;             // 64w
    uint64_t begin() const { return rel ? base : (*all)[first]; }
    uint64_t operator()(uint64_t i) const { return rel ? base + rel[i] : (*all)[first + i + 1]; }
  };

  BlockOffsets() = default;
  // full: n + 1 non-decreasing offsets. The 16-bit region starts at split_ (a multiple of 64), after the last
  // word whose lists span 2^16 entries or more. narrow = false keeps 4 bytes everywhere.
  // Off: uint64_t, or uint32_t where the entries' count allows (kernel 1's in-core bounds).
  template <class Off>
  explicit BlockOffsets(const NumaArray<Off>& full, bool narrow = true) {
    const uint64_t n = full.size() - 1;
    split_ = (n + kWord - 1) / kWord * kWord;
    for (uint64_t w = split_ / kWord; narrow && w > 0; --w) {
      const uint64_t first = (w - 1) * kWord;
      if (full[std::min(n, first + kWord)] - full[first] > UINT16_MAX) break;
      split_ = first;
    }
    const uint64_t wide = std::min(split_, n) + 1;  // offsets [0, wide) at 4 bytes
    for (shift_ = kMaxShift; shift_ > 0 && !fits(full, wide, shift_); --shift_) {
    }
    base_.resize(((wide - 1) >> shift_) + 1);
    for (uint64_t b = 0; b < base_.size(); ++b) base_[b] = full[b << shift_];
    rel_ = NumaArray<uint32_t>(wide);
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < wide; ++v) rel_[v] = uint32_t(full[v] - base_[v >> shift_]);
    const uint64_t narrow_vertices = n > split_ ? n - split_ : 0;
    word_base_.resize((narrow_vertices + kWord - 1) / kWord);
    for (uint64_t w = 0; w < word_base_.size(); ++w) word_base_[w] = full[split_ + w * kWord];
    end_ = NumaArray<uint16_t>(narrow_vertices);
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < narrow_vertices; ++i) end_[i] = uint16_t(full[split_ + i + 1] - word_base_[i / kWord]);
  }

  // Starts loading [v] (random lookups prefetch a batch ahead).
  void prefetch(uint64_t v) const {
    if (v <= split_) __builtin_prefetch(rel_.data() + v);
    else __builtin_prefetch(end_.data() + (v - 1 - split_));
  }
  // v's list begins at [v] and ends at [v + 1].
  uint64_t operator[](uint64_t v) const {
    if (v <= split_) return base_[v >> shift_] + rel_[v];
    const uint64_t i = v - 1 - split_;  // the end of v - 1
    return word_base_[i / kWord] + end_[i];
  }
  WordEnds word(uint64_t w) const {
    const uint64_t first = w * kWord;
    if (first < split_) return {0, nullptr, this, first};
    return {word_base_[(first - split_) / kWord], end_.data() + (first - split_), this, first};
  }

  uint64_t size() const { return rel_.size() + end_.size(); }
  uint64_t bytes() const { return rel_.bytes() + end_.bytes() + (base_.size() + word_base_.size()) * sizeof(uint64_t); }
  int block_shift() const { return shift_; }
  uint64_t narrow_from() const { return split_; }  // first vertex of the 16-bit region
  void prefer_node(uint64_t begin, uint64_t end, int node) {
    if (begin < rel_.size()) rel_.prefer_node(begin, std::min<uint64_t>(end, rel_.size()), node);
    if (end > split_ + 1 && end_.size() > 0)
      end_.prefer_node(std::max(begin, split_ + 1) - split_ - 1, std::min<uint64_t>(end - split_ - 1, end_.size()), node);
  }

 private:
  template <class Off>
  bool fits(const NumaArray<Off>& full, uint64_t count, int shift) const {
    const uint64_t block = uint64_t(1) << shift;
    for (uint64_t b = 0; b < count; b += block) {
      const uint64_t last = std::min(count, b + block) - 1;
      if (full[last] - full[b] > UINT32_MAX) return false;
    }
    return true;
  }

  int shift_ = kMaxShift;
  uint64_t split_ = 0;
  std::vector<uint64_t> base_, word_base_;
  NumaArray<uint32_t> rel_;
  NumaArray<uint16_t> end_;  // end_[v - split_] = end of v's list - word_base_[(v - split_) / 64]
};

}  // namespace strata
