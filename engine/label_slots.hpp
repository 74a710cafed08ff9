// Where kernel 1 keeps each vertex's internal id for its random lookups: at its Kronecker id (its input label
// before the spec's scramble), so that the ids most tuples look up share a few MiB of cache lines.
#pragma once
#include <cstddef>
#include <cstdint>

#include "generators/kronecker.hpp"

namespace strata {

// A Kronecker id's bits are drawn one a level, each 1 with probability C + D = B + D = 0.24, so a vertex's share of
// the tuples' ends falls with its count of 1 bits: at SCALE 28 the vertices with at most 6 of 28 take 48% of the
// ends. Scrambled, they are 500,000 labels spread over 1 GiB of ids, a cache line each (32 MiB of lines). By
// Kronecker id a line holds 16 neighbouring ids, and its share is that of its high 24 bits: the 55,000 lines (3.4
// MiB) whose high bits hold at most 5 ones take 47% of the lookups, the 190,000 (11.6 MiB) with at most 6, 65%.
// Lookups of 2^27 ends of SCALE 28's tuples into a 1 GiB array, 2 threads, 32 ahead: 9.3-11.6 ns an end by input
// label, 5.5-5.9 by slot. Any bijection would be correct (the tests check the build against an oracle); this one
// keeps the busy ids together for the spec's own tuples, and costs only its arithmetic for any other.
class LabelSlots {
 public:
  explicit LabelSlots(const KroneckerSpec& spec) : s_(Kronecker(spec).scramble_pair()), narrow_(spec.scale <= 32) {}
  uint64_t slot(uint64_t label) const { return s_.unscramble(label); }
  uint64_t label(uint64_t slot) const { return s_.scramble(slot); }
  // The slots of count tuples' ends, in a loop the compiler vectorizes, on 32-bit words where the SCALE allows
  // (twice the lanes: the slots of 2^28 tuples' ends at SCALE 26 cost 0.27 s with 64-bit words, 0.12 s with 32-bit
  // ones, beside a degree count of them).
  void of_ends(const Edge* edges, size_t count, uint64_t* u, uint64_t* v) const {
    if (narrow_) {
      for (size_t j = 0; j < count; ++j) {
        u[j] = s_.unscramble32(uint32_t(edges[j].u));
        v[j] = s_.unscramble32(uint32_t(edges[j].v));
      }
      return;
    }
    for (size_t j = 0; j < count; ++j) {
      u[j] = s_.unscramble(edges[j].u);
      v[j] = s_.unscramble(edges[j].v);
    }
  }
  // The labels of slots [first, first + count).
  void labels_of(uint64_t first, size_t count, uint64_t* out) const {
    for (size_t j = 0; j < count; ++j) out[j] = s_.scramble(first + j);
  }
  // The slots of labels [first, first + count).
  void slots_of(uint64_t first, size_t count, uint64_t* out) const {
    if (narrow_) {
      for (size_t j = 0; j < count; ++j) out[j] = s_.unscramble32(uint32_t(first + j));
      return;
    }
    for (size_t j = 0; j < count; ++j) out[j] = s_.unscramble(first + j);
  }

 private:
  ScramblePair s_;
  bool narrow_;
};

}  // namespace strata
