#include "generators/kronecker.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#if defined(__AVX512F__)
// GCC 12 warns "may be used uninitialized" inside its own AVX-512 intrinsics (their _mm512_undefined_epi32
// pass-through), wherever they inline; GCC 13 no longer does.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace strata {

namespace {

// Initiator A=0.57, B=C=0.19 out of 10000; 3647 = 0x7FFFFFFF mod 10000 (rejection avoids modulo bias).
constexpr uint64_t kB = 1900, kC = 1900, kA = 5700;
constexpr uint64_t kRejectBelow = 3647;

// Edges are drawn in lockstep lanes: one edge's draws form a serial dependency chain, so interleaving
// independent edges keeps the multipliers busy.
constexpr int kLanes = 8;
using Lanes = uint64_t __attribute__((vector_size(kLanes * sizeof(uint64_t))));

// x < c on every lane, as a mask (0 or ~0), for x, c < 2^63: the sign of x - c, by shifts and subtractions
// alone. GCC lowers a comparison of vectors wider than the target's registers (these 512-bit lanes on AVX2) a
// lane at a time through general registers: the level loop ran 12x slower on AVX2 than on AVX-512.
inline Lanes lanes_below(Lanes x, uint64_t c) { return Lanes{} - ((x - c) >> 63); }

// One folding step: x < 2^62 becomes a congruent value < 2^32 (2^31 = 1 mod p).
inline Lanes fold_lanes(Lanes x) { return (x & kMrgModulus) + (x >> 31); }

inline Lanes reduce_lanes(Lanes x) {  // x < 2^35 to [0, p) on every lane
  x = fold_lanes(x);
  return x - (~lanes_below(x, kMrgModulus) & kMrgModulus);
}

// x * c on every lane, for x, c < 2^32: one 32 x 32 -> 64-bit multiply (a generic 64-bit one costs several
// where AVX-512 lacks the widening form GCC would need to see).
inline Lanes mul32(Lanes x, uint64_t c) {
#if defined(__AVX512F__)
  return Lanes(_mm512_maskz_mul_epu32(0xFF, __m512i(x), _mm512_set1_epi64(int64_t(c))));
#elif defined(__AVX2__)
  using Half = uint64_t __attribute__((vector_size(kLanes * sizeof(uint64_t) / 2)));
  const __m256i k = _mm256_set1_epi64x(int64_t(c));
  const Half lo = Half(_mm256_mul_epu32(__m256i(Half(__builtin_shufflevector(x, x, 0, 1, 2, 3))), k));
  const Half hi = Half(_mm256_mul_epu32(__m256i(Half(__builtin_shufflevector(x, x, 4, 5, 6, 7))), k));
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
#else
  return x * c;
#endif
}

inline bool any_lane(Lanes mask) {
  uint64_t any = 0;
  for (int j = 0; j < kLanes; ++j) any |= mask[j];
  return any != 0;
}

// The stream states of kLanes edges: word k of every lane in z[k] (z[0] = z1, the newest; words < p).
struct LaneStreams {
  Lanes z[5];
  MrgState lane(int j) const {
    MrgState s;
    for (int k = 0; k < 5; ++k) s.z[k] = uint32_t(z[k][j]);
    return s;
  }
  // The next draw on every lane (the weight's, after an edge's levels).
  Lanes next_draw() const { return reduce_lanes(fold_lanes(mul32(z[0], kMrgA1) + mul32(z[4], kMrgA5))); }
};

// Every lane's stream times m: five rows of five 31 x 31-bit products; three of them sum below 2^64.
LaneStreams advance(const MrgMatrix& m, const LaneStreams& s) {
  LaneStreams r;
  for (int i = 0; i < 5; ++i) {
    const Lanes head = mul32(s.z[0], m.m[i][0]) + mul32(s.z[1], m.m[i][1]) + mul32(s.z[2], m.m[i][2]);
    const Lanes tail = mul32(s.z[3], m.m[i][3]) + mul32(s.z[4], m.m[i][4]);
    r.z[i] = reduce_lanes(fold_lanes(head) + fold_lanes(tail));
  }
  return r;
}

// The edge stride to the power kLanes: the lanes' step from one batch of edges to the next.
const MrgMatrix& lane_stride() {
  static const MrgMatrix stride = [] {
    MrgMatrix t = MrgMatrix::identity();
    for (int j = 0; j < kLanes; ++j) t = t * mrg_edge_stride();
    return t;
  }();
  return stride;
}

// One batch's endpoints before the scramble, SCALE draws a lane; `rejected` marks lanes that drew below
// kRejectBelow (p ~ 1.7e-6 a draw), which the caller redraws one at a time. z is left after the last draw.
struct Drawn {
  Lanes src, tgt, rejected;
};

// Bits are appended high to low (the reference adds n/2 first). Until src and tgt differ, quadrant (1,0) is
// flipped to (0,1) (clip-and-flip on the diagonal); they stay equal through (0,0) and (1,1) only, so "equal so
// far" is a running mask, not a comparison of the words.
struct PortableLevels {
  static Drawn draw(int scale, LaneStreams& s) {
    Lanes z1 = s.z[0], z2 = s.z[1], z3 = s.z[2], z4 = s.z[3], z5 = s.z[4];
    Lanes src = {}, tgt = {}, rejected = {}, equal = ~Lanes{};
    for (int level = 0; level < scale; ++level) {
      // The words stay only congruent mod p (< 2^32), which shortens the serial chain from level to level;
      // the draw itself is fully reduced off that chain.
      const Lanes folded = fold_lanes(mul32(z1, kMrgA1) + mul32(z5, kMrgA5));
      z5 = z4, z4 = z3, z3 = z2, z2 = z1, z1 = folded;
      const Lanes u = reduce_lanes(folded);
      rejected |= lanes_below(u, kRejectBelow);
      const Lanes v = u - mul32(mul32(u, 3518437209ULL) >> 45, 10000);  // u % 10000, exact for u < 2^32
      const Lanes q1 = lanes_below(v, kB);              // quadrant (0,1); masks are 0 or ~0
      const Lanes below_a = lanes_below(v, kB + kC);    // (0,1) or (1,0)
      const Lanes q3 = ~lanes_below(v, kB + kC + kA);   // (1,1)
      const Lanes q2 = below_a & ~q1;           // (1,0)
      src = (src << 1) - ((q2 & ~equal) | q3);  // a mask is 0 or -1: subtracting it appends its bit
      tgt = (tgt << 1) - (q1 | q3 | (q2 & equal));
      equal &= ~below_a;
    }
    s.z[0] = z1, s.z[1] = z2, s.z[2] = z3, s.z[3] = z4, s.z[4] = z5;
    return {src, tgt, rejected};
  }
  static Lanes bitreverse(Lanes x) { return bitreverse_words(x); }
};

#if defined(__AVX512F__) && defined(__AVX512BW__)
// The same draws with AVX-512's mask registers (a comparison is one instruction, not a compare and a move
// into a vector of 0 / ~0), a running minimum for the rejection test, and GFNI's bit reversal of bytes.
struct Avx512Levels {
  static Drawn draw(int scale, LaneStreams& s) {
    const __m512i a1 = _mm512_set1_epi64(kMrgA1), a5 = _mm512_set1_epi64(kMrgA5),
                  p = _mm512_set1_epi64(kMrgModulus), one = _mm512_set1_epi64(1),
                  magic = _mm512_set1_epi64(3518437209LL), ten_k = _mm512_set1_epi64(10000),
                  b = _mm512_set1_epi64(kB), bc = _mm512_set1_epi64(kB + kC), bca = _mm512_set1_epi64(kB + kC + kA);
    __m512i z1 = __m512i(s.z[0]), z2 = __m512i(s.z[1]), z3 = __m512i(s.z[2]), z4 = __m512i(s.z[3]),
            z5 = __m512i(s.z[4]);
    __m512i src = _mm512_setzero_si512(), tgt = src, lowest = _mm512_set1_epi64(kMrgModulus);
    __mmask8 equal = 0xFF;
    for (int level = 0; level < scale; ++level) {
      __m512i x = _mm512_add_epi64(_mm512_maskz_mul_epu32(0xFF, z1, a1), _mm512_maskz_mul_epu32(0xFF, z5, a5));
      x = _mm512_add_epi64(_mm512_and_si512(x, p), _mm512_srli_epi64(x, 31));  // < 2^32, congruent
      z5 = z4, z4 = z3, z3 = z2, z2 = z1, z1 = x;
      __m512i u = _mm512_add_epi64(_mm512_and_si512(x, p), _mm512_srli_epi64(x, 31));  // <= p + 1
      u = _mm512_min_epu64(u, _mm512_sub_epi64(u, p));                                  // [0, p)
      lowest = _mm512_min_epu64(lowest, u);
      const __m512i v = _mm512_sub_epi64(u, _mm512_maskz_mul_epu32(0xFF, _mm512_srli_epi64(_mm512_maskz_mul_epu32(0xFF, u, magic), 45), ten_k));
      const __mmask8 q1 = _mm512_cmplt_epu64_mask(v, b), below_a = _mm512_cmplt_epu64_mask(v, bc);
      const __mmask8 q3 = _mm512_cmpge_epu64_mask(v, bca), q2 = below_a & ~q1;
      src = _mm512_add_epi64(src, src);
      tgt = _mm512_add_epi64(tgt, tgt);
      src = _mm512_mask_add_epi64(src, __mmask8((q2 & ~equal) | q3), src, one);
      tgt = _mm512_mask_add_epi64(tgt, __mmask8(q1 | q3 | (q2 & equal)), tgt, one);
      equal &= ~below_a;
    }
    s.z[0] = Lanes(z1), s.z[1] = Lanes(z2), s.z[2] = Lanes(z3), s.z[3] = Lanes(z4), s.z[4] = Lanes(z5);
    const __mmask8 rejected = _mm512_cmplt_epu64_mask(lowest, _mm512_set1_epi64(kRejectBelow));
    return {Lanes(src), Lanes(tgt), Lanes(_mm512_movm_epi64(rejected))};
  }
#if defined(__GFNI__)
  static Lanes bitreverse(Lanes x) {  // the bytes of each word reversed, then the bits of each byte
    const __m512i bytes = _mm512_set_epi64(0x08090A0B0C0D0E0FLL, 0x0001020304050607LL, 0x08090A0B0C0D0E0FLL,
                                           0x0001020304050607LL, 0x08090A0B0C0D0E0FLL, 0x0001020304050607LL,
                                           0x08090A0B0C0D0E0FLL, 0x0001020304050607LL);
    const __m512i swapped = _mm512_shuffle_epi8(__m512i(x), bytes);
    return Lanes(_mm512_gf2p8affine_epi64_epi8(swapped, _mm512_set1_epi64(int64_t(0x8040201008040201ULL)), 0));
  }
#else
  static Lanes bitreverse(Lanes x) { return bitreverse_words(x); }
#endif
};
using FastestLevels = Avx512Levels;
#elif defined(__AVX2__)
// The same draws on AVX2 without AVX-512 (AMD Zen 2 and 3, Intel client parts): the lanes as two 256-bit
// halves, each its own dependency chain. GCC compiles the portable code's 512-bit vectors there by moving
// their quarters through the stack and general registers (8.7 s for SCALE 22's kernel 0 against 0.7 s with
// AVX-512). AVX2 compares 64-bit lanes only as signed; every value compared here is below 2^33.
struct Avx2Levels {
  static Drawn draw(int scale, LaneStreams& s) {
    const __m256i a1 = _mm256_set1_epi64x(kMrgA1), a5 = _mm256_set1_epi64x(kMrgA5),
                  p = _mm256_set1_epi64x(kMrgModulus), below_p = _mm256_set1_epi64x(kMrgModulus - 1),
                  magic = _mm256_set1_epi64x(3518437209LL), ten_k = _mm256_set1_epi64x(10000),
                  b = _mm256_set1_epi64x(kB), bc = _mm256_set1_epi64x(kB + kC),
                  bca = _mm256_set1_epi64x(kB + kC + kA - 1), reject = _mm256_set1_epi64x(kRejectBelow);
    __m256i z[5][2], src[2], tgt[2], equal[2];
    for (int k = 0; k < 5; ++k) split(s.z[k], z[k]);
    __m256i rejected = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) src[h] = tgt[h] = _mm256_setzero_si256(), equal[h] = _mm256_set1_epi64x(-1);
    for (int level = 0; level < scale; ++level) {
      for (int h = 0; h < 2; ++h) {
        __m256i x = _mm256_add_epi64(_mm256_mul_epu32(z[0][h], a1), _mm256_mul_epu32(z[4][h], a5));
        x = _mm256_add_epi64(_mm256_and_si256(x, p), _mm256_srli_epi64(x, 31));  // < 2^32, congruent
        z[4][h] = z[3][h], z[3][h] = z[2][h], z[2][h] = z[1][h], z[1][h] = z[0][h], z[0][h] = x;
        // The draw, left unreduced: p and p + 1 stand for 0 and 1, which are rejected either way.
        const __m256i u = _mm256_add_epi64(_mm256_and_si256(x, p), _mm256_srli_epi64(x, 31));  // [0, p + 1]
        const __m256i out_of_range = _mm256_or_si256(_mm256_cmpgt_epi64(reject, u), _mm256_cmpgt_epi64(u, below_p));
        rejected = _mm256_or_si256(rejected, out_of_range);
        const __m256i v = _mm256_sub_epi64(
            u, _mm256_mul_epu32(_mm256_srli_epi64(_mm256_mul_epu32(u, magic), 45), ten_k));  // u % 10000
        const __m256i q1 = _mm256_cmpgt_epi64(b, v), below_a = _mm256_cmpgt_epi64(bc, v);
        const __m256i q3 = _mm256_cmpgt_epi64(v, bca), q2 = _mm256_andnot_si256(q1, below_a);
        // src's bit: (1,0) off the diagonal, or (1,1); tgt's differs from it in (0,1) and (1,0) alone.
        const __m256i src_bit = _mm256_or_si256(_mm256_andnot_si256(equal[h], q2), q3);
        const __m256i tgt_bit = _mm256_xor_si256(src_bit, below_a);
        src[h] = _mm256_sub_epi64(_mm256_add_epi64(src[h], src[h]), src_bit);  // a mask is 0 or -1
        tgt[h] = _mm256_sub_epi64(_mm256_add_epi64(tgt[h], tgt[h]), tgt_bit);
        equal[h] = _mm256_andnot_si256(below_a, equal[h]);
      }
    }
    for (int k = 0; k < 5; ++k) s.z[k] = join(z[k]);
    // Any rejected lane sends the whole batch down the scalar path, so one mask serves both halves.
    const __m256i any[2] = {rejected, rejected};
    return {join(src), join(tgt), join(any)};
  }
  // The bytes of each word reversed, then the bits of each byte through a table of reversed nibbles.
  static Lanes bitreverse(Lanes x) {
    const __m256i bytes = _mm256_set_epi64x(0x08090A0B0C0D0E0FLL, 0x0001020304050607LL, 0x08090A0B0C0D0E0FLL,
                                            0x0001020304050607LL);
    const __m256i low = _mm256_set1_epi8(0x0F);
    const __m256i reversed = _mm256_setr_epi8(0x0, 0x8, 0x4, 0xC, 0x2, 0xA, 0x6, 0xE, 0x1, 0x9, 0x5, 0xD, 0x3, 0xB,
                                              0x7, 0xF, 0x0, 0x8, 0x4, 0xC, 0x2, 0xA, 0x6, 0xE, 0x1, 0x9, 0x5, 0xD,
                                              0x3, 0xB, 0x7, 0xF);
    const __m256i high_reversed = _mm256_slli_epi16(reversed, 4);  // each entry < 16: no carry into the next byte
    __m256i h[2];
    split(x, h);
    for (__m256i& w : h) {
      w = _mm256_shuffle_epi8(w, bytes);
      const __m256i lo = _mm256_and_si256(w, low), hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low);
      w = _mm256_or_si256(_mm256_shuffle_epi8(high_reversed, lo), _mm256_shuffle_epi8(reversed, hi));
    }
    return join(h);
  }
  static void split(Lanes x, __m256i (&h)[2]) { std::memcpy(h, &x, sizeof(x)); }
  static Lanes join(const __m256i (&h)[2]) {
    Lanes x;
    std::memcpy(&x, h, sizeof(x));
    return x;
  }
};
using FastestLevels = Avx2Levels;
#else
using FastestLevels = PortableLevels;
#endif

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


namespace {
uint64_t inverse_mod_2_64(uint64_t odd) {  // Newton's iteration: each step doubles the correct low bits (3 at first)
  uint64_t x = odd;
  for (int i = 0; i < 5; ++i) x *= 2 - odd * x;
  return x;
}
}  // namespace

ScramblePair::ScramblePair(uint64_t v0, uint64_t v1, int scale)
    : val0(v0), val1(v1), add(v0 + v1), inv1(inverse_mod_2_64(v0 | kScrambleOr0)),
      inv2(inverse_mod_2_64(v1 | kScrambleOr1)), mask(scale >= 64 ? ~uint64_t(0) : (uint64_t(1) << scale) - 1),
      shift(64 - scale) {}

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

void Kronecker::generate(uint64_t begin, uint64_t end, Edge* out, float* weights, LaneCode code) const {
  if (code == LaneCode::kPortable) {
    if (weights) generate_lanes<true, PortableLevels>(begin, end, out, weights);
    else generate_lanes<false, PortableLevels>(begin, end, out, nullptr);
  } else {
    if (weights) generate_lanes<true, FastestLevels>(begin, end, out, weights);
    else generate_lanes<false, FastestLevels>(begin, end, out, nullptr);
  }
}

template <bool kWeights, class Levels>
void Kronecker::generate_lanes(uint64_t begin, uint64_t end, Edge* out, float* weights) const {
  if (begin >= end) return;
  const MrgMatrix& stride = mrg_edge_stride();
  LaneStreams start;  // lanes hold consecutive edges
  MrgState s = mrg_skip(seed_, 0, begin, 0);
  for (int j = 0; j < kLanes; ++j, s = stride.apply(s))
    for (int k = 0; k < 5; ++k) start.z[k][j] = s.z[k];

  const int out_shift = 64 - spec_.scale;
  for (uint64_t e = begin; e < end; e += kLanes) {
    LaneStreams z = start;
    const Drawn d = Levels::draw(spec_.scale, z);
    const Lanes src = scramble_words(d.src, val0_, val1_, out_shift, Levels::bitreverse);
    const Lanes tgt = scramble_words(d.tgt, val0_, val1_, out_shift, Levels::bitreverse);
    const int n = int(std::min<uint64_t>(kLanes, end - e));
    for (int j = 0; j < n; ++j) out[e - begin + j] = {src[j], tgt[j]};
    if constexpr (kWeights) {
      const Lanes u = z.next_draw();
      for (int j = 0; j < n; ++j) weights[e - begin + j] = weight_from_draw(uint32_t(u[j]));
    }
    if (any_lane(d.rejected)) [[unlikely]] {
      for (int j = 0; j < n; ++j) {
        MrgState lane = start.lane(j);
        out[e - begin + j] = edge_from_stream(lane);
        if constexpr (kWeights) weights[e - begin + j] = weight_from_draw(lane.next());
      }
    }
    start = advance(lane_stride(), start);
  }
}

}  // namespace strata
