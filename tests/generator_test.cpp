// The generator must reproduce the Graph500 reference 3.0.1 bit for bit: every column of GRAPH500.md section 6
// (the fnv1a64 column as corrected on 2026-11-22).
#include <gtest/gtest.h>

#include <ostream>

#include <atomic>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "generators/edge_digest.hpp"
#include "generators/edge_stream.hpp"
#include "generators/kronecker.hpp"

namespace strata {
namespace {

struct Vector {
  int scale;
  uint64_t seed1, seed2;
  uint64_t self_loops;
  uint64_t fnv;
  Edge first[2];
  uint64_t roots[4];
};
// What ctest's listing shows after "GetParam() =" (gtest would print the struct's bytes).
void PrintTo(const Vector& v, std::ostream* os) { *os << "SCALE " << v.scale << " seeds " << v.seed1 << "," << v.seed2; }

const Vector kVectors[] = {
    {10, 2, 3, 144, 0xb43b86c980db5ae1ULL, {{299, 797}, {684, 861}}, {458, 214, 220, 966}},
    {12, 2, 3, 208, 0x3fe96141d33234f6ULL, {{2477, 2850}, {684, 2881}}, {1834, 858, 881, 504}},
    {14, 2, 3, 326, 0x7e303268181e3065ULL, {{14207, 9077}, {5452, 10379}}, {7337, 3434, 3526, 2016}},
    {16, 2, 3, 491, 0x0b73eebcb307738bULL, {{53430, 37000}, {16463, 33235}}, {29348, 8064, 61854, 29808}},
    {10, 1, 1, 146, 0xf16f977291b2a7b1ULL, {{965, 68}, {919, 224}}, {981, 643, 922, 225}},
};

class GeneratorVectors : public ::testing::TestWithParam<Vector> {};

TEST_P(GeneratorVectors, DigestFirstEdgesAndRootsMatchReference) {
  const Vector& t = GetParam();
  Kronecker gen({t.scale, 16, t.seed1, t.seed2});
  EdgeListDigest d = digest_edge_list(gen);
  EXPECT_EQ(d.edges, uint64_t(16) << t.scale);
  EXPECT_EQ(d.self_loops, t.self_loops);
  EXPECT_EQ(d.fnv1a64, t.fnv) << std::hex << "got 0x" << d.fnv1a64;

  Edge first[2];
  gen.generate(0, 2, first);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(first[i].u, t.first[i].u);
    EXPECT_EQ(first[i].v, t.first[i].v);
  }

  // A vertex qualifies as a root if it has an edge that is not a self-loop.
  std::vector<std::atomic<bool>> has_edge(gen.spec().vertex_count());
  for_each_edge_chunk(gen, [&](uint64_t, std::span<const Edge> edges) {
    for (const Edge& e : edges)
      if (e.u != e.v) has_edge[e.u] = has_edge[e.v] = true;
  });
  auto roots = search_roots(gen.spec(), 64, [&](uint64_t v) { return has_edge[v].load(); });
  ASSERT_EQ(roots.size(), 64u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(roots[i], t.roots[i]) << "root " << i;
}

// Named "Scale10Seeds2_3" and so on: ctest then lists what each case is, not a byte dump of the struct.
INSTANTIATE_TEST_SUITE_P(Reference301, GeneratorVectors, ::testing::ValuesIn(kVectors),
                         [](const ::testing::TestParamInfo<Vector>& param) {
                           const Vector& v = param.param;
                           return "Scale" + std::to_string(v.scale) + "Seeds" + std::to_string(v.seed1) + "_" +
                                  std::to_string(v.seed2);
                         });

// The digest is FNV-1a 64 over little-endian int64 (v0, v1) in index order, computed here the slow, obvious
// way from a scalar transcription of the reference's make_one_edge: the lane generator and the blocked
// digest must agree with it.
TEST(Generator, DigestEqualsScalarTranscriptionOfReference) {
  for (auto [scale, s1, s2] : {std::tuple{6, 2ULL, 3ULL}, std::tuple{9, 1ULL, 1ULL}, std::tuple{11, 7ULL, 99ULL}}) {
    Kronecker gen({scale, 16, s1, s2});
    const MrgState seed = mrg_seed(s1, s2);
    uint64_t h = 0xcbf29ce484222325ULL, loops = 0;
    for (uint64_t ei = 0; ei < gen.spec().edge_count(); ++ei) {
      MrgState s = mrg_skip(seed, 0, ei, 0);
      int64_t n = int64_t(1) << scale, src = 0, tgt = 0;
      while (n > 1) {
        uint32_t v = s.next();
        while (v < 3647) v = s.next();
        v %= 10000;
        int q = v < 1900 ? 1 : v < 3800 ? 2 : v < 9500 ? 0 : 3;
        int so = q / 2, to = q % 2;
        if (src == tgt && so > to) std::swap(so, to);
        n /= 2;
        src += n * so;
        tgt += n * to;
      }
      const uint64_t pair[2] = {gen.scramble(uint64_t(src)), gen.scramble(uint64_t(tgt))};
      loops += pair[0] == pair[1];
      for (uint64_t w : pair)
        for (int b = 0; b < 8; ++b) h = (h ^ ((w >> (8 * b)) & 0xFF)) * 0x100000001b3ULL;
    }
    EdgeListDigest d = digest_edge_list(gen);
    EXPECT_EQ(d.fnv1a64, h) << "SCALE " << scale;
    EXPECT_EQ(d.self_loops, loops);
  }
}

TEST(Generator, Scale16RootsAndIsolatedVertices) {
  Kronecker gen({16, 16, 2, 3});
  std::vector<std::atomic<bool>> has_edge(gen.spec().vertex_count());
  for_each_edge_chunk(gen, [&](uint64_t, std::span<const Edge> edges) {
    for (const Edge& e : edges)
      if (e.u != e.v) has_edge[e.u] = has_edge[e.v] = true;
  });
  uint64_t isolated = 0;
  for (auto& h : has_edge) isolated += !h.load();
  EXPECT_EQ(isolated, 18721u);
  auto roots = search_roots(gen.spec(), 8, [&](uint64_t v) { return has_edge[v].load(); });
  const uint64_t expected[8] = {29348, 8064, 61854, 29808, 54316, 22032, 1364, 15128};
  ASSERT_EQ(roots.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(roots[i], expected[i]);
}

TEST(Generator, AnySplitGivesTheSameEdges) {
  Kronecker gen({12, 16, 2, 3});
  const uint64_t m = gen.spec().edge_count();
  std::vector<Edge> whole(m), pieces(m);
  gen.generate(0, m, whole.data());
  for (uint64_t b = 0; b < m;) {  // uneven pieces, not multiples of the lane count
    uint64_t e = std::min(m, b + 1 + (b * 7919) % 1237);
    gen.generate(b, e, pieces.data() + b);
    b = e;
  }
  for (uint64_t i = 0; i < m; ++i) {
    ASSERT_EQ(whole[i].u, pieces[i].u) << i;
    ASSERT_EQ(whole[i].v, pieces[i].v) << i;
  }
}

TEST(Generator, SkipEqualsRepeatedSteps) {
  MrgState s = mrg_seed(2, 3);
  EXPECT_EQ(s.z, (std::array<uint32_t, 5>{3, 1, 4, 1, 1}));
  MrgState stepped = s;
  for (int i = 0; i < 1000; ++i) stepped.next();
  EXPECT_EQ(mrg_skip(s, 0, 0, 1000), stepped);
  EXPECT_EQ(mrg_edge_stride().apply(s), mrg_skip(s, 0, 1, 0));
}

TEST(Generator, ScrambleIsABijectionAndMatchesReferenceConstants) {
  Kronecker gen({10, 16, 2, 3});
  EXPECT_EQ(gen.scramble_val0(), 0x62af6660b44fce69ULL);
  EXPECT_EQ(gen.scramble_val1(), 0x2a3d763b3a6b1f0cULL);
  std::vector<bool> seen(1024);
  for (uint64_t v = 0; v < 1024; ++v) {
    uint64_t s = gen.scramble(v);
    ASSERT_LT(s, 1024u);
    EXPECT_FALSE(seen[s]);
    seen[s] = true;
  }
}

TEST(Generator, SpecChecksRejectBadParameters) {
  EXPECT_FALSE(KroneckerSpec({0, 16, 2, 3}).check().empty());
  EXPECT_FALSE(KroneckerSpec({41, 16, 2, 3}).check().empty());
  EXPECT_FALSE(KroneckerSpec({10, 0, 2, 3}).check().empty());
  EXPECT_TRUE(KroneckerSpec({40, 16, 2, 3}).check().empty());
  EXPECT_TRUE(KroneckerSpec({1, 1, 2, 3}).check().empty());
}

TEST(Generator, LargeScalesStayInRange) {
  for (int scale : {31, 32, 40}) {
    Kronecker gen({scale, 16, 2, 3});
    Edge e[37];
    gen.generate(uint64_t(1) << 33, (uint64_t(1) << 33) + 37, e);
    for (const Edge& x : e) {
      EXPECT_LT(x.u, gen.spec().vertex_count());
      EXPECT_LT(x.v, gen.spec().vertex_count());
    }
  }
}

}  // namespace
}  // namespace strata
