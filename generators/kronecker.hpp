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

inline uint64_t bitreverse64(uint64_t x) {
  x = __builtin_bswap64(x);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  return x;
}

class Kronecker {
 public:
  explicit Kronecker(const KroneckerSpec& spec);
  const KroneckerSpec& spec() const { return spec_; }

  // Writes edges [begin, end) to out[0 .. end-begin).
  void generate(uint64_t begin, uint64_t end, Edge* out) const;
  // The reference's vertex permutation, a bijection on [0, N); inline because it runs twice per edge.
  uint64_t scramble(uint64_t v) const {
    const int shift = 64 - spec_.scale;
    v += val0_ + val1_;
    v *= (val0_ | 0x4519840211493211ULL);
    v = bitreverse64(v) >> shift;
    v *= (val1_ | 0x3050852102C843A5ULL);
    v = bitreverse64(v) >> shift;
    return v;
  }
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
