// BFS levels must equal Boost.Graph's breadth_first_search distances, in every direction mode and with
// 1..4 partitions, and every result must pass validation with the reference's nedge.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <vector>

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

std::vector<int> boost_distances(const KroneckerSpec& spec, uint64_t root) {
  Kronecker gen(spec);
  std::vector<Edge> edges(spec.edge_count());
  gen.generate(0, edges.size(), edges.data());
  BoostGraph g(spec.vertex_count());
  for (const Edge& e : edges)
    if (e.u != e.v) boost::add_edge(e.u, e.v, g);
  std::vector<int> dist(spec.vertex_count(), -1);
  dist[root] = 0;
  boost::breadth_first_search(g, root, boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
  return dist;
}


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
      for (int parts : {1, 2, 3, 4}) {
        Partitioning p = partition_by_work(g, parts, topo);
        for (Direction dir : {Direction::kHybrid, Direction::kTopDown, Direction::kBottomUp}) {
          HybridBfs<uint32_t> bfs(g, p, BfsOptions{.alpha = 15, .beta = 18, .direction = dir});
          for (uint64_t root : roots) {
            SCOPED_TRACE(testing::Message() << "SCALE " << scale << " seed " << seed << " parts " << parts
                                            << " direction " << int(dir) << " root " << root);
            std::vector<uint32_t> parent(g.n);
            bfs.search(internal_ids(g, {root})[0], parent.data());
            ASSERT_EQ(depths(parent, root), boost_distances(spec, root));
            const uint64_t nedge = bfs.reached_raw_degree_sum() / 2;
            SearchToCheck<uint32_t> check{root, parent.data(), nedge};
            auto verdict = validate_searches<uint32_t>(source, {&check, 1});
            ASSERT_TRUE(verdict[0].valid) << verdict[0].message;
            ++checked;
          }
        }
      }
    }
  EXPECT_EQ(checked, 4 * 3 * 4 * 3 * 2);
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
    for (uint32_t x : parent) reached += x != uint32_t(-1);
    EXPECT_EQ(reached, t.giant) << "SCALE " << t.scale;
    EXPECT_EQ(bfs.reached_raw_degree_sum() / 2, t.nedge) << "SCALE " << t.scale;
  }
}

}  // namespace
}  // namespace strata
