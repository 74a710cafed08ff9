// Kernel 3's ground truth, before Strata has a kernel 3: Boost.Graph's Dijkstra in float32 over the weighted
// multigraph (every non-self-loop tuple, duplicates kept) reproduces the reference's distances bit for bit
// (SSSP.md 3.3 and the vectors of section 8). This is the oracle kernel 3's tests will compare against.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <queue>
#include <utility>
#include <vector>

#include "engine/build_csr.hpp"
#include "generators/edge_stream.hpp"
#include "generators/kronecker.hpp"

namespace strata {
namespace {

using WeightedGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                            boost::property<boost::edge_weight_t, float>>;

struct RootVector {
  uint64_t root, reached;
  double sum;
  uint32_t max_bits;
  uint64_t dist_hash;
};

struct GraphVector {
  int scale;
  RootVector roots[4];
};

// SSSP.md section 8: the first 4 roots, seeds 2,3, edgefactor 16.
const GraphVector kVectors[] = {
    {10,
     {{458, 897, 258.18886033445597, 0x3f907535, 0x655f56114f9f3658ULL},
      {214, 897, 618.71742710471153, 0x3fc3c78f, 0xbf54d253d990ebadULL},
      {220, 897, 226.49648305773735, 0x3f8c34a3, 0xbb9810eaf9d8e8c3ULL},
      {966, 897, 205.32267121784389, 0x3f8898d6, 0x33abaaa8a4ded04cULL}}},
    {12,
     {{1834, 3351, 799.90118391253054, 0x3f98cf68, 0xdc273856d5cb6ad2ULL},
      {858, 3351, 754.77872969210148, 0x3f96beca, 0x7adbf1b93858e547ULL},
      {881, 3351, 1010.7967596873641, 0x3fa0ddf2, 0xf9485575180ce39fULL},
      {504, 3351, 682.7249520146288, 0x3f94057c, 0x15aceba883d1067eULL}}},
    {14,
     {{7337, 12550, 2735.9838809794746, 0x3fde9ef8, 0x303eeeb1882b9a74ULL},
      {3434, 12550, 3274.2025028914213, 0x3fe3ee75, 0x61cc3598209a8d67ULL},
      {3526, 12550, 2653.8389366827905, 0x3fdda9d0, 0xbe1a073f37d1179eULL},
      {2016, 12550, 3398.0914273746312, 0x3fe571e4, 0x230a39287f5f5edfULL}}},
};

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(SsspOracle, Float32DijkstraOverTheMultigraphGivesTheReferenceDistances) {
  for (const GraphVector& t : kVectors) {
    const Kronecker gen({t.scale, 16, 2, 3});
    const uint64_t n = gen.spec().vertex_count(), m = gen.spec().edge_count();
    std::vector<Edge> edges(m);
    std::vector<float> weights(m);
    gen.generate(0, m, edges.data(), weights.data());
    WeightedGraph g(n);
    std::vector<bool> has_edge(n);
    for (uint64_t i = 0; i < m; ++i)
      if (edges[i].u != edges[i].v) {
        boost::add_edge(edges[i].u, edges[i].v, weights[i], g);
        has_edge[edges[i].u] = has_edge[edges[i].v] = true;
      }
    const std::vector<uint64_t> roots = search_roots(gen.spec(), 4, [&](uint64_t v) { return bool(has_edge[v]); });
    ASSERT_EQ(roots.size(), 4u);
    for (int r = 0; r < 4; ++r) {
      const RootVector& want = t.roots[r];
      ASSERT_EQ(roots[r], want.root) << "SCALE " << t.scale;
      std::vector<float> dist(n);
      boost::dijkstra_shortest_paths(g, roots[r], boost::distance_map(dist.data()));
      uint64_t reached = 0, h = 0xcbf29ce484222325ULL;
      double sum = 0;
      float most = 0;
      for (uint64_t v = 0; v < n; ++v) {
        if (dist[v] == std::numeric_limits<float>::max()) dist[v] = -1.0f;  // unreached, as the reference writes it
        if (dist[v] >= 0) ++reached, sum += double(dist[v]), most = std::max(most, dist[v]);
        for (int b = 0; b < 4; ++b) h = (h ^ ((bits(dist[v]) >> (8 * b)) & 0xFF)) * 0x100000001b3ULL;
      }
      EXPECT_EQ(reached, want.reached) << "SCALE " << t.scale << " root " << roots[r];
      EXPECT_EQ(sum, want.sum) << "SCALE " << t.scale << " root " << roots[r];
      EXPECT_EQ(bits(most), want.max_bits) << "SCALE " << t.scale << " root " << roots[r];
      EXPECT_EQ(h, want.dist_hash) << std::hex << "SCALE " << t.scale << " root " << roots[r] << ": got 0x" << h;
    }
  }
}

// The same Dijkstra accumulating in double and rounding at the end is not the reference (SSSP.md 3.3): the test
// above would catch an oracle that did so.
TEST(SsspOracle, DoubleAccumulationDiffersFromTheReference) {
  const Kronecker gen({10, 16, 2, 3});
  const uint64_t n = gen.spec().vertex_count(), m = gen.spec().edge_count();
  std::vector<Edge> edges(m);
  std::vector<float> weights(m);
  gen.generate(0, m, edges.data(), weights.data());
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                        boost::property<boost::edge_weight_t, double>> g(n);
  WeightedGraph f(n);
  for (uint64_t i = 0; i < m; ++i)
    if (edges[i].u != edges[i].v) {
      boost::add_edge(edges[i].u, edges[i].v, double(weights[i]), g);
      boost::add_edge(edges[i].u, edges[i].v, weights[i], f);
    }
  std::vector<double> wide(n);
  std::vector<float> exact(n);
  boost::dijkstra_shortest_paths(g, 458, boost::distance_map(wide.data()));
  boost::dijkstra_shortest_paths(f, 458, boost::distance_map(exact.data()));
  int differ = 0;
  for (uint64_t v = 0; v < n; ++v) differ += exact[v] != std::numeric_limits<float>::max() && float(wide[v]) != exact[v];
  EXPECT_GT(differ, 0);
}

// Float32 Dijkstra over a weighted CSR (internal ids), distances returned by input label, unreached -1.
std::vector<float> csr_dijkstra(const Csr<uint32_t, float>& g, uint64_t root_label) {
  std::vector<float> dist(g.n, -1.0f);
  uint64_t root = 0;
  while (g.to_input[root] != root_label) ++root;
  using Item = std::pair<float, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  dist[root] = 0.0f;
  heap.push({0.0f, uint32_t(root)});
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d != dist[u]) continue;
    const auto ids = g.neighbors(u);
    const auto ws = g.weights_of(u);
    for (size_t i = 0; i < ids.size(); ++i) {
      const float nd = d + ws[i];  // float + float: fl32, as the reference relaxes
      if (dist[ids[i]] < 0 || nd < dist[ids[i]]) dist[ids[i]] = nd, heap.push({nd, ids[i]});
    }
  }
  std::vector<float> by_label(g.n);
  for (uint64_t v = 0; v < g.n; ++v) by_label[g.to_input[v]] = dist[v];
  return by_label;
}

// Kernel 1 with weights: the weighted CSR has the unweighted one's lists and duplicate counts, each entry the
// lightest of its pair's tuples, and Dijkstra over it gives the reference's distances.
TEST(WeightedCsr, SameListsLightestCopyAndTheReferenceDistances) {
  for (const GraphVector& t : kVectors) {
    const GeneratedEdges source{Kronecker({t.scale, 16, 2, 3})};
    const Csr<uint32_t> plain = build_csr<uint32_t>(source);
    const Csr<uint32_t, float> g = build_csr<uint32_t, float>(source);
    ASSERT_EQ(g.directed_edges(), plain.directed_edges());
    EXPECT_EQ(g.bytes(), plain.bytes() + g.directed_edges() * sizeof(float));
    for (uint64_t i = 0; i < g.directed_edges(); ++i) ASSERT_EQ(g.adj[i], plain.adj[i]) << i;
    for (uint64_t v = 0; v < g.n; ++v) ASSERT_EQ(g.raw_degree(v), plain.raw_degree(v)) << v;
    if (t.scale == 10) {  // every entry is its pair's lightest tuple
      const uint64_t m = source.spec().edge_count();
      std::vector<Edge> edges(m);
      std::vector<float> w(m);
      source.gen.generate(0, m, edges.data(), w.data());
      std::map<std::pair<uint64_t, uint64_t>, float> lightest;
      for (uint64_t i = 0; i < m; ++i) {
        if (edges[i].u == edges[i].v) continue;
        const std::pair<uint64_t, uint64_t> key{std::min(edges[i].u, edges[i].v), std::max(edges[i].u, edges[i].v)};
        auto [it, fresh] = lightest.try_emplace(key, w[i]);
        if (!fresh) it->second = std::min(it->second, w[i]);
      }
      for (uint64_t v = 0; v < g.n; ++v)
        for (uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) {
          const uint64_t a = g.to_input[v], b = g.to_input[g.adj[i]];
          ASSERT_EQ(g.weights.values[i], lightest.at({std::min(a, b), std::max(a, b)}));
        }
    }
    for (int r = 0; r < 4; ++r) {
      const std::vector<float> dist = csr_dijkstra(g, t.roots[r].root);
      uint64_t h = 0xcbf29ce484222325ULL;
      for (float d : dist)
        for (int b = 0; b < 4; ++b) h = (h ^ ((bits(d) >> (8 * b)) & 0xFF)) * 0x100000001b3ULL;
      EXPECT_EQ(h, t.roots[r].dist_hash) << "SCALE " << t.scale << " root " << t.roots[r].root;
    }
  }
}

}  // namespace
}  // namespace strata
