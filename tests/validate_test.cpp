// A validator that cannot catch a planted error is a bug: plant each kind into a correct result.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/ids.hpp"
#include "bfs/hybrid_bfs.hpp"
#include "engine/build_csr.hpp"
#include "engine/memory.hpp"
#include "engine/placement.hpp"
#include "generators/edge_stream.hpp"
#include "core/error.hpp"
#include "engine/build_csr_files.hpp"
#include "storage/graph_dir.hpp"
#include "test_util.hpp"
#include "validate/csr_pass_validator.hpp"
#include "validate/csr_validator.hpp"
#include "validate/stats.hpp"
#include "validate/validator.hpp"

namespace strata {
namespace {

// The suite's graph as an out-of-core run has it: a graph directory, its on-disk CSR in two partitions, the O(N)
// arrays loaded, and the inverse of its labels (to give the searches' internal parents).
struct OnDiskGraph {
  test::TempDir tmp;
  CsrFiles files;
  Csr<uint32_t> g;
  std::vector<uint32_t> from_input;
  explicit OnDiskGraph(const KroneckerSpec& spec) {
    write_graph_dir(Kronecker(spec), tmp / "g", false);
    const GraphDir dir = GraphDir::open(tmp / "g");
    const std::string path = CsrFiles::path_for(dir.path(), 2);
    build_csr_files<uint32_t>(dir, path, 2, Topology::detect(), uint64_t(1) << 20, {}, nullptr);
    files = CsrFiles::open(path, dir.header_hash(), spec.scale);
    g = load_csr_meta<uint32_t>(files);
    from_input.resize(g.n);
    for (uint64_t v = 0; v < g.n; ++v) from_input[g.to_input[v]] = uint32_t(v);
  }
  // A search's internal parents from its output: what a search that wrote this output holds.
  std::vector<uint32_t> internal(const std::vector<uint32_t>& out) const {
    std::vector<uint32_t> p(g.n);
    for (uint64_t v = 0; v < g.n; ++v) {
      const uint32_t q = out[g.to_input[v]];
      p[v] = q == kNoVertex<uint32_t> || q >= g.n ? q : from_input[q];
    }
    return p;
  }
};

// One correct search, built once for the suite; each test plants its error into a copy and checks it against
// the tuples (alone and in a packed batch), the certified CSR, and the on-disk CSR in a spilled batch (the
// parameter).
class PlantedErrors : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    g = build_csr<uint32_t>(source);
    Partitioning p = partition_by_work(g, 1, Topology::detect());
    HybridBfs<uint32_t> bfs(g, p, BfsOptions{});
    parent.resize(g.n);
    bfs.search(internal_ids(g, {root})[0], parent.data());
    nedge = bfs.reached_raw_degree_sum() / 2;
    adjacent.resize(g.n);
    for (uint64_t v = 0; v < g.n; ++v)
      for (uint32_t u : g.neighbors(v)) adjacent[g.to_input[v]].push_back(g.to_input[u]);
    level.assign(g.n, -1);
    for (uint64_t v = 0; v < g.n; ++v)
      if (parent[v] != kNoVertex<uint32_t>) {
        int d = 0;
        for (uint64_t u = v; u != root; u = parent[u]) ++d;
        level[v] = d;
      }
  }
  static void TearDownTestSuite() {
    csr.reset();
    disk.reset();
    g = Csr<uint32_t>();
  }
  Verdict check(const std::vector<uint32_t>& p, uint64_t claimed) {
    SearchToCheck<uint32_t> c{root, p.data(), claimed};
    if (GetParam() == "tuples") return validate_searches<uint32_t>(source, {&c, 1})[0];
    if (GetParam() == "packed") {  // slot 9 of a packed batch of 11 (the second group of eight), among correct results
      const SearchToCheck<uint32_t> good{root, parent.data(), nedge};
      std::vector<SearchToCheck<uint32_t>> batch(11, good);
      batch[9] = c;
      const std::vector<Verdict> v = validate_searches<uint32_t>(source, batch);
      for (size_t i = 0; i < v.size(); ++i)
        if (i != 9) {
          EXPECT_TRUE(v[i].valid) << "a planted error leaked into slot " << i << ": " << v[i].message;
        }
      return v[9];
    }
    if (GetParam().rfind("ondisk", 0) == 0) return check_on_disk(p, claimed);
    if (!csr) csr.emplace(g, source);
    return csr->check(c);
  }
  // Slot 9 of a spilled batch of 11 among correct results, checked in one pass in 4 KiB steps (so that lists
  // cross the steps' edges) over a two-partition on-disk CSR: levels as nibbles in the pass and in the spilled
  // words' top 4 bits, as at SCALE 28 ("ondisk"); as bytes in two passes of 6 and 5 ("ondisk_bytes": the batch's
  // trees taken as too deep for nibbles), spilled in the words' wider top; or as nibbles, spilled apart from the
  // parents as above 2^28 vertices ("ondisk_apart").
  // internal: the planted search's own parents (default: the output's, translated). in_output: the levels'
  // scratch is each output's own memory, as in a run (else apart from it).
  Verdict check_on_disk(const std::vector<uint32_t>& p, uint64_t claimed, std::vector<uint32_t> internal = {},
                        bool in_output = false) {
    if (!disk) disk.emplace(spec);
    std::vector<int32_t> apart(g.n);
    std::vector<uint32_t> output(g.n);
    const std::span<int32_t> scratch = in_output ? std::span<int32_t>(reinterpret_cast<int32_t*>(output.data()), g.n)
                                                 : std::span<int32_t>(apart);
    const bool bytes = GetParam() == "ondisk_bytes";
    const int level_bits = GetParam() == "ondisk" ? 4 : GetParam() == "ondisk_apart" ? -1 : 0;
    CsrPassValidator<uint32_t> batch(disk->g, disk->files, disk->tmp.path(), 11, scratch, 4096,
                                     bytes ? 0 : CsrPassValidator<uint32_t>::kNibbleMaxLevel, 0, level_bits);
    const std::vector<uint32_t> good = disk->internal(parent), planted = internal.empty() ? disk->internal(p) : internal;
    Verdict now;
    std::optional<Verdict> at_once;
    for (int i = 0; i < 11; ++i) {
      const bool mine = i == 9;
      if (in_output) output = mine ? p : parent;
      const SearchToCheck<uint32_t> c{root, in_output ? output.data() : mine ? p.data() : parent.data(),
                                      mine ? claimed : nedge};
      const auto added = batch.add(c, mine ? planted.data() : good.data(), disk->from_input[root], scratch, now);
      EXPECT_NE(added, CsrPassValidator<uint32_t>::Added::kTooDeep);
      if (added == CsrPassValidator<uint32_t>::Added::kChecked) {
        EXPECT_TRUE(mine) << "a correct result was refused: " << now.message;
        at_once = now;
      }
    }
    const std::vector<Verdict> v = batch.check();
    EXPECT_EQ(batch.last_passes(), bytes && v.size() > 6 ? 2 : 1);
    for (size_t i = 0; i < v.size(); ++i)
      if (i != 9 || at_once) {
        EXPECT_TRUE(v[i].valid) << "a planted error leaked into slot " << i << ": " << v[i].message;
      }
    return at_once ? *at_once : v.at(9);
  }
  bool is_edge(uint64_t a, uint64_t b) {
    for (uint64_t x : adjacent[a])
      if (x == b) return true;
    return false;
  }
  bool has_children(uint64_t v) {
    for (uint64_t u = 0; u < g.n; ++u)
      if (u != v && parent[u] == v) return true;
    return false;
  }
  void expect_rule(const Verdict& v, std::initializer_list<int> rules, const char* what) {
    EXPECT_FALSE(v.valid) << what << " was not caught";
    bool named = false;
    for (int r : rules) named |= v.rule == r && v.message.find("rule " + std::to_string(r)) == 0;
    EXPECT_TRUE(named) << what << ": " << v.message;
  }

  static inline const KroneckerSpec spec{10, 16, 2, 3};
  static inline const GeneratedEdges source{Kronecker(spec)};
  static inline Csr<uint32_t> g;
  static constexpr uint64_t root = 458;
  static inline std::vector<uint32_t> parent;
  static inline std::vector<std::vector<uint64_t>> adjacent;
  static inline std::vector<int> level;
  static inline uint64_t nedge = 0;
  static inline std::optional<CsrValidator<uint32_t>> csr;
  static inline std::optional<OnDiskGraph> disk;
};

TEST_P(PlantedErrors, CorrectResultPasses) {
  Verdict v = check(parent, nedge);
  EXPECT_TRUE(v.valid) << v.message;
  EXPECT_EQ(v.nedge, 16239u);
}

TEST_P(PlantedErrors, CycleInsideRootComponent) {
  auto p = parent;
  for (uint64_t v = 0; v < g.n; ++v)
    if (level[v] == 3) {
      p[parent[v]] = uint32_t(v);  // v -> parent(v) -> v
      break;
    }
  Verdict v = check(p, nedge);
  expect_rule(v, {1}, "cycle inside the component");
  EXPECT_NE(v.message.find("cycle"), std::string::npos) << v.message;
}

TEST_P(PlantedErrors, CycleOutsideRootComponent) {
  // The reference 3.0 validator can miss this one.
  auto p = parent;
  std::vector<uint64_t> outside;
  for (uint64_t v = 0; v < g.n && outside.size() < 3; ++v)
    if (parent[v] == kNoVertex<uint32_t>) outside.push_back(v);
  ASSERT_EQ(outside.size(), 3u);
  p[outside[0]] = uint32_t(outside[1]);
  p[outside[1]] = uint32_t(outside[2]);
  p[outside[2]] = uint32_t(outside[0]);
  Verdict v = check(p, nedge);
  expect_rule(v, {1}, "cycle outside the component");
  EXPECT_NE(v.message.find("cycle"), std::string::npos) << v.message;
}

TEST_P(PlantedErrors, LevelSkip) {
  // v hangs from its grandparent: a tree edge spanning two BFS levels, which can never be an input edge.
  auto p = parent;
  uint64_t v = 0;
  while (level[v] < 2) ++v;
  p[v] = parent[parent[v]];
  expect_rule(check(p, nedge), {3, 5}, "level skip");
}

TEST_P(PlantedErrors, LevelGapWithEveryTreeEdgeAnInputEdge) {
  // v (level 2) re-hangs from w, a neighbour on its own level: every tree edge is still an input edge (rule 5
  // holds), but v drops to level 3 and its edge to its old parent (level 1) now spans two levels: rule 3 only.
  auto p = parent;
  for (uint64_t v = 0; v < g.n; ++v) {
    if (level[v] != 2 || has_children(v)) continue;
    for (uint64_t w : adjacent[v])
      if (level[w] == 2) {
        p[v] = uint32_t(w);
        expect_rule(check(p, nedge), {3}, "a two-level gap");
        return;
      }
  }
  FAIL() << "no level-2 leaf with a level-2 neighbour";
}

TEST_P(PlantedErrors, MissingReachedVertex) {
  auto p = parent;
  uint64_t v = 0;
  while (level[v] < 1 || has_children(v)) ++v;
  p[v] = kNoVertex<uint32_t>;
  expect_rule(check(p, nedge), {4}, "a reached vertex left out");
}

TEST_P(PlantedErrors, ParentWithoutInputEdge) {
  // Same level as the true parent (so levels stay consistent), but not a neighbour.
  auto p = parent;
  for (uint64_t v = 0; v < g.n; ++v) {
    if (level[v] < 2 || has_children(v)) continue;
    for (uint64_t w = 0; w < g.n; ++w)
      if (level[w] == level[v] - 1 && !is_edge(v, w)) {
        p[v] = uint32_t(w);
        expect_rule(check(p, nedge), {5}, "parent without an input edge");
        return;
      }
  }
  FAIL() << "no candidate found";
}

TEST_P(PlantedErrors, IsolatedVertexWithAParent) {
  // A vertex without edges hung from the root: levels stay consistent (rule 1), but no edge joins them.
  auto p = parent;
  uint64_t v = 0;
  while (v < g.n && (!adjacent[v].empty() || v == root)) ++v;
  ASSERT_LT(v, g.n);
  p[v] = uint32_t(root);
  expect_rule(check(p, nedge), {5}, "an isolated vertex with a parent");
}

TEST_P(PlantedErrors, OutOfRangeParent) {
  auto p = parent;
  uint64_t v = 0;
  while (level[v] < 1) ++v;
  p[v] = uint32_t(g.n + 5);
  Verdict verdict = check(p, nedge);
  expect_rule(verdict, {1}, "out-of-range parent");
  EXPECT_NE(verdict.message.find("out-of-range"), std::string::npos);
}

TEST_P(PlantedErrors, RootNotItsOwnParent) {
  auto p = parent;
  p[root] = uint32_t(adjacent[root][0]);
  expect_rule(check(p, nedge), {1}, "root not its own parent");
}

TEST_P(PlantedErrors, WrongNedge) {
  Verdict v = check(parent, nedge + 1);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.message.find("nedge mismatch"), std::string::npos) << v.message;
}

TEST_P(PlantedErrors, BatchKeepsVerdictsApart) {
  auto bad = parent;
  bad[root] = kNoVertex<uint32_t>;
  if (GetParam() == "csr" || GetParam().rfind("ondisk", 0) == 0) {  // a failure must not stick to the next check
    EXPECT_FALSE(check(bad, nedge).valid);
    EXPECT_TRUE(check(parent, nedge).valid);
    return;
  }
  std::vector<SearchToCheck<uint32_t>> batch = {{root, parent.data(), nedge}, {root, bad.data(), nedge}};
  auto v = validate_searches<uint32_t>(source, batch);
  EXPECT_TRUE(v[0].valid);
  EXPECT_FALSE(v[1].valid);
}

INSTANTIATE_TEST_SUITE_P(Against, PlantedErrors,
                         ::testing::Values("tuples", "packed", "csr", "ondisk", "ondisk_bytes", "ondisk_apart"),
                         [](const auto& param_info) { return param_info.param; });

// What only the on-disk CSR's validation checks: rules 3-5 run on the search's internal parents, so they must
// be the output's.
class OnDiskOnly : public PlantedErrors {};
INSTANTIATE_TEST_SUITE_P(Against, OnDiskOnly, ::testing::Values("ondisk", "ondisk_bytes", "ondisk_apart"),
                         [](const auto& param_info) { return param_info.param; });

TEST_P(OnDiskOnly, OutputThatIsNotTheSearchsOwn) {
  if (!disk) disk.emplace(spec);
  std::vector<uint32_t> internal = disk->internal(parent);
  uint64_t v = 0;  // a level-2 leaf hung from its grandparent in the search's array only: still a tree
  while (level[v] != 2 || has_children(v)) ++v;
  const uint32_t x = disk->from_input[v];
  internal[x] = internal[internal[x]];
  const Verdict verdict = check_on_disk(parent, nedge, internal);
  EXPECT_FALSE(verdict.valid);
  EXPECT_NE(verdict.message.find("not the search's own: vertex " + std::to_string(v) + " has parent"),
            std::string::npos) << verdict.message;
  // As in a run: the levels written over the output, which can then no longer name the vertex.
  const Verdict in_output = check_on_disk(parent, nedge, internal, true);
  EXPECT_FALSE(in_output.valid);
  EXPECT_EQ(in_output.rule, 7);
  EXPECT_NE(in_output.message.find("not the search's own"), std::string::npos) << in_output.message;
}

TEST_P(OnDiskOnly, OutputThatGivesAVertexWithoutEdgesAParent) {
  // A vertex with no list is in no pass (the tail, ids by degree): its output entry is checked by the translation
  // check alone, whose internal side sums the tail apart from the spilled vertices.
  if (!disk) disk.emplace(spec);
  const std::vector<uint32_t> internal = disk->internal(parent);
  uint64_t v = 0;
  while (v < g.n && (!adjacent[v].empty() || parent[v] != kNoVertex<uint32_t>)) ++v;
  ASSERT_LT(v, g.n) << "the test graph has no vertex without edges";
  std::vector<uint32_t> output = parent;
  output[v] = uint32_t(root);
  for (const bool in_output : {false, true}) {
    const Verdict verdict = check_on_disk(output, nedge, internal, in_output);
    EXPECT_FALSE(verdict.valid);
    EXPECT_EQ(verdict.rule, 7) << verdict.message;
    EXPECT_NE(verdict.message.find("not the search's own"), std::string::npos) << verdict.message;
  }
}

TEST_P(OnDiskOnly, OutputWithTwoParentsSwapped) {
  // The translation check sums the entries as a multiset hash: two entries exchanged keep every parent value
  // and the sum of the values, and must still be caught.
  if (!disk) disk.emplace(spec);
  const std::vector<uint32_t> internal = disk->internal(parent);
  uint64_t a = 0;
  while (a == root || parent[a] == kNoVertex<uint32_t>) ++a;
  uint64_t b = a + 1;  // another reached vertex, with another parent
  while (b == root || parent[b] == kNoVertex<uint32_t> || parent[b] == parent[a]) ++b;
  std::vector<uint32_t> output = parent;
  std::swap(output[a], output[b]);
  const Verdict verdict = check_on_disk(output, nedge, internal);
  EXPECT_FALSE(verdict.valid);
  EXPECT_NE(verdict.message.find("not the search's own"), std::string::npos) << verdict.message;
}

// A spilled word holds a level as deep as its top bits allow (14 in a nibble, as at SCALE 28): a deeper tree is
// left to the caller (checked in place), as one deeper than a byte is; with the graph's own, wider top bits or
// the levels apart, the same tree is spilled. It sets each layout itself: one entry, not one a parameter.
class OnDiskWords : public PlantedErrors {};
TEST_F(OnDiskWords, TreesDeeperThanTheWordHoldsAreLeftToTheCaller) {
  if (!disk) disk.emplace(spec);
  const Csr<uint32_t>& dg = disk->g;
  std::vector<uint32_t> out(dg.n, kNoVertex<uint32_t>);
  out[dg.to_input[0]] = dg.to_input[0];
  for (uint64_t v = 1; v <= 20; ++v) out[dg.to_input[v]] = dg.to_input[v - 1];  // a chain 20 deep (a tree)
  const std::vector<uint32_t> internal = disk->internal(out);
  for (int bits : {4, 0, -1}) {
    std::vector<int32_t> scratch(dg.n);
    CsrPassValidator<uint32_t> batch(dg, disk->files, disk->tmp.path(), 2, scratch, 0,
                                     CsrPassValidator<uint32_t>::kNibbleMaxLevel, 0, bits);
    Verdict v;
    EXPECT_EQ(batch.add({dg.to_input[0], out.data(), 20}, internal.data(), 0, scratch, v),
              bits == 4 ? CsrPassValidator<uint32_t>::Added::kTooDeep : CsrPassValidator<uint32_t>::Added::kAdded)
        << bits << ": " << v.message;
  }
}

TEST_P(OnDiskOnly, LabelsThatAreNoPermutationAreRefused) {
  // The translation check covers every output entry only if kernel 1's labels are a permutation.
  if (!disk) disk.emplace(spec);
  std::vector<int32_t> scratch(g.n);
  const uint32_t kept = disk->g.to_input[0];
  disk->g.to_input[0] = disk->g.to_input[1];
  try {
    CsrPassValidator<uint32_t> batch(disk->g, disk->files, disk->tmp.path(), 2, scratch);
    ADD_FAILURE() << "shared labels were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'s label " + std::to_string(disk->g.to_input[1]) + " is out of range or shared"),
              std::string::npos)
        << e.what();
  }
  disk->g.to_input[0] = kept;
}

// A path of 300 vertices (0-1-2-...-299) as an edge source: a BFS tree from 0 is deeper than a packed level
// byte holds, so a packed batch must check it in place, with the same rules.
struct PathEdges {
  static constexpr uint64_t kLength = 300;
  KroneckerSpec spec_{9, 1, 1, 1};
  const KroneckerSpec& spec() const { return spec_; }
  template <class Fn>
  void for_each_edge_chunk(Fn&& fn) const {
    std::vector<Edge> edges;
    for (uint64_t v = 0; v + 1 < kLength; ++v) edges.push_back({v + 1, v});
    fn(0, std::span<const Edge>(edges));
  }
};

TEST(PackedBatch, TreesDeeperThanAByteAreCheckedInPlace) {
  const PathEdges path;
  const uint64_t n = path.spec().vertex_count();
  std::vector<uint32_t> parent(n, kNoVertex<uint32_t>);
  for (uint64_t v = 0; v < PathEdges::kLength; ++v) parent[v] = uint32_t(v == 0 ? 0 : v - 1);
  auto skip = parent;
  skip[280] = 278;  // a tree edge over two levels at depth 280: no input edge joins them
  const std::vector<SearchToCheck<uint32_t>> batch = {{0, parent.data(), PathEdges::kLength - 1},
                                                      {0, skip.data(), PathEdges::kLength - 1}};
  const std::vector<Verdict> v = validate_searches<uint32_t>(path, batch);
  EXPECT_TRUE(v[0].valid) << v[0].message;
  EXPECT_FALSE(v[1].valid);
  EXPECT_TRUE(v[1].message.rfind("rule 3", 0) == 0 || v[1].message.rfind("rule 5", 0) == 0) << v[1].message;
  // Packed alone, the level bytes would wrap (280 - 256 = 24): the batch must not take such a tree.
  BatchValidator<uint32_t> packed(n, 2);
  std::vector<int32_t> scratch(n);
  EXPECT_FALSE(packed.add(batch[0], scratch));
  EXPECT_EQ(packed.size(), 0);
}

// The CSR validator keeps a byte a vertex for the levels while the tree allows and 4 bytes past depth 254: the
// path's tree (depth 299) takes the wide levels, a shallow one the bytes; both catch a tree edge over two levels.
TEST(CsrValidatorLevels, TreesDeeperThanAByteAreCheckedWithWideLevels) {
  const PathEdges path;
  const Csr<uint32_t> g = build_csr<uint32_t>(path);
  const CsrValidator<uint32_t> csr(g, path);
  const uint64_t n = path.spec().vertex_count();
  for (uint64_t root : {uint64_t(0), uint64_t(150)}) {  // depth 299 (wide), depth 149 (bytes)
    std::vector<uint32_t> parent(n, kNoVertex<uint32_t>);
    for (uint64_t v = 0; v < PathEdges::kLength; ++v) parent[v] = uint32_t(v == root ? v : v < root ? v + 1 : v - 1);
    std::vector<int32_t> spare(n);
    const Verdict good = csr.check({root, parent.data(), PathEdges::kLength - 1}, spare);
    EXPECT_TRUE(good.valid) << root << ": " << good.message;
    parent[root + 140] = uint32_t(root + 138);  // skips a level, deep in the tree
    const Verdict bad = csr.check({root, parent.data(), PathEdges::kLength - 1}, spare);
    EXPECT_FALSE(bad.valid) << root;
    EXPECT_TRUE(bad.message.rfind("rule 3", 0) == 0 || bad.message.rfind("rule 5", 0) == 0) << bad.message;
  }
}

TEST(PackedBatch, MemoryModelIsWhatTheBatchAllocates) {
  for (int slots : {1, 2, 7, 8, 9, 64})
    EXPECT_EQ(BatchValidator<uint32_t>::batch_bytes(1000, slots), validation_batch_bytes(1000, 4, slots)) << slots;
  EXPECT_EQ(BatchValidator<uint64_t>::batch_bytes(1000, 9), validation_batch_bytes(1000, 8, 9));
}

// The CSR certificate: kernel 1's graph is trusted by the CSR validator only once it is proved equal to the
// tuples; each test damages a fresh CSR the way a kernel-1 bug could and expects the certificate to refuse it.
class CsrCertificate : public ::testing::Test {
 protected:
  void SetUp() override { g = build_csr<uint32_t>(source); }
  std::string refusal() {
    try {
      CsrValidator<uint32_t> v(g, source);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  // An entry of a list of at least two whose value can be raised by one without leaving its list sorted or
  // meeting its vertex, with u < v (below the diagonal) or u > v.
  uint64_t raisable_entry(bool below) {
    for (uint64_t v = 0; v < g.n; ++v)
      for (uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) {
        const uint64_t u = g.adj[i], next = i + 1 < g.offsets[v + 1] ? g.adj[i + 1] : g.n;
        if ((u < v) == below && u + 1 < next && u + 1 != v && u + 1 < v + (below ? 0 : g.n)) return i;
      }
    ADD_FAILURE() << "no raisable entry";
    return 0;
  }
  static inline const KroneckerSpec spec{8, 16, 5, 6};
  static inline const GeneratedEdges source{Kronecker(spec)};
  Csr<uint32_t> g;
};

TEST_F(CsrCertificate, AcceptsKernelOnesGraph) { EXPECT_EQ(refusal(), ""); }

TEST_F(CsrCertificate, RefusesAChangedEntryBelowTheDiagonal) {
  ++g.adj[raisable_entry(true)];  // a tuple's edge is gone and an edge no tuple has appears
  EXPECT_NE(refusal().find("does not match the tuples"), std::string::npos);
}

TEST_F(CsrCertificate, RefusesAnAsymmetricEntryAboveTheDiagonal) {
  ++g.adj[raisable_entry(false)];  // only the symmetry test sees this side
  EXPECT_NE(refusal().find("not symmetric"), std::string::npos) << refusal();
}

TEST_F(CsrCertificate, RefusesASelfLoop) {
  for (uint64_t v = 1; v < g.n; ++v)
    if (g.degree(v) > 0 && g.adj[g.offsets[v + 1] - 1] < v) {
      g.adj[g.offsets[v + 1] - 1] = uint32_t(v);  // the list's largest entry becomes v itself: still sorted
      EXPECT_NE(refusal().find("does not match the tuples"), std::string::npos) << refusal();
      return;
    }
  FAIL() << "no candidate";
}

TEST_F(CsrCertificate, RefusesAWrongDuplicateCount) {
  uint64_t v = 0;
  while (g.duplicates[v] == Csr<uint32_t>::kManyDuplicates) ++v;
  ++g.duplicates[v];  // nedge would be off
  EXPECT_NE(refusal().find("tuple ends"), std::string::npos) << refusal();
}

// Kernel 3's weights are certified with the graph: each entry holds the lightest of its tuples' weights, the
// same in both directions. Each test changes a weight the way a kernel-1 bug could (keeping the first copy, a
// lost update, one direction written) and expects the certificate to refuse it.
class WeightedCsrCertificate : public ::testing::Test {
 protected:
  void SetUp() override { g = build_csr<uint32_t, float>(source); }
  std::string refusal() {
    try {
      CsrValidator<uint32_t> v(g, source, g.weights.data());
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  // An entry (v, u) with u < v (the one a tuple looks up) and its mirror (u, v).
  std::pair<uint64_t, uint64_t> entry_and_mirror() {
    for (uint64_t v = 0; v < g.n; ++v)
      for (uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i)
        if (const uint64_t u = g.adj[i]; u < v)
          for (uint64_t j = g.offsets[u]; j < g.offsets[u + 1]; ++j)
            if (g.adj[j] == v) return {i, j};
    ADD_FAILURE() << "no entry";
    return {0, 0};
  }
  static inline const KroneckerSpec spec{8, 16, 5, 6};
  static inline const GeneratedEdges source{Kronecker(spec)};
  Csr<uint32_t, float> g;
};

TEST_F(WeightedCsrCertificate, AcceptsKernelOnesWeights) { EXPECT_EQ(refusal(), ""); }

TEST_F(WeightedCsrCertificate, RefusesAHeavierWeightThanTheLightestCopy) {
  const auto [i, j] = entry_and_mirror();
  g.weights[i] = g.weights[j] = std::nextafter(g.weights[i], 2.0f);  // the lightest tuple is now lighter than it
  EXPECT_NE(refusal().find("less than the CSR's"), std::string::npos) << refusal();
}

TEST_F(WeightedCsrCertificate, RefusesAWeightNoTupleHas) {
  const auto [i, j] = entry_and_mirror();
  g.weights[i] = g.weights[j] = std::nextafter(g.weights[i], 0.0f);
  EXPECT_NE(refusal().find("whose weight no copy of its tuple has"), std::string::npos) << refusal();
}

TEST_F(WeightedCsrCertificate, RefusesDirectionsOfDifferentWeights) {
  const auto [i, j] = entry_and_mirror();
  g.weights[j] = std::nextafter(g.weights[j], 2.0f);  // only the mirror, which no tuple looks up
  EXPECT_NE(refusal().find("not symmetric"), std::string::npos) << refusal();
  (void)i;
}

// Lists light part first (the in-core kernel 3 run's, Csr::light_below): the certificate looks each tuple up in
// its light part, then by id in the rest, so it certifies them, and still refuses a changed light entry.
TEST(LightFirstCsrCertificate, AcceptsTheListsAndRefusesAChangedLightEntry) {
  const GeneratedEdges source{Kronecker({8, 16, 5, 6})};
  const float below = 0.1f;
  Csr<uint32_t, float> g = build_csr<uint32_t, float>(source, {}, nullptr, below);
  auto refusal = [&] {
    try {
      CsrValidator<uint32_t> v(g, source, g.weights.data(), below);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal(), "");
  uint64_t at = UINT64_MAX;  // a light entry (v, u), u < v, that a tuple looks up: its id changed
  for (uint64_t v = 0; v < g.n && at == UINT64_MAX; ++v)
    for (uint64_t i = g.offsets[v]; i < g.offsets[v + 1] && g.weights[i] < below; ++i)
      if (g.adj[i] + 1 < v) {
        at = i;
        break;
      }
  ASSERT_NE(at, UINT64_MAX);
  ++g.adj[at];
  EXPECT_NE(refusal().find("does not match the tuples"), std::string::npos) << refusal();
}

TEST_F(CsrCertificate, RefusesLabelsThatAreNoPermutation) {
  g.to_input[1] = g.to_input[0];
  EXPECT_NE(refusal().find("label"), std::string::npos) << refusal();
}

TEST_F(CsrCertificate, RefusesSwappedLabels) {
  uint64_t a = 0, b = 1;  // two vertices with different lists: swapping their labels moves edges
  while (b < g.n && g.degree(b) == g.degree(a)) ++b;
  ASSERT_LT(b, g.n);
  std::swap(g.to_input[a], g.to_input[b]);
  EXPECT_NE(refusal().find("does not match the tuples"), std::string::npos) << refusal();
}

TEST(Statistics, QuartilesAndHarmonicMeanFollowTheSpec) {
  Summary s = summarize({4, 1, 3, 2, 5});
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.firstquartile, 2);  // (s[1] + s[1]) / 2
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.thirdquartile, 4);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));
  Summary e = summarize({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(e.firstquartile, 1.5);  // (s[0] + s[1]) / 2
  EXPECT_DOUBLE_EQ(e.median, 2.5);
  EXPECT_DOUBLE_EQ(e.thirdquartile, 3.5);
  // TEPS: 100 edges in 1 s and 100 edges in 0.5 s: harmonic mean 1 / mean(0.01, 0.005) = 133.33...
  TepsSummary t = summarize_teps({1.0, 0.5}, {100, 100});
  EXPECT_DOUBLE_EQ(t.harmonic_mean, 1 / 0.0075);
  EXPECT_DOUBLE_EQ(t.min, 100);
  EXPECT_DOUBLE_EQ(t.max, 200);
}

// The batch's parents are read a window of vertices at a time, ahead of the pass's steps, and turned vertex-major.
// At SCALE 12 in windows of 1024 vertices and 4 KiB steps (steps cross the windows' edges): searches 0 and 1 (the
// low and high nibble of a row's first byte) each get a parent without an input edge in a late window; each is
// caught, named as read from its window and kept to its own search, and the correct search 2 passes.
TEST(CsrPassWindows, ParentsReadByWindowCatchRuleFiveInALateWindow) {
  const KroneckerSpec spec{12, 16, 2, 3};
  const GeneratedEdges source{Kronecker(spec)};
  const Csr<uint32_t> g = build_csr<uint32_t>(source);
  OnDiskGraph disk(spec);
  Partitioning p = partition_by_work(g, 1, Topology::detect());
  HybridBfs<uint32_t> bfs(g, p, BfsOptions{});
  std::vector<uint64_t> roots;  // three roots in the big component (the highest degrees)
  for (uint64_t v = 0; v < 3; ++v) roots.push_back(g.to_input[v]);
  std::vector<std::vector<uint32_t>> out(3, std::vector<uint32_t>(g.n));
  std::vector<uint64_t> nedge(3);
  for (size_t i = 0; i < 3; ++i) {
    bfs.search(internal_ids(g, {roots[i]})[0], out[i].data());
    nedge[i] = bfs.reached_raw_degree_sum() / 2;
  }
  auto depth = [&](const std::vector<uint32_t>& parent, uint64_t x) {
    int d = 0;
    for (; x != parent[x]; x = parent[x]) ++d;
    return d;
  };
  // Search i's reached leaf two levels down or more with the highest internal id on disk re-hung from a vertex on
  // its true parent's level that is not a neighbour (rules 1, 3, 4 still hold): "vertex x has parent w".
  auto plant = [&](size_t i) {
    std::vector<bool> adjacent_to_x(g.n), has_child(g.n);
    for (uint64_t y = 0; y < g.n; ++y)
      if (out[i][y] != kNoVertex<uint32_t> && out[i][y] != y) has_child[out[i][y]] = true;
    uint64_t x = g.n;
    for (uint64_t y = 0; y < g.n; ++y)
      if (out[i][y] != kNoVertex<uint32_t> && !has_child[y] && depth(out[i], y) >= 2 &&
          (x == g.n || disk.from_input[y] > disk.from_input[x]))
        x = y;
    EXPECT_LT(x, g.n);
    EXPECT_GE(disk.from_input[x], 2048u) << "the planted vertex should sit in a late window";
    for (uint32_t u : g.neighbors(internal_ids(g, {x})[0])) adjacent_to_x[g.to_input[u]] = true;
    uint64_t w = 0;
    while (w < g.n && (out[i][w] == kNoVertex<uint32_t> || depth(out[i], w) != depth(out[i], x) - 1 || adjacent_to_x[w])) ++w;
    EXPECT_LT(w, g.n);
    out[i][x] = uint32_t(w);
    return "vertex " + std::to_string(x) + " has parent " + std::to_string(w);
  };
  const std::string planted[2] = {plant(0), plant(1)};

  std::vector<int32_t> scratch(g.n);
  CsrPassValidator<uint32_t> batch(disk.g, disk.files, disk.tmp.path(), 3, scratch, 4096,
                                   CsrPassValidator<uint32_t>::kNibbleMaxLevel, 1024);
  for (size_t i = 0; i < 3; ++i) {
    Verdict now;
    const std::vector<uint32_t> internal = disk.internal(out[i]);
    ASSERT_EQ(batch.add({roots[i], out[i].data(), nedge[i]}, internal.data(), disk.from_input[roots[i]], scratch, now),
              CsrPassValidator<uint32_t>::Added::kAdded)
        << now.message;
  }
  const std::vector<Verdict> v = batch.check();
  ASSERT_EQ(v.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(v[i].valid) << "search " << i;
    EXPECT_EQ(v[i].rule, 5) << v[i].message;
    EXPECT_NE(v[i].message.find(planted[i]), std::string::npos) << v[i].message;
  }
  EXPECT_TRUE(v[2].valid) << v[2].message;
}

}  // namespace
}  // namespace strata
