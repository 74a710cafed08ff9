// BFS levels must equal Boost.Graph's breadth_first_search distances, in every direction mode and with
// 1..4 partitions, and every result must pass validation with the reference's nedge.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <string>
#include <vector>

#include "core/ids.hpp"
#include "bfs/hybrid_bfs.hpp"
#include "engine/build_csr.hpp"
#include "engine/placement.hpp"
#include "generators/edge_stream.hpp"
#include "tests/test_util.hpp"
#include "validate/validator.hpp"

namespace strata {
namespace {

using test::depths;
using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

BoostGraph boost_graph(const KroneckerSpec& spec) {
  Kronecker gen(spec);
  std::vector<Edge> edges(spec.edge_count());
  gen.generate(0, edges.size(), edges.data());
  BoostGraph g(spec.vertex_count());
  for (const Edge& e : edges)
    if (e.u != e.v) boost::add_edge(e.u, e.v, g);
  return g;
}

std::vector<int> boost_distances(const BoostGraph& g, uint64_t root) {
  std::vector<int> dist(boost::num_vertices(g), -1);
  dist[root] = 0;
  boost::breadth_first_search(g, root, boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
  return dist;
}

std::vector<int> boost_distances(const KroneckerSpec& spec, uint64_t root) { return boost_distances(boost_graph(spec), root); }


std::vector<uint64_t> first_roots(const Csr<uint32_t>& g, const KroneckerSpec& spec, int count) {
  std::vector<bool> has_edge(g.n);
  for (uint64_t v = 0; v < g.n; ++v) has_edge[g.to_input[v]] = g.degree(v) > 0;
  return search_roots(spec, count, [&](uint64_t v) { return bool(has_edge[v]); });
}

TEST(HybridBfs, LevelsEqualBoostInEveryModeAndPartitioning) {
  const Topology topo = Topology::detect();
  int checked = 0;
  for (int scale : {4, 7, 10, 14})
    for (uint64_t seed : {1, 2, 77}) {
      KroneckerSpec spec{scale, 16, seed, seed + 3};
      GeneratedEdges source{Kronecker(spec)};
      Csr<uint32_t> g = build_csr<uint32_t>(source);
      const auto roots = first_roots(g, spec, 2);
      const BoostGraph oracle = boost_graph(spec);  // once per graph, not per partitioning and direction
      std::vector<std::vector<int>> want;
      for (uint64_t root : roots) want.push_back(boost_distances(oracle, root));
      test::ResultBatch batch;  // every mode's results, validated together
      for (int parts : {1, 2, 3, 4}) {
        Partitioning p = partition_by_work(g, parts, topo);
        for (Direction dir : {Direction::kHybrid, Direction::kTopDown, Direction::kBottomUp}) {
          HybridBfs<uint32_t> bfs(g, p, BfsOptions{.alpha = 15, .beta = 18, .direction = dir});
          for (size_t r = 0; r < roots.size(); ++r) {
            const uint64_t root = roots[r];
            const std::string what = (testing::Message() << "SCALE " << scale << " seed " << seed << " parts "
                                                         << parts << " direction " << int(dir) << " root " << root).GetString();
            SCOPED_TRACE(what);
            std::vector<uint32_t> parent(g.n);
            bfs.search(internal_ids(g, {root})[0], parent.data());
            ASSERT_EQ(depths(parent, root), want[r]);
            batch.add(std::move(parent), root, bfs.reached_raw_degree_sum() / 2, what);
          }
        }
      }
      const std::vector<Verdict> verdicts = batch.validate(source);
      ASSERT_EQ(verdicts.size(), batch.what.size());
      for (size_t k = 0; k < verdicts.size(); ++k) {
        EXPECT_TRUE(verdicts[k].valid) << batch.what[k] << ": " << verdicts[k].message;
        checked += verdicts[k].valid;
      }
    }
  EXPECT_EQ(checked, 4 * 3 * 4 * 3 * 2);
}

// A graph drawn by hand, with its parents and levels known: two paths to 3, a pendant 4, a separate edge
// 5-6, an isolated 7. Every direction, 1..4 partitions (on 8 vertices the later ones are empty).
TEST(HybridBfs, HandDrawnGraphHasTheKnownLevelsAndParents) {
  const test::ListedEdges graph(3, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {5, 6}, {1, 0}});
  const Csr<uint32_t> g = build_csr<uint32_t>(graph);
  for (int parts : {1, 2, 3, 4}) {
    const Partitioning p = partition_by_work(g, parts, Topology::detect());
    for (Direction dir : {Direction::kHybrid, Direction::kTopDown, Direction::kBottomUp}) {
      SCOPED_TRACE(testing::Message() << "parts " << parts << " direction " << int(dir));
      HybridBfs<uint32_t> bfs(g, p, BfsOptions{.direction = dir});
      std::vector<uint32_t> parent(g.n);
      bfs.search(internal_ids(g, {0})[0], parent.data());
      EXPECT_EQ(depths(parent, 0), (std::vector<int>{0, 1, 1, 2, 3, -1, -1, -1}));
      EXPECT_EQ(parent[0], 0u);
      EXPECT_EQ(parent[1], 0u);
      EXPECT_EQ(parent[2], 0u);
      EXPECT_TRUE(parent[3] == 1 || parent[3] == 2) << parent[3];
      EXPECT_EQ(parent[4], 3u);
      EXPECT_EQ(parent[5], kNoVertex<uint32_t>);
      EXPECT_EQ(parent[7], kNoVertex<uint32_t>);
      const uint64_t nedge = bfs.reached_raw_degree_sum() / 2;
      EXPECT_EQ(nedge, 6u);  // five edges among reached vertices, 0-1 listed twice (the reference counts tuples)
      SearchToCheck<uint32_t> check{0, parent.data(), nedge};
      const auto verdict = validate_searches<uint32_t>(graph, {&check, 1});
      EXPECT_TRUE(verdict[0].valid) << verdict[0].message;
      // The same search object from the separate edge: nedge counts it alone (the sum over the listed vertices
      // taken at the first search, less the unreached ones', holds for a search that misses most of them).
      bfs.search(internal_ids(g, {5})[0], parent.data());
      EXPECT_EQ(depths(parent, 5), (std::vector<int>{-1, -1, -1, -1, -1, 0, 1, -1}));
      EXPECT_EQ(bfs.reached_raw_degree_sum() / 2, 1u);
    }
  }
}

TEST(HybridBfs, SixtyFourBitIdsAgree) {
  KroneckerSpec spec{9, 16, 2, 3};
  Csr<uint64_t> g = build_csr<uint64_t>(GeneratedEdges{Kronecker(spec)});
  Partitioning p = partition_by_work(g, 2, Topology::detect());
  HybridBfs<uint64_t> bfs(g, p, BfsOptions{});
  std::vector<uint64_t> parent(g.n);
  const uint64_t root = 5;
  bfs.search(internal_ids(g, {root})[0], parent.data());
  EXPECT_EQ(depths(parent, root), boost_distances(spec, root));
}

struct ComponentVector {
  int scale;
  uint64_t seed1, seed2;
  uint64_t giant, nedge;
};

TEST(HybridBfs, RootsNedgeAndGiantComponentMatchGraph500Md) {
  const ComponentVector vectors[] = {
      {10, 2, 3, 897, 16239}, {12, 2, 3, 3351, 65327}, {14, 2, 3, 12550, 261818}, {16, 2, 3, 46803, 1048079}, {10, 1, 1, 903, 16238}};
  for (const auto& t : vectors) {
    KroneckerSpec spec{t.scale, 16, t.seed1, t.seed2};
    Csr<uint32_t> g = build_csr<uint32_t>(GeneratedEdges{Kronecker(spec)});
    Partitioning p = partition_by_work(g, 1, Topology::detect());
    HybridBfs<uint32_t> bfs(g, p, BfsOptions{});
    const uint64_t root = first_roots(g, spec, 1)[0];
    std::vector<uint32_t> parent(g.n);
    bfs.search(internal_ids(g, {root})[0], parent.data());
    uint64_t reached = 0;
    for (uint32_t x : parent) reached += x != kNoVertex<uint32_t>;
    EXPECT_EQ(reached, t.giant) << "SCALE " << t.scale;
    EXPECT_EQ(bfs.reached_raw_degree_sum() / 2, t.nedge) << "SCALE " << t.scale;
  }
}

}  // namespace
}  // namespace strata
