// The Graph500 Kronecker edge generator (kernel 0), bit-identical to the reference 3.0.1.
// Edge ei depends only on (spec, ei), so any split across threads, chunks or files gives the same list.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "generators/mrg.hpp"

namespace strata {

struct KroneckerSpec {
  int scale = 16;
  uint64_t edgefactor = 16;
  uint64_t seed1 = 2;
  uint64_t seed2 = 3;

  uint64_t vertex_count() const { return uint64_t(1) << scale; }
  uint64_t edge_count() const { return edgefactor << scale; }
  // Empty when valid, else a one-line reason (SCALE outside 1..40, edgefactor 0, edge count overflow).
  std::string check() const;
};

struct Edge {
  uint64_t u, v;
};

// Kernel 3's weight of a tuple from its draw u in [0, 2^31 - 1): the reference's mrg_get_float_orig, a float
// product in double, rounded to float: fl32((double)fl32(u) * 0x1.00000002p-31), in [0, 1] (SSSP.md 1.1).
// Written as the reference writes it. (Over the integer draws, fl32(u) * 2^-31 in float happens to give the same
// bits -- checked for every u on 2026-11-23 -- but not over every float, which SSSP.md counts.)
inline float weight_from_draw(uint32_t u) {
  constexpr double kScale = .000000000465661287524579692;  // the reference's literal
  static_assert(kScale == 0x1.00000002p-31);
  return float(double(float(u)) * kScale);
}

// Reverses the bits of each 64-bit word; W is uint64_t or a vector of them (GCC vector extension), so
// the lanes of the generator and the scalar paths share one definition.
template <class W>
inline W bitreverse_words(W x) {
  x = (x >> 32) | (x << 32);
  x = ((x >> 16) & 0x0000FFFF0000FFFFULL) | ((x & 0x0000FFFF0000FFFFULL) << 16);
  x = ((x >> 8) & 0x00FF00FF00FF00FFULL) | ((x & 0x00FF00FF00FF00FFULL) << 8);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  return x;
}

// The permutation's multipliers are its seeds' words or-ed with these (odd, so each multiply is invertible).
inline constexpr uint64_t kScrambleOr0 = 0x4519840211493211ULL, kScrambleOr1 = 0x3050852102C843A5ULL;

// The reference's vertex permutation on each word: a bijection on [0, 2^(64 - shift)). `reverse` reverses the
// bits of each word (the generator's lanes pass GFNI's where the build has it).
template <class W, class Reverse = W (*)(W)>
inline W scramble_words(W v, uint64_t val0, uint64_t val1, int shift, Reverse reverse = bitreverse_words<W>) {
  v += val0 + val1;
  v *= (val0 | kScrambleOr0);
  v = reverse(v) >> shift;
  v *= (val1 | kScrambleOr1);
  v = reverse(v) >> shift;
  return v;
}

// The reference's vertex permutation and its inverse on [0, 2^scale), as plain data for loops the compiler
// vectorizes. The permutation is R(M2 * R(M1 * (v + c))) mod 2^scale, R reversing the low scale bits (the
// bits above them never reach the result), so the inverse is M1^-1 * R(M2^-1 * R(x)) - c. Kernel 1 keeps its
// per-vertex arrays by the inverse (engine/label_slots.hpp).
// Up to SCALE 32 the arithmetic mod 2^scale fits 32-bit words (twice the lanes a vector): unscramble32.
struct ScramblePair {
  uint64_t val0 = 0, val1 = 0, add = 0, inv1 = 0, inv2 = 0, mask = 0;
  int shift = 64;
  ScramblePair() = default;
  ScramblePair(uint64_t v0, uint64_t v1, int scale);
  uint64_t scramble(uint64_t v) const { return scramble_words(v, val0, val1, shift); }
  uint64_t unscramble(uint64_t x) const {
    const uint64_t y = inv2 * (bitreverse_words(x) >> shift);
    return (inv1 * (bitreverse_words(y) >> shift) - add) & mask;
  }
  uint32_t unscramble32(uint32_t x) const {  // scale <= 32
    const int s = shift - 32;
    const uint32_t y = uint32_t(inv2) * (bitreverse32(x) >> s);
    return (uint32_t(inv1) * (bitreverse32(y) >> s) - uint32_t(add)) & uint32_t(mask);
  }
  static uint32_t bitreverse32(uint32_t x) {
    x = (x >> 16) | (x << 16);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    return ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  }
};

// Which code draws the generator's lanes: the fastest this build has (AVX-512 where the compiler targets it, else
// AVX2), or the portable one (GCC vector extensions); all give the same edges, which the tests check.
enum class LaneCode { kFastest, kPortable };

class Kronecker {
 public:
  explicit Kronecker(const KroneckerSpec& spec);
  const KroneckerSpec& spec() const { return spec_; }

  // Writes edges [begin, end) to out[0 .. end-begin), and with `weights` their kernel-3 weights to
  // weights[0 .. end-begin): the draw after each tuple's endpoint draws on its own substream (SSSP.md 1.1), so
  // the edges are the same with or without them and a BFS-only caller pays nothing.
  void generate(uint64_t begin, uint64_t end, Edge* out, float* weights = nullptr,
                LaneCode code = LaneCode::kFastest) const;
  // The same, split across the OpenMP team (for callers that need one large block in order).
  void generate_parallel(uint64_t begin, uint64_t end, Edge* out, float* weights = nullptr) const;
  // The reference's vertex permutation, a bijection on [0, N).
  uint64_t scramble(uint64_t v) const { return scramble_words(v, val0_, val1_, 64 - spec_.scale); }
  uint64_t scramble_val0() const { return val0_; }
  uint64_t scramble_val1() const { return val1_; }
  ScramblePair scramble_pair() const { return ScramblePair(val0_, val1_, spec_.scale); }

 private:
  // Edge from its stream state, one draw at a time (the lanes' fallback for rejected draws); the stream is
  // left after the edge's last draw (the weight's draw is next).
  Edge edge_from_stream(MrgState& s) const;
  template <bool kWeights, class Levels>
  void generate_lanes(uint64_t begin, uint64_t end, Edge* out, float* weights) const;

  KroneckerSpec spec_;
  MrgState seed_;
  uint64_t val0_, val1_;
};

// The reference's search roots: up to `count` distinct vertices with a non-self-loop edge, in order (fewer
// where its 2N draws find no more). has_edge(v) says whether vertex v (input label) has an edge other than
// self-loops. A draw is checked against the roots so far in a hash set, not a scan: 100,000 roots at SCALE 20
// took 4.5 s with the scan, and --roots allows a million.
template <class HasEdge>
std::vector<uint64_t> search_roots(const KroneckerSpec& spec, int count, HasEdge&& has_edge) {
  const uint64_t n = spec.vertex_count();
  const MrgState seed = mrg_seed(spec.seed1, spec.seed2);
  std::vector<uint64_t> roots;
  std::unordered_set<uint64_t> chosen;
  uint64_t counter = 0;
  while (int(roots.size()) < count && counter <= 2 * n) {
    MrgState s = mrg_skip(seed, 2, 0, 2 * counter);
    double d0 = s.next_double();
    double d1 = s.next_double();
    uint64_t root = uint64_t(int64_t((d0 + d1) * double(n)) % int64_t(n));
    counter += 2;
    if (has_edge(root) && chosen.insert(root).second) roots.push_back(root);
  }
  return roots;
}

}  // namespace strata
