// CSR offsets in 4 bytes a vertex: a 64-bit base per block of 2^shift vertices plus 32-bit offsets from
// it. Halves the largest O(N) array of the search; kernel 1 builds with plain 64-bit offsets, then packs.
#pragma once
#include <cstdint>
#include <vector>

#include "storage/numa_array.hpp"

namespace strata {

class BlockOffsets {
 public:
  static constexpr int kMaxShift = 12;

  BlockOffsets() = default;
  // full: n + 1 non-decreasing offsets. Uses the largest block size whose blocks each span < 2^32 entries.
  explicit BlockOffsets(const NumaArray<uint64_t>& full) {
    const uint64_t count = full.size();
    for (shift_ = kMaxShift; shift_ > 0 && !fits(full, shift_); --shift_) {
    }
    base_.resize(((count - 1) >> shift_) + 1);
    for (uint64_t b = 0; b < base_.size(); ++b) base_[b] = full[b << shift_];
    rel_ = NumaArray<uint32_t>(count);
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < count; ++v) rel_[v] = uint32_t(full[v] - base_[v >> shift_]);
  }

  uint64_t operator[](uint64_t v) const { return base_[v >> shift_] + rel_[v]; }
  uint64_t size() const { return rel_.size(); }
  uint64_t bytes() const { return rel_.bytes() + base_.size() * sizeof(uint64_t); }
  int block_shift() const { return shift_; }
  void prefer_node(uint64_t begin, uint64_t end, int node) { rel_.prefer_node(begin, end, node); }

 private:
  static bool fits(const NumaArray<uint64_t>& full, int shift) {
    const uint64_t count = full.size(), block = uint64_t(1) << shift;
    for (uint64_t b = 0; b < count; b += block) {
      const uint64_t last = std::min(count, b + block) - 1;
      if (full[last] - full[b] > UINT32_MAX) return false;
    }
    return true;
  }

  int shift_ = kMaxShift;
  std::vector<uint64_t> base_;
  NumaArray<uint32_t> rel_;
};

}  // namespace strata
