// The distributed engine under mpirun (ctest runs it on 1 to 4 ranks): kernel 1's rows are the graph, each
// search's tree matches a single-process search's levels, and the distributed validator catches every kind of
// planted error, planted in one rank's part of a correct result.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "bfs/hybrid_bfs.hpp"
#include "cluster/comm.hpp"
#include "cluster/dist_bfs.hpp"
#include "cluster/dist_graph.hpp"
#include "cluster/dist_sssp.hpp"
#include "cluster/dist_validator.hpp"
#include "cluster/rank_rows.hpp"
#include "cluster/run_mpi.hpp"
#include "engine/build_csr.hpp"
#include "engine/placement.hpp"
#include "generators/edge_stream.hpp"
#include "sssp/delta_stepping.hpp"
#include "tiers/in_core.hpp"
#include "tiers/tier_ops.hpp"
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
    // The rank's search over its lists in DRAM, from the in-core tier's source (as the MPI driver makes it).
    InCoreTier::with_id_lists<Id>(g_->template adjacency<Id>(), PlacementSpec{}, [&](auto source) {
      DistBfs<Id, decltype(source)> bfs(*g_, *world, BfsOptions{}, g_->rows, std::move(source));
      bfs.search(internal, out_.data());
      nedge_ = bfs.reached_raw_degree_sum() / 2;
    });
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
    for (uint64_t k = this->g_->rows.offsets[v - this->g_->lo]; k < this->g_->rows.offsets[v - this->g_->lo + 1]; ++k) {
      const uint64_t a = this->input_[v], b = this->input_[this->g_->rows.adj[k]];
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

// Kernel 3 across the ranks: the weighted rows are the lightest copies, the distances one process's bits, and
// the distributed validator refuses each rule's planted error (R1-R8), found in its own search of a batch.
class DistributedSssp : public ::testing::Test {
 protected:
  using Id = uint32_t;
  static void SetUpTestSuite() {
    source_ = new GeneratedEdges{Kronecker(kSpec)};
    share_ = new TupleShare<GeneratedEdges>(*source_, *world);
    DistBuildReport report;
    g_ = new DistGraph<Id>(build_dist_graph<Id, NodeWeight<Id>>(*share_, *world, report, /*ids=*/true));
    one_ = new Csr<Id, float>(build_csr<Id, float>(GeneratedEdges{Kronecker(kSpec)}));
    std::vector<float> d(g_->local_count());
    std::vector<Id> p(g_->local_count());
    InCoreTier::with_weighted_lists<Id>(g_->template adjacency<NodeWeight<Id>>(), PlacementSpec{}, 0.05f, [&](auto source) {
      DistDeltaStepping<Id, decltype(source)> sssp(*g_, *world, g_->rows, std::move(source), 0.05f);
      sssp.search(internal_roots(*g_, {kRoot}, *world)[0], d.data(), p.data());
      nedge_ = sssp.reached_raw_degree_sum() / 2;
    });
    facts_ = distance_facts_across(*g_, d.data(), *world);
    // The whole result by input label on every rank, so all ranks plant the same error.
    struct Labelled {
      Id label, parent;
      float d;
    };
    std::vector<std::vector<Labelled>> send(world->size());
    for (int r = 0; r < world->size(); ++r)
      for (uint64_t v = g_->lo; v < g_->hi; ++v) send[r].push_back({g_->label(v), p[v - g_->lo], d[v - g_->lo]});
    dist_.assign(kSpec.vertex_count(), -1.0f);
    parent_.assign(kSpec.vertex_count(), kNoVertex<Id>);
    for (const Labelled& x : world->exchange(send)) {
      dist_[x.label] = x.d;
      parent_[x.label] = x.parent;
    }
  }
  static void TearDownTestSuite() {
    delete one_;
    delete g_;
    delete share_;
    delete source_;
  }
  void SetUp() override {
    dist = dist_;
    parent = parent_;
    nedge = nedge_;
  }
  // The planted result (dist, parent, nedge) checked between two copies of the correct one.
  Verdict verdict() const {
    std::vector<float> d(g_->local_count()), d0(g_->local_count());
    std::vector<Id> p(g_->local_count()), p0(g_->local_count());
    for (uint64_t v = g_->lo; v < g_->hi; ++v) {
      d[v - g_->lo] = dist[g_->label(v)], p[v - g_->lo] = parent[g_->label(v)];
      d0[v - g_->lo] = dist_[g_->label(v)], p0[v - g_->lo] = parent_[g_->label(v)];
    }
    DistValidator<Id> validator(g_->n, *world, 3, /*weighted=*/true);
    validator.add_sssp(*g_, d0.data(), p0.data(), kRoot, nedge_);
    validator.add_sssp(*g_, d.data(), p.data(), kRoot, nedge);
    validator.add_sssp(*g_, d0.data(), p0.data(), kRoot, nedge_);
    const std::vector<Verdict> v = validator.check(*share_);
    EXPECT_TRUE(v[0].valid && v[2].valid) << v[0].message << v[2].message;
    return v[1];
  }
  uint64_t reached_leaf() const {
    std::vector<bool> is_parent(parent.size());
    for (uint64_t v = 0; v < parent.size(); ++v)
      if (parent[v] != kNoVertex<Id>) is_parent[parent[v]] = true;
    for (uint64_t v = 0; v < parent.size(); ++v)
      if (parent[v] != kNoVertex<Id> && v != kRoot && !is_parent[v]) return v;
    ADD_FAILURE() << "no leaf";
    return 0;
  }

  static constexpr uint64_t kRoot = 458;  // SSSP.md's first root at SCALE 10
  static inline GeneratedEdges* source_ = nullptr;
  static inline TupleShare<GeneratedEdges>* share_ = nullptr;
  static inline DistGraph<Id>* g_ = nullptr;
  static inline Csr<Id, float>* one_ = nullptr;  // the single-process weighted CSR, the oracle
  static inline std::vector<float> dist_;
  static inline std::vector<Id> parent_;
  static inline uint64_t nedge_ = 0;
  static inline DistanceFacts facts_;
  std::vector<float> dist;
  std::vector<Id> parent;
  uint64_t nedge = 0;
};

// A stage end's pull asks other ranks for their vertices' distances: an id no rank holds (a hole of the id space,
// as rows changed on storage could name) is refused, named, instead of read past the holder's arrays.
TEST_F(DistributedSssp, AskingTheDistanceOfNoRanksVertexIsRefused) {
  uint64_t hole = UINT64_MAX;
  for (int r = 0; r < g_->part.ranks && hole == UINT64_MAX; ++r)
    if (g_->part.count(r) < g_->part.span) hole = g_->part.end(r);
  if (hole == UINT64_MAX) GTEST_SKIP() << "no hole in the id space at " << world->size() << " ranks";
  RankRelaxations<Id> ranks(*g_, *world);
  EXPECT_THROW(
      {
        try {
          ranks.words_of({Id(hole)}, [](Id) { return uint64_t(0); });
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("which no rank holds"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
}

// Kernel 3's fused collectives: an array's sum and least lane by lane over the ranks, a lane no rank has
// (UINT64_MAX: no next bucket, no due tail) staying none. A wrong fused least is not always caught by the
// distances (a stage end's pull still converges), so it is checked here on its own.
TEST_F(DistributedSssp, FusedSumsAndLeastsAreLaneByLaneOverTheRanks) {
  RankRelaxations<Id> ranks(*g_, *world);
  const uint64_t r = uint64_t(world->rank()), p = uint64_t(world->size());
  const std::array<uint64_t, 4> mine{100 + r, 7 * (p - r), UINT64_MAX, r == p - 1 ? 5 : UINT64_MAX};
  const std::array<uint64_t, 4> least = ranks.least(mine);
  EXPECT_EQ(least[0], 100u);
  EXPECT_EQ(least[1], 7u);
  EXPECT_EQ(least[2], UINT64_MAX);
  EXPECT_EQ(least[3], 5u);
  const std::array<uint64_t, 2> sums = ranks.sum(std::array<uint64_t, 2>{r, 1});
  EXPECT_EQ(sums[0], p * (p - 1) / 2);
  EXPECT_EQ(sums[1], p);
  EXPECT_EQ(ranks.least(uint64_t(50 + r)), 50u);
  EXPECT_EQ(ranks.sum(uint64_t(2)), 2 * p);
}

TEST_F(DistributedSssp, DistancesAreOneProcessBits) {
  DeltaStepping<Id> one(*one_, 0.1f);
  std::vector<float> d(one_->n);
  std::vector<Id> p(one_->n);
  one.search(internal_ids<Id>({one_->to_input.data(), one_->n}, {kRoot})[0], d.data(), p.data());
  EXPECT_EQ(std::memcmp(d.data(), dist_.data(), d.size() * sizeof(float)), 0);
  EXPECT_EQ(one.reached_raw_degree_sum() / 2, nedge_);
  DistanceFacts f;
  f.add(d.data(), d.size());
  EXPECT_EQ(f.dist_fnv, 0x655f56114f9f3658ull);  // SSSP.md's vector
  EXPECT_EQ(facts_.dist_fnv, f.dist_fnv);
  EXPECT_EQ(facts_.dist_sum, f.dist_sum);
  EXPECT_EQ(facts_.reached, f.reached);
  EXPECT_EQ(facts_.max_dist, f.max_dist);
}

TEST_F(DistributedSssp, RowsHoldTheLightestCopyOfEachEdgeByWeight) {
  std::vector<std::vector<IdPair<Id>>> labels(world->size());  // every distributed id's label, on every rank
  for (int r = 0; r < world->size(); ++r)
    for (uint64_t v = g_->lo; v < g_->hi; ++v) labels[r].push_back({Id(v), g_->label(v)});
  std::vector<Id> input(g_->part.ids(), kNoVertex<Id>);
  for (const IdPair<Id>& p : world->exchange(labels)) input[p.first] = p.second;
  std::vector<Id> internal(one_->n);
  for (uint64_t v = 0; v < one_->n; ++v) internal[one_->to_input[v]] = Id(v);
  uint64_t entries = 0;
  for (uint64_t v = g_->lo; v < g_->hi; ++v) {
    const Id iv = internal[g_->label(v)];
    const auto ids = one_->neighbors(iv);  // by id, each neighbour's lightest copy beside it
    const uint64_t first = g_->rows.offsets[v - g_->lo], last = g_->rows.offsets[v - g_->lo + 1];
    ASSERT_EQ(last - first, ids.size()) << "vertex " << g_->label(v);
    for (uint64_t k = first; k < last; ++k) {
      if (k > first) {
        ASSERT_LE(g_->weighted[k - 1].w, g_->weighted[k].w) << "not by weight";
      }
      const Id iu = internal[input[g_->weighted[k].v]];
      const auto at = std::lower_bound(ids.begin(), ids.end(), iu);
      ASSERT_TRUE(at != ids.end() && *at == iu) << "no such edge";
      EXPECT_EQ(g_->weighted[k].w, one_->weights[one_->offsets[iv] + uint64_t(at - ids.begin())]);
    }
    entries += last - first;
  }
  EXPECT_EQ(world->sum(entries), one_->directed_edges());
}

TEST_F(DistributedSssp, ACorrectResultPasses) {
  const Verdict v = verdict();
  EXPECT_TRUE(v.valid) << v.message;
  EXPECT_EQ(v.nedge, nedge_);
}
TEST_F(DistributedSssp, R1ParentOutOfRange) {
  parent[reached_leaf()] = Id(kSpec.vertex_count() + 5);
  EXPECT_EQ(verdict().rule, 1) << verdict().message;
}
TEST_F(DistributedSssp, R2NegativeDistance) {
  dist[reached_leaf()] = -0.5f;
  EXPECT_EQ(verdict().rule, 2) << verdict().message;
}
TEST_F(DistributedSssp, R3ReachedWithoutAParent) {
  parent[reached_leaf()] = kNoVertex<Id>;
  EXPECT_EQ(verdict().rule, 3) << verdict().message;
}
TEST_F(DistributedSssp, R4RootNotAtZero) {
  dist[kRoot] = 0.25f;
  EXPECT_EQ(verdict().rule, 4) << verdict().message;
}
TEST_F(DistributedSssp, R5AReachedVertexLeftUnreached) {
  const uint64_t v = reached_leaf();
  parent[v] = kNoVertex<Id>, dist[v] = -1.0f;
  const Verdict bad = verdict();
  EXPECT_EQ(bad.rule, 5) << bad.message;
  EXPECT_NE(bad.message.find("visited and unvisited"), std::string::npos) << bad.message;
}
TEST_F(DistributedSssp, R5ADistanceTooLarge) {
  const uint64_t v = reached_leaf();
  dist[v] = std::nextafter(dist[v], 10.0f);
  const Verdict bad = verdict();
  EXPECT_EQ(bad.rule, 5) << bad.message;
  EXPECT_NE(bad.message.find("triangle"), std::string::npos) << bad.message;
}
TEST_F(DistributedSssp, R6ADistanceTooSmall) {
  const uint64_t v = reached_leaf();
  dist[v] = std::nextafter(dist[v], 0.0f);
  EXPECT_EQ(verdict().rule, 6) << verdict().message;
}
TEST_F(DistributedSssp, R6AWrongParent) {
  const uint64_t v = reached_leaf();
  const uint64_t iv = internal_ids<Id>({one_->to_input.data(), one_->n}, {v})[0];
  for (const Id u : one_->neighbors(iv))  // a neighbour whose edge is not tight
    if (one_->to_input[u] != parent[v] && dist[one_->to_input[u]] + 0.0f != dist[v]) {
      parent[v] = one_->to_input[u];
      break;
    }
  ASSERT_NE(parent[v], parent_[v]);
  EXPECT_EQ(verdict().rule, 6) << verdict().message;
}
TEST_F(DistributedSssp, R7AWrongNedge) {
  ++nedge;
  EXPECT_EQ(verdict().rule, 7) << verdict().message;
}

// A fixed weighted tuple list as an edge source (one chunk, so rank 0 reads it all).
struct FixedTuples {
  KroneckerSpec s;
  std::vector<Edge> edges;
  std::vector<float> weights;
  const KroneckerSpec& spec() const { return s; }
  uint64_t chunk_edges() const { return edges.size(); }
  uint64_t chunk_count() const { return 1; }
  std::span<const Edge> read_chunk(uint64_t, ChunkBuffer&) const { return edges; }
  std::span<const Edge> read_weighted_chunk(uint64_t, ChunkBuffer& buffer) const {
    buffer.weights = weights;
    return edges;
  }
};

// R8, which the reference lacks: a parent cycle whose edges all confirm, made possible by absorption
// (fl32(1 + 1e-10) == 1). Path 0 -1.0- 1 -1e-10- 2: dist 0, 1, 1; the parents of 1 and 2 point at each other.
TEST(DistributedSsspValidator, AParentCycleThatConfirmsIsRefusedByTheTreeCheck) {
  using Id = uint32_t;
  const FixedTuples tuples{{2, 16, 2, 3}, {{0, 1}, {1, 2}}, {1.0f, 1e-10f}};
  const TupleShare<FixedTuples> share(tuples, *world);
  DistGraph<Id> g;  // what add_sssp reads of it: its vertices and their labels
  g.n = 3;
  g.part = VertexDeal(3, world->size());
  g.lo = g.part.begin(world->rank());
  g.hi = g.part.end(world->rank());
  g.rows.to_input = NumaArray<Id>(g.local_count());
  for (uint64_t v = g.lo; v < g.hi; ++v) g.rows.to_input[v - g.lo] = Id(g.part.degree_rank(v));
  ASSERT_EQ(1.0f + 1e-10f, 1.0f);
  auto verdict = [&](const std::vector<Id>& parent) {
    const std::vector<float> dist = {0.0f, 1.0f, 1.0f};
    std::vector<float> d;
    std::vector<Id> p;
    for (uint64_t v = g.lo; v < g.hi; ++v) {
      d.push_back(dist[g.label(v)]);
      p.push_back(parent[g.label(v)]);
    }
    DistValidator<Id> validator(g.n, *world, 1, /*weighted=*/true);
    validator.add_sssp(g, d.data(), p.data(), 0, 2);
    return validator.check(share)[0];
  };
  EXPECT_TRUE(verdict({0, 0, 1}).valid) << verdict({0, 0, 1}).message;
  const Verdict bad = verdict({0, 2, 1});
  EXPECT_EQ(bad.rule, 8) << bad.message;
  EXPECT_NE(bad.message.find("cycle"), std::string::npos) << bad.message;
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


// A rank's received rows on storage (RowBuckets): ranges of at most the budget's rows cover the rank's lists, a
// list longer than that alone; every pair put in comes back once, in its range, as (list, entry).
TEST(RowBuckets, RangesCoverTheListsAndGiveBackWhatWasPut) {
  test::TempDir tmp;
  DistGraph<uint32_t> g;
  g.n = 1000, g.lo = 0, g.hi = 300;
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < 300; ++i) g.raw_degree.push_back(i == 5 ? 5000 : rng() % 40);  // list 5: over a range
  constexpr uint64_t kRowsBytes = 4096;  // 1024 entries a range
  RowBuckets<uint32_t> rows(tmp.path(), g, kRowsBytes, 1 << 20);
  ASSERT_GE(rows.ranges(), 3u);
  EXPECT_EQ(rows.bounds.front(), 0u);
  EXPECT_EQ(rows.bounds.back(), 300u);
  for (size_t k = 0; k < rows.ranges(); ++k) {
    const uint64_t lo = rows.bounds[k], hi = rows.bounds[k + 1];
    ASSERT_LT(lo, hi);
    if (hi - lo > 1) {
      EXPECT_LE((rows.raw[hi] - rows.raw[lo]) * 4, kRowsBytes) << "range " << k;
    }
  }
  EXPECT_NE(std::find(rows.bounds.begin(), rows.bounds.end(), 5u), rows.bounds.end()) << "list 5 starts a range";
  EXPECT_NE(std::find(rows.bounds.begin(), rows.bounds.end(), 6u), rows.bounds.end()) << "and has it alone";
  const uint32_t ranks = 3;  // pairs name the owner's degree rank: list i is rank i * ranks + r
  std::vector<IdPair<uint32_t>> pairs;
  std::multiset<std::pair<uint64_t, uint64_t>> put, got;
  for (uint64_t i = 0; i < 300; ++i)
    for (uint64_t j = 0; j < g.raw_degree[i]; ++j) {
      pairs.push_back({uint32_t(i * ranks + 1), uint32_t(rng() % g.n)});
      put.insert({i, pairs.back().second});
    }
  std::shuffle(pairs.begin(), pairs.end(), rng);
  rows.add(pairs, ranks);
  rows.buckets.finish();
  for (size_t k = 0; k < rows.ranges(); ++k)
    rows.buckets.for_each_batch(k, [&](const uint32_t* list, const uint32_t* entry, size_t count) {
#pragma omp critical
      for (size_t j = 0; j < count; ++j) got.insert({rows.bounds[k] + list[j], entry[j]});
    });
  EXPECT_TRUE(got == put) << got.size() << " rows back of " << put.size();
  EXPECT_LT(rows.buckets.written_bytes(), put.size() * 8) << "coded below the pairs' 8 bytes an entry";
}

// The rank searches come from the built-in tiers' sources (tiers/builtin.hpp); a tier registered at run time
// runs in one process only and is refused under mpirun by name, before any work.
struct RegisteredLaterTier : InCoreTier {
  static constexpr Tier kTier{"registered-later", false, false, true, false};
};

TEST(RankTiers, ATierRegisteredAtRunTimeIsRefusedByName) {
  static const bool registered = [] {
    register_tier(make_tier_entry<RegisteredLaterTier>());
    return true;
  }();
  ASSERT_TRUE(registered);
  RunConfig cfg;
  cfg.spec = {10, 16, 2, 3};
  EXPECT_NO_THROW(check_mpi_config(cfg, {}, 2));
  cfg.place.tier = find_tier("registered-later");
  ASSERT_NE(cfg.place.tier, nullptr);
  try {
    check_mpi_config(cfg, {}, 2);
    ADD_FAILURE() << "a tier without a rank search was accepted under mpirun";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--placement registered-later does not run under mpirun"), std::string::npos)
        << e.what();
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
