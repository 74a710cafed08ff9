// The Graph500 pseudo-random number generator: a multiple recursive generator of order 5 modulo 2^31-1
// (L'Ecuyer, Blouin, Couture 1993), with skip-ahead by matrix powers. Bit-identical to the reference 3.0.1.
#pragma once
#include <array>
#include <cstdint>

namespace strata {

inline constexpr uint64_t kMrgModulus = 2147483647;  // p = 2^31 - 1
inline constexpr uint64_t kMrgA1 = 107374182;        // coefficient of z1
inline constexpr uint64_t kMrgA5 = 104480;           // coefficient of z5

// x mod p for x < 2^63, using 2^31 = 1 (mod p).
inline uint64_t mrg_reduce(uint64_t x) {
  x = (x & kMrgModulus) + (x >> 31);
  x = (x & kMrgModulus) + (x >> 31);
  return x >= kMrgModulus ? x - kMrgModulus : x;
}

struct MrgState {
  std::array<uint32_t, 5> z;  // z[0] = z1 (newest) ... z[4] = z5 (oldest)

  // One step; returns the new z1 (the reference's mrg_get_uint_orig).
  uint32_t next() {
    uint32_t fresh = uint32_t(mrg_reduce(kMrgA1 * z[0] + kMrgA5 * z[4]));
    z = {fresh, z[0], z[1], z[2], z[3]};
    return fresh;
  }
  // u1 / p + u2 / p^2 from two consecutive draws (the reference's mrg_get_double_orig).
  double next_double() {
    double hi = next();
    double lo = next();
    return hi * 0.000000000465661287524579692 + lo * 0.0000000000000000002168404346990492787;
  }
  float next_float() { return float(next()) * 0.000000000465661287524579692f; }
  bool operator==(const MrgState&) const = default;
};

// The seed state for the two 64-bit user seeds (default 2, 3).
MrgState mrg_seed(uint64_t seed1, uint64_t seed2);

// A 5x5 matrix over Z/p acting on a state (the step is linear: state' = T * state).
struct MrgMatrix {
  std::array<std::array<uint32_t, 5>, 5> m;
  static MrgMatrix identity();
  static MrgMatrix step();  // T, the companion matrix of one step
  MrgMatrix operator*(const MrgMatrix& rhs) const;
  MrgState apply(const MrgState& s) const;
};

// state advanced by hi*2^128 + mid*2^64 + lo steps (the reference's mrg_skip).
MrgState mrg_skip(const MrgState& s, uint64_t hi, uint64_t mid, uint64_t lo);

// T^(2^64): advances an edge's stream to the next edge's stream.
const MrgMatrix& mrg_edge_stride();

}  // namespace strata
