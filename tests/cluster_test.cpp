// The distributed engine under mpirun (ctest runs it on 1 to 4 ranks): kernel 1's rows are the graph, each
// search's tree matches a single-process search's levels, and the distributed validator catches every kind of
// planted error, planted in one rank's part of a correct result.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "bfs/hybrid_bfs.hpp"
#include "cluster/comm.hpp"
#include "cluster/dist_bfs.hpp"
#include "cluster/dist_graph.hpp"
#include "cluster/dist_validator.hpp"
#include "engine/build_csr.hpp"
#include "engine/placement.hpp"
#include "generators/edge_stream.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

const Comm* world = nullptr;
const KroneckerSpec kSpec{10, 16, 2, 3};

// One distributed graph and a correct search for the suite; every rank also holds the whole result (by input
// label) and the whole edge set, so all ranks choose the same vertex to damage.
template <class Id>
class Distributed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    source_ = new GeneratedEdges{Kronecker(kSpec)};
    share_ = new TupleShare<GeneratedEdges>(*source_, *world);
    DistBuildReport report;
    g_ = new DistGraph<Id>(build_dist_graph<Id>(*share_, *world, report));
    DistBfs<Id> bfs(*g_, *world, BfsOptions{});
    root_ = 0;
    while (!((g_->has_edge[root_ >> 6] >> (root_ & 63)) & 1)) ++root_;
    // The whole label map on every rank (the oracle's; a rank of the run holds only its vertices' labels).
    std::vector<std::vector<IdPair<Id>>> labels(world->size());
    for (int r = 0; r < world->size(); ++r)
      for (uint64_t v = g_->lo; v < g_->hi; ++v) labels[r].push_back({Id(v), g_->label(v)});
    input_.assign(g_->part.ids(), kNoVertex<Id>);
    for (const IdPair<Id>& p : world->exchange(labels)) input_[p.first] = p.second;
    Id internal = 0;
    for (uint64_t v = 0; v < input_.size(); ++v)
      if (input_[v] == root_) internal = Id(v);
    EXPECT_EQ(internal_roots(*g_, {root_}, *world), std::vector<Id>{internal});
    out_ = std::vector<Id>(g_->local_count());
    bfs.search(internal, out_.data());
    nedge_ = bfs.reached_raw_degree_sum() / 2;
    // Everyone's output by input label, on every rank.
    std::vector<std::vector<IdPair<Id>>> send(world->size());
    for (int r = 0; r < world->size(); ++r)
      for (uint64_t v = g_->lo; v < g_->hi; ++v) send[r].push_back({g_->label(v), out_[v - g_->lo]});
    parent_.assign(kSpec.vertex_count(), kNoVertex<Id>);
    for (const IdPair<Id>& p : world->exchange(send)) parent_[p.first] = p.second;
    for_each_edge_chunk(Kronecker(kSpec), [&](uint64_t, std::span<const Edge> edges) {
#pragma omp critical
      for (const Edge& e : edges) edges_.insert({std::min(e.u, e.v), std::max(e.u, e.v)});
    });
  }
  static void TearDownTestSuite() {
    delete g_;
    delete share_;
    delete source_;
  }

  // Checks the result with label x's parent set to p (on the rank that holds x), expected nedge `nedge`.
  Verdict check_with(uint64_t x, Id p, uint64_t nedge) {
    std::vector<Id> out = out_;
    for (uint64_t v = g_->lo; v < g_->hi; ++v)
      if (g_->label(v) == x) out[v - g_->lo] = p;
    // In a batch between two correct copies: the error is found in its own search only.
    DistValidator<Id> validator(g_->n, *world, 3);
    validator.add(*g_, out_.data(), root_, nedge_);
    validator.add(*g_, out.data(), root_, nedge);
    validator.add(*g_, out_.data(), root_, nedge_);
    const std::vector<Verdict> v = validator.check(*share_);
    EXPECT_TRUE(v[0].valid && v[2].valid) << v[0].message << v[2].message;
    return v[1];
  }
  static bool edge(uint64_t a, uint64_t b) { return edges_.count({std::min(a, b), std::max(a, b)}) > 0; }
  static std::vector<int> levels() { return test::depths(parent_, root_); }
  static bool is_parent(uint64_t v) {
    for (uint64_t x = 0; x < parent_.size(); ++x)
      if (x != root_ && parent_[x] == v) return true;
    return false;
  }

  static inline GeneratedEdges* source_ = nullptr;
  static inline TupleShare<GeneratedEdges>* share_ = nullptr;
  static inline DistGraph<Id>* g_ = nullptr;
  static inline uint64_t root_ = 0, nedge_ = 0;
  static inline std::vector<Id> out_, input_;
  static inline std::vector<Id> parent_;
  static inline std::set<std::pair<uint64_t, uint64_t>> edges_;
};
// 32-bit ids (up to SCALE 31) and 64-bit ones (above; --debug-id-bytes 8 forces them): the same graph and search.
using IdTypes = ::testing::Types<uint32_t, uint64_t>;
TYPED_TEST_SUITE(Distributed, IdTypes);

TYPED_TEST(Distributed, RowsHoldEveryEdgeOnceAndNothingElse) {
  std::set<std::pair<uint64_t, uint64_t>> mine;
  uint64_t entries = 0;
  for (uint64_t v = this->g_->lo; v < this->g_->hi; ++v)
    for (uint64_t k = this->g_->offsets[v - this->g_->lo]; k < this->g_->offsets[v - this->g_->lo + 1]; ++k) {
      const uint64_t a = this->input_[v], b = this->input_[this->g_->adj[k]];
      EXPECT_TRUE(this->edge(a, b)) << a << "-" << b;
      EXPECT_NE(a, b);
      mine.insert({a, b});
      ++entries;
    }
  EXPECT_EQ(mine.size(), entries) << "a duplicate in the rows";
  uint64_t undirected_without_loops = 0;
  for (const auto& [a, b] : this->edges_) undirected_without_loops += a != b;
  EXPECT_EQ(world->sum(entries), 2 * undirected_without_loops);
}

// The degree order counted and sorted across the ranks' label blocks is a single process's, vertex by vertex.
TYPED_TEST(Distributed, RenumberingIsTheSingleProcessOne) {
  const Csr<uint32_t> g = build_csr<uint32_t>(GeneratedEdges{Kronecker(kSpec)});
  for (uint64_t v = this->g_->lo; v < this->g_->hi; ++v) {
    const uint64_t k = this->g_->part.degree_rank(v);
    ASSERT_EQ(this->g_->label(v), g.to_input[k]) << "distributed id " << v;
    ASSERT_EQ(this->g_->raw_degree[v - this->g_->lo], g.raw_degree(k)) << "distributed id " << v;
  }
  uint64_t has_edge = 0;
  for (uint64_t v = 0; v < g.n; ++v) {
    ASSERT_EQ((this->g_->has_edge[g.to_input[v] >> 6] >> (g.to_input[v] & 63)) & 1, uint64_t(g.raw_degree(v) > 0)) << v;
    has_edge += g.raw_degree(v) > 0;
  }
  EXPECT_GT(has_edge, 0u);
}

TYPED_TEST(Distributed, SearchMatchesTheSingleProcessLevels) {
  const Csr<uint32_t> g = build_csr<uint32_t>(GeneratedEdges{Kronecker(kSpec)});
  const Partitioning parts = partition_by_work(g, 1, Topology::detect());
  HybridBfs<uint32_t> bfs(g, parts, BfsOptions{});
  std::vector<uint32_t> one(g.n);
  TypeParam internal = 0;
  for (uint64_t v = 0; v < g.n; ++v)
    if (g.to_input[v] == this->root_) internal = TypeParam(v);
  bfs.search(internal, one.data());
  EXPECT_EQ(test::depths(one, this->root_), this->levels());
  EXPECT_EQ(bfs.reached_raw_degree_sum() / 2, this->nedge_);
}

TYPED_TEST(Distributed, ACorrectResultPasses) {
  const Verdict v = this->check_with(this->root_, TypeParam(this->root_), this->nedge_);
  EXPECT_TRUE(v.valid) << v.message;
  EXPECT_EQ(v.nedge, this->nedge_);
}

TYPED_TEST(Distributed, Rule1ACycle) {
  const std::vector<int> lv = this->levels();
  uint64_t x = 0;
  while (x < lv.size() && lv[x] < 2) ++x;
  ASSERT_LT(x, lv.size());
  const Verdict v = this->check_with(x, TypeParam(x), this->nedge_);  // its own parent: never reaches the root
  EXPECT_EQ(v.rule, 1) << v.message;
}

TYPED_TEST(Distributed, Rule1ARootThatIsNotItsOwnParent) {
  uint64_t child = 0;
  while (child < this->parent_.size() && (child == this->root_ || this->parent_[child] != this->root_)) ++child;
  ASSERT_LT(child, this->parent_.size());
  const Verdict v = this->check_with(this->root_, TypeParam(child), this->nedge_);
  EXPECT_EQ(v.rule, 1) << v.message;
}

TYPED_TEST(Distributed, Rule1AParentOutOfRange) {
  const std::vector<int> lv = this->levels();
  uint64_t x = 0;
  while (x < lv.size() && lv[x] < 1) ++x;
  ASSERT_LT(x, lv.size());
  const Verdict v = this->check_with(x, TypeParam(kSpec.vertex_count() + 5), this->nedge_);
  EXPECT_EQ(v.rule, 1) << v.message;
}

TYPED_TEST(Distributed, Rule3ALevelSkipped) {
  // The shallowest leaf moved under the deepest vertex (not its neighbour): its edge to its old parent now
  // spans three levels or more.
  const std::vector<int> lv = this->levels();
  uint64_t x = lv.size(), deep = 0;
  for (uint64_t v = 0; v < lv.size(); ++v) {
    if (lv[v] > lv[deep]) deep = v;
    if (lv[v] >= 1 && !this->is_parent(v) && (x == lv.size() || lv[v] < lv[x])) x = v;
  }
  ASSERT_LT(x, lv.size());
  ASSERT_GE(lv[deep], lv[x] + 2) << "the tree is too shallow for this test";
  ASSERT_FALSE(this->edge(x, deep));
  const Verdict v = this->check_with(x, TypeParam(deep), this->nedge_);
  EXPECT_EQ(v.rule, 3) << v.message;
}

TYPED_TEST(Distributed, Rule4AReachedLeafMarkedUnreached) {
  const std::vector<int> lv = this->levels();
  uint64_t x = 0;
  while (x < lv.size() && (lv[x] < 1 || this->is_parent(x))) ++x;
  ASSERT_LT(x, lv.size());
  const Verdict v = this->check_with(x, kNoVertex<TypeParam>, this->nedge_);
  EXPECT_EQ(v.rule, 4) << v.message;
}

TYPED_TEST(Distributed, Rule5AParentThatIsNoNeighbour) {
  // Same level as the true parent, so every level stays right; only the tree edge is missing from the input.
  const std::vector<int> lv = this->levels();
  for (uint64_t x = 0; x < lv.size(); ++x) {
    if (lv[x] < 2) continue;
    for (uint64_t p = 0; p < lv.size(); ++p)
      if (lv[p] == lv[x] - 1 && !this->edge(x, p)) {
        const Verdict v = this->check_with(x, TypeParam(p), this->nedge_);
        EXPECT_EQ(v.rule, 5) << v.message;
        return;
      }
  }
  FAIL() << "no vertex to plant the error on";
}

TYPED_TEST(Distributed, NedgeMiscounted) {
  const Verdict v = this->check_with(this->root_, TypeParam(this->root_), this->nedge_ + 1);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.rule, 6) << v.message;
}

// The owner of a distributed id by one multiply (the search's hot path) is the quotient id / span for every
// id, 64-bit ids of SCALE 32-42 included, at every rank count; checked at each rank's first and last id.
TEST(VertexDeal, OwnerIsTheQuotientAtEveryIdWidth) {
  std::mt19937_64 random(7);
  for (const int scale : {10, 31, 32, 36, 42})
    for (const int ranks : {1, 2, 3, 7, 64, 1000, 4096}) {
      const VertexDeal deal(uint64_t(1) << scale, ranks);
      std::vector<uint64_t> ids;
      for (int r = 0; r < ranks; ++r) ids.insert(ids.end(), {deal.begin(r), deal.begin(r) + deal.span - 1});
      for (int k = 0; k < 1000; ++k) ids.push_back(random() % deal.ids());
      for (const uint64_t id : ids)
        ASSERT_EQ(uint64_t(deal.owner(id)), id / deal.span) << scale << " " << ranks << " " << id;
    }
}

}  // namespace
}  // namespace strata

// Under mpirun only: MPI for the whole test run, rank 0 prints, the run fails if any rank's tests fail.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!strata::launched_by_mpirun()) {
    std::fprintf(stderr, "cluster_test runs under mpirun (ctest starts it with mpirun -np 1..4)\n");
    return 1;
  }
  strata::MpiSession session(argc, argv);
  const strata::Comm comm;
  strata::world = &comm;
  omp_set_num_threads(comm.cores_per_rank());
  if (!comm.root()) delete ::testing::UnitTest::GetInstance()->listeners().Release(
      ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  const int failed = RUN_ALL_TESTS() != 0;
  return int(comm.max(uint64_t(failed)));
}
