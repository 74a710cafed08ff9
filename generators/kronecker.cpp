#include "generators/kronecker.hpp"

#include <algorithm>
#include <utility>

namespace strata {

namespace {


// Initiator A=0.57, B=C=0.19 out of 10000; 3647 = 0x7FFFFFFF mod 10000 (rejection avoids modulo bias).
constexpr uint64_t kB = 1900, kC = 1900, kA = 5700;
constexpr uint64_t kRejectBelow = 3647;

// Edges are drawn in lockstep lanes: one edge's draws form a serial dependency chain, so interleaving
// independent edges keeps the multipliers busy.
constexpr int kLanes = 8;
using Lanes = uint64_t __attribute__((vector_size(kLanes * sizeof(uint64_t))));

// One folding step: x < 2^60 becomes a congruent value < 2^32 (2^31 = 1 mod p).
inline Lanes fold_lanes(Lanes x) { return (x & kMrgModulus) + (x >> 31); }

inline Lanes reduce_lanes(Lanes x) {  // x < 2^33 to [0, p) on every lane
  x = fold_lanes(x);
  return x - (Lanes(x >= kMrgModulus) & kMrgModulus);
}

inline bool any_lane(Lanes mask) {
  uint64_t any = 0;
  for (int j = 0; j < kLanes; ++j) any |= mask[j];
  return any != 0;
}

}  // namespace

std::string KroneckerSpec::check() const {
  if (scale < 1 || scale > 40) return "SCALE must be in 1..40 (got " + std::to_string(scale) + ")";
  if (edgefactor < 1) return "edgefactor must be at least 1";
  if (edgefactor > (uint64_t(1) << (62 - scale))) return "edgefactor too large: edge count overflows";
  return {};
}

Kronecker::Kronecker(const KroneckerSpec& spec) : spec_(spec), seed_(mrg_seed(spec.seed1, spec.seed2)) {
  MrgState s = mrg_skip(seed_, 50, 7, 0);
  uint64_t a = s.next(), b = s.next(), c = s.next(), d = s.next();
  val0_ = a * 0xFFFFFFFFULL + b;
  val1_ = c * 0xFFFFFFFFULL + d;
}


Edge Kronecker::edge_from_stream(MrgState& s) const {
  // The reference's make_one_edge, draw by draw, rejections included.
  uint64_t n = spec_.vertex_count(), src = 0, tgt = 0;
  while (n > 1) {
    uint32_t v = s.next();
    while (v < kRejectBelow) v = s.next();
    v %= 10000;
    const int q = v < kB ? 1 : v < kB + kC ? 2 : v < kB + kC + kA ? 0 : 3;
    int src_off = q / 2, tgt_off = q % 2;
    if (src == tgt && src_off > tgt_off) std::swap(src_off, tgt_off);
    n /= 2;
    src += n * uint64_t(src_off);
    tgt += n * uint64_t(tgt_off);
  }
  return {scramble(src), scramble(tgt)};
}

void Kronecker::generate_parallel(uint64_t begin, uint64_t end, Edge* out, float* weights) const {
  const uint64_t piece = 4096;
#pragma omp parallel for schedule(dynamic, 1)
  for (uint64_t first = begin; first < end; first += piece)
    generate(first, std::min(end, first + piece), out + (first - begin), weights ? weights + (first - begin) : nullptr);
}

void Kronecker::generate(uint64_t begin, uint64_t end, Edge* out, float* weights) const {
  if (weights) generate_lanes<true>(begin, end, out, weights);
  else generate_lanes<false>(begin, end, out, nullptr);
}

template <bool kWeights>
void Kronecker::generate_lanes(uint64_t begin, uint64_t end, Edge* out, float* weights) const {
  if (begin >= end) return;
  const MrgMatrix& stride = mrg_edge_stride();
  MrgMatrix lane_stride = MrgMatrix::identity();
  for (int j = 0; j < kLanes; ++j) lane_stride = lane_stride * stride;

  // start[k][j]: state word k of lane j's edge stream; lanes hold consecutive edges.
  uint32_t start[5][kLanes];
  MrgState s = mrg_skip(seed_, 0, begin, 0);
  for (int j = 0; j < kLanes; ++j, s = stride.apply(s))
    for (int k = 0; k < 5; ++k) start[k][j] = s.z[k];

  const int scale = spec_.scale;
  const int out_shift = 64 - scale;
  for (uint64_t e = begin; e < end; e += kLanes) {
    // z[slot]: the five state words of all lanes as a ring; z1 sits at slot r, z_k at slot (r + k - 1) % 5.
    Lanes z[5];
    for (int k = 0; k < 5; ++k)
      for (int j = 0; j < kLanes; ++j) z[k][j] = start[k][j];
    Lanes src = {}, tgt = {}, rejected = {};
    int r = 0;
    for (int level = 0; level < scale; ++level) {
      const int s5 = (r + 4) % 5;
      // The ring keeps words only congruent mod p (< 2^32), which shortens the serial chain from level to
      // level; the draw itself is fully reduced off that chain.
      const Lanes folded = fold_lanes(kMrgA1 * z[r] + kMrgA5 * z[s5]);
      z[s5] = folded;  // the new z1 replaces the dropped z5
      r = s5;
      const Lanes u = reduce_lanes(folded);
      rejected |= u < kRejectBelow;  // rare (p ~ 1.7e-6 a draw): such batches are redone below
      const Lanes v = u - ((u * 3518437209ULL) >> 45) * 10000;  // u % 10000, exact for u < 2^32
      const Lanes q1 = v < kB;                              // quadrant (0,1); masks are 0 or ~0
      const Lanes q2 = (v >= kB) & (v < kB + kC);           // quadrant (1,0)
      const Lanes q3 = v >= kB + kC + kA;                   // quadrant (1,1)
      const Lanes flip = (src == tgt) & q2;                 // clip-and-flip on the diagonal
      const int shift = scale - 1 - level;
      src += (((q2 | q3) & ~flip) & 1) << shift;
      tgt += ((q1 | q3 | flip) & 1) << shift;
    }
    src = scramble_words(src, val0_, val1_, out_shift);
    tgt = scramble_words(tgt, val0_, val1_, out_shift);
    const int n = int(std::min<uint64_t>(kLanes, end - e));
    for (int j = 0; j < n; ++j) out[e - begin + j] = {src[j], tgt[j]};
    if constexpr (kWeights) {  // the next draw on each lane's stream
      const Lanes u = reduce_lanes(fold_lanes(kMrgA1 * z[r] + kMrgA5 * z[(r + 4) % 5]));
      for (int j = 0; j < n; ++j) weights[e - begin + j] = weight_from_draw(uint32_t(u[j]));
    }
    if (any_lane(rejected)) [[unlikely]] {
      for (int j = 0; j < n; ++j) {
        MrgState lane;
        for (int k = 0; k < 5; ++k) lane.z[k] = start[k][j];
        out[e - begin + j] = edge_from_stream(lane);
        if constexpr (kWeights) weights[e - begin + j] = weight_from_draw(lane.next());
      }
    }

    // Advance every lane by kLanes edges: start = T^(kLanes * 2^64) * start, as one SoA matrix product.
    uint32_t next[5][kLanes];
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < kLanes; ++j) {
        uint64_t acc = 0;
        for (int k = 0; k < 5; ++k) {
          const uint64_t x = uint64_t(lane_stride.m[i][k]) * start[k][j];
          acc += (x & kMrgModulus) + (x >> 31);  // < 2^32 each, so five fit easily
        }
        next[i][j] = uint32_t(mrg_reduce(acc));
      }
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < kLanes; ++j) start[i][j] = next[i][j];
  }
}

}  // namespace strata
