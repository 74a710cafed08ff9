// The Graph500 Kronecker edge generator (kernel 0), bit-identical to the reference 3.0.1.
// Edge ei depends only on (spec, ei), so any split across threads, chunks or files gives the same list.
#pragma once
#include <cstdint>
#include <string>
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

// The reference's vertex permutation on each word: a bijection on [0, 2^(64 - shift)).
template <class W>
inline W scramble_words(W v, uint64_t val0, uint64_t val1, int shift) {
  v += val0 + val1;
  v *= (val0 | 0x4519840211493211ULL);
  v = bitreverse_words(v) >> shift;
  v *= (val1 | 0x3050852102C843A5ULL);
  v = bitreverse_words(v) >> shift;
  return v;
}

class Kronecker {
 public:
  explicit Kronecker(const KroneckerSpec& spec);
  const KroneckerSpec& spec() const { return spec_; }

  // Writes edges [begin, end) to out[0 .. end-begin).
  void generate(uint64_t begin, uint64_t end, Edge* out) const;
  // The same, split across the OpenMP team (for callers that need one large block in order).
  void generate_parallel(uint64_t begin, uint64_t end, Edge* out) const;
  // The reference's vertex permutation, a bijection on [0, N).
  uint64_t scramble(uint64_t v) const { return scramble_words(v, val0_, val1_, 64 - spec_.scale); }
  uint64_t scramble_val0() const { return val0_; }
  uint64_t scramble_val1() const { return val1_; }

 private:
  // Edge from its stream state, one draw at a time (the lanes' fallback for rejected draws).
  Edge edge_from_stream(MrgState s) const;

  KroneckerSpec spec_;
  MrgState seed_;
  uint64_t val0_, val1_;
};

// The reference's search roots: up to `count` distinct vertices with a non-self-loop edge, in order.
// has_edge(v) says whether vertex v (input label) has an edge other than self-loops.
template <class HasEdge>
std::vector<uint64_t> search_roots(const KroneckerSpec& spec, int count, HasEdge&& has_edge) {
  const uint64_t n = spec.vertex_count();
  const MrgState seed = mrg_seed(spec.seed1, spec.seed2);
  std::vector<uint64_t> roots;
  uint64_t counter = 0;
  while (int(roots.size()) < count && counter <= 2 * n) {
    MrgState s = mrg_skip(seed, 2, 0, 2 * counter);
    double d0 = s.next_double();
    double d1 = s.next_double();
    uint64_t root = uint64_t(int64_t((d0 + d1) * double(n)) % int64_t(n));
    counter += 2;
    bool duplicate = false;
    for (uint64_t r : roots) duplicate |= (r == root);
    if (!duplicate && has_edge(root)) roots.push_back(root);
  }
  return roots;
}

}  // namespace strata
