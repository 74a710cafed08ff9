// A vertex's kernel-3 state in one 64-bit word, (distance bits, parent), changed by compare-and-swap only to a
// strictly smaller distance (the reference's test): shared by delta-stepping in one process and across ranks,
// so the rule that makes the result exact is written once.
#pragma once
#include <atomic>
#include <bit>
#include <cstdint>

#include "core/ids.hpp"

namespace strata::distance_word {

inline constexpr uint32_t kInfinityBits = 0x7f800000u;  // +inf: above every distance

template <class Id>
inline constexpr uint64_t kUnreached = uint64_t(kInfinityBits) << 32 | uint32_t(kNoVertex<Id>);

// Non-negative floats order as their bits: a word's order is its distance's.
template <class Id>
inline uint64_t pack(float d, Id parent) {
  return uint64_t(std::bit_cast<uint32_t>(d)) << 32 | uint32_t(parent);
}
inline float dist_of(uint64_t s) { return std::bit_cast<float>(uint32_t(s >> 32)); }
template <class Id>
inline Id parent_of(uint64_t s) {
  return Id(uint32_t(s));
}
inline float load_dist(const uint64_t& word) {
  return dist_of(std::atomic_ref(const_cast<uint64_t&>(word)).load(std::memory_order_relaxed));
}

// word := (nd, parent) where nd is strictly smaller than its distance; true when it was. The swap is seq_cst:
// delta_stepping.hpp's tails-done bits are unset after it and set before a reread of the word (x86: the same
// locked instruction as relaxed).
template <class Id>
inline bool improve(uint64_t& word, float nd, Id parent) {
  std::atomic_ref<uint64_t> w(word);
  uint64_t old = w.load(std::memory_order_relaxed);
  const uint64_t want = pack(nd, parent);
  while ((want >> 32) < (old >> 32))
    if (w.compare_exchange_weak(old, want, std::memory_order_seq_cst)) return true;
  return false;
}

// The bucket of width delta that distance d falls in (monotonic in d: fl32 sums never land in an earlier one).
inline uint64_t bucket_of(float d, float delta) { return uint64_t(double(d) / double(delta)); }

}  // namespace strata::distance_word
