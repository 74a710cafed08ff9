#include "generators/mrg.hpp"

#include <cstddef>
#include <vector>

namespace strata {

MrgState mrg_seed(uint64_t seed1, uint64_t seed2) {
  MrgState s;
  s.z[0] = uint32_t((seed1 & 0x3FFFFFFF) + 1);
  s.z[1] = uint32_t(((seed1 >> 30) & 0x3FFFFFFF) + 1);
  s.z[2] = uint32_t((seed2 & 0x3FFFFFFF) + 1);
  s.z[3] = uint32_t(((seed2 >> 30) & 0x3FFFFFFF) + 1);
  s.z[4] = uint32_t(((seed2 >> 60) << 4) + (seed1 >> 60) + 1);
  return s;
}

MrgMatrix MrgMatrix::identity() {
  MrgMatrix r{};
  for (int i = 0; i < 5; ++i) r.m[i][i] = 1;
  return r;
}

MrgMatrix MrgMatrix::step() {
  MrgMatrix t{};
  t.m[0][0] = uint32_t(kMrgA1);
  t.m[0][4] = uint32_t(kMrgA5);
  for (int i = 1; i < 5; ++i) t.m[i][i - 1] = 1;
  return t;
}

MrgMatrix MrgMatrix::operator*(const MrgMatrix& rhs) const {
  MrgMatrix r{};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      uint64_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += mrg_reduce(uint64_t(m[i][k]) * rhs.m[k][j]);
      r.m[i][j] = uint32_t(mrg_reduce(acc));
    }
  return r;
}

MrgState MrgMatrix::apply(const MrgState& s) const {
  MrgState r;
  for (int i = 0; i < 5; ++i) {
    uint64_t acc = 0;
    for (int k = 0; k < 5; ++k) acc += mrg_reduce(uint64_t(m[i][k]) * s.z[k]);
    r.z[i] = uint32_t(mrg_reduce(acc));
  }
  return r;
}

namespace {
// powers[k] = T^(2^k) for k in [0, 192): any skip is a product of these (powers of T commute).
const std::vector<MrgMatrix>& power_table() {
  static const std::vector<MrgMatrix> table = [] {
    std::vector<MrgMatrix> t(192);
    t[0] = MrgMatrix::step();
    for (std::size_t k = 1; k < t.size(); ++k) t[k] = t[k - 1] * t[k - 1];
    return t;
  }();
  return table;
}
}  // namespace

MrgState mrg_skip(const MrgState& s, uint64_t hi, uint64_t mid, uint64_t lo) {
  const auto& powers = power_table();
  MrgState r = s;
  const uint64_t words[3] = {lo, mid, hi};
  for (int w = 0; w < 3; ++w)
    for (int b = 0; b < 64; ++b)
      if ((words[w] >> b) & 1) r = powers[64 * w + b].apply(r);
  return r;
}

const MrgMatrix& mrg_edge_stride() { return power_table()[64]; }

}  // namespace strata
