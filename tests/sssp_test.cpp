// Kernel 3's ground truth, before Strata has a kernel 3: Boost.Graph's Dijkstra in float32 over the weighted
// multigraph (every non-self-loop tuple, duplicates kept) reproduces the reference's distances bit for bit
// (SSSP.md 3.3 and the vectors of section 8). This is the oracle kernel 3's tests will compare against.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <cstdint>
#include <cmath>
#include <cstring>
#include <omp.h>
#include <string>
#include <limits>
#include <map>
#include <optional>
#include <algorithm>
#include <queue>
#include <random>
#include <utility>
#include <vector>

#include "engine/build_csr.hpp"
#include "engine/build_csr_files.hpp"
#include "engine/topology.hpp"
#include "storage/csr_files.hpp"
#include "storage/pmem_map.hpp"
#include "storage/spill_file.hpp"
#include "sssp/delta_stepping.hpp"
#include "validate/sssp_validator.hpp"
#include "generators/edge_stream.hpp"
#include "generators/kronecker.hpp"
#include "storage/graph_dir.hpp"
#include "tests/test_util.hpp"

namespace strata {
namespace {

using WeightedGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                            boost::property<boost::edge_weight_t, float>>;

struct RootVector {
  uint64_t root, reached;
  double sum;
  uint32_t max_bits;
  uint64_t dist_hash, pred_hash;
};

struct GraphVector {
  int scale;
  RootVector roots[4];
};

// SSSP.md section 8: the first 4 roots, seeds 2,3, edgefactor 16.
const GraphVector kVectors[] = {
    {10,
     {{458, 897, 258.18886033445597, 0x3f907535, 0x655f56114f9f3658ULL, 0x6d5830da63554a96ULL},
      {214, 897, 618.71742710471153, 0x3fc3c78f, 0xbf54d253d990ebadULL, 0x81a7b054960a7410ULL},
      {220, 897, 226.49648305773735, 0x3f8c34a3, 0xbb9810eaf9d8e8c3ULL, 0xf779b40db5c958a2ULL},
      {966, 897, 205.32267121784389, 0x3f8898d6, 0x33abaaa8a4ded04cULL, 0x4809f69e064f6bc8ULL}}},
    {12,
     {{1834, 3351, 799.90118391253054, 0x3f98cf68, 0xdc273856d5cb6ad2ULL, 0x436fc8dc8a09f200ULL},
      {858, 3351, 754.77872969210148, 0x3f96beca, 0x7adbf1b93858e547ULL, 0x3ed279cb2765354eULL},
      {881, 3351, 1010.7967596873641, 0x3fa0ddf2, 0xf9485575180ce39fULL, 0x1f03cd8d83cc9bb9ULL},
      {504, 3351, 682.7249520146288, 0x3f94057c, 0x15aceba883d1067eULL, 0xf4a552194dd6e674ULL}}},
    {14,
     {{7337, 12550, 2735.9838809794746, 0x3fde9ef8, 0x303eeeb1882b9a74ULL, 0x253d379730032253ULL},
      {3434, 12550, 3274.2025028914213, 0x3fe3ee75, 0x61cc3598209a8d67ULL, 0xefbd13b8b3d7c4d8ULL},
      {3526, 12550, 2653.8389366827905, 0x3fdda9d0, 0xbe1a073f37d1179eULL, 0xb2ebcb0710b5229cULL},
      {2016, 12550, 3398.0914273746312, 0x3fe571e4, 0x230a39287f5f5edfULL, 0x704543ad5516b0c0ULL}}},
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
          ASSERT_EQ(g.weights[i], lightest.at({std::min(a, b), std::max(a, b)}));
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

// Lists light part first (kernel 1 for kernel 3 in-core, Csr::light_below): each list holds the entries of the
// list by id, those lighter than light_below first, then the rest, each part by id.
TEST(WeightedCsr, LightFirstListsHoldTheSameEntriesLightOnesFirst) {
  const GeneratedEdges source{Kronecker({10, 16, 2, 3})};
  const Csr<uint32_t, float> by_id = build_csr<uint32_t, float>(source);
  const float below = 0.05f;
  const Csr<uint32_t, float> g = build_csr<uint32_t, float>(source, {}, nullptr, below);
  EXPECT_EQ(g.light_below, below);
  ASSERT_EQ(g.directed_edges(), by_id.directed_edges());
  uint64_t light_entries = 0;
  for (uint64_t v = 0; v < g.n; ++v) {
    ASSERT_EQ(g.offsets[v], by_id.offsets[v]);
    const uint64_t first = g.offsets[v], len = g.degree(v);
    const uint64_t light = light_part(g.weights.data() + first, len, below);
    light_entries += light;
    std::vector<std::pair<uint32_t, float>> got, want;
    for (uint64_t i = first; i < first + len; ++i) {
      EXPECT_EQ(g.weights[i] < below, i < first + light) << v;  // the light part holds every light entry
      if (i != first && i != first + light) {
        EXPECT_LT(g.adj[i - 1], g.adj[i]) << v;  // each part by id
      }
      got.push_back({g.adj[i], g.weights[i]});
      want.push_back({by_id.adj[i], by_id.weights[i]});
    }
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << v;
  }
  EXPECT_GT(light_entries, 0u);
  EXPECT_LT(light_entries, g.directed_edges() / 4);
}

// Kernel 1's weighted sort: lists longer than a thread's scratch are sorted where they lie (hubs), the others in
// the scratch; both give what sorting the pairs and keeping each id's first gives, light part first.
TEST(WeightedCsr, LongListsSortedInPlaceAsShortOnesInScratch) {
  std::mt19937_64 rng(7);
  const std::vector<uint64_t> lengths = {40000, 32769, 32768, 300, 1, 0, 9000};
  for (const float below : {0.0f, 0.05f}) {
    std::vector<uint64_t> offsets = {0};
    std::vector<uint32_t> adj;
    std::vector<float> weights;
    for (const uint64_t len : lengths) {
      const uint32_t ids = uint32_t(std::max<uint64_t>(1, len / 5));  // about five copies of each neighbour
      for (uint64_t i = 0; i < len; ++i) {
        adj.push_back(uint32_t(rng() % ids));
        weights.push_back(float(rng() % 1000) / 1000.0f);  // equal weights too
      }
      offsets.push_back(adj.size());
    }
    std::vector<uint32_t> got_adj = adj;
    std::vector<float> got_w = weights;
    sort_and_dedup_weighted_lists(got_adj.data(), got_w.data(), offsets.data(), lengths.size(), below);
    for (size_t v = 0; v < lengths.size(); ++v) {
      std::vector<std::pair<uint32_t, float>> want;
      for (uint64_t i = offsets[v]; i < offsets[v + 1]; ++i) want.push_back({adj[i], weights[i]});
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end(), [](auto& a, auto& b) { return a.first == b.first; }), want.end());
      std::stable_partition(want.begin(), want.end(), [&](auto& e) { return e.second < below; });
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got_adj[offsets[v] + i], want[i].first) << "list " << v << " entry " << i << " below " << below;
        ASSERT_EQ(got_w[offsets[v] + i], want[i].second) << "list " << v << " entry " << i;
      }
      if (want.size() < lengths[v]) {
        EXPECT_EQ(got_adj[offsets[v] + want.size()], kNoVertex<uint32_t>) << v;
      }
    }
  }
  // The depth limit's heapsort orders as the sort does.
  std::vector<uint32_t> a(5000);
  std::vector<float> w(5000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint32_t(rng() % 700), w[i] = float(rng() % 50);
  std::vector<std::pair<uint32_t, float>> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back({a[i], w[i]});
  std::sort(want.begin(), want.end());
  weighted_sort_detail::sort_in_place(weighted_sort_detail::Paired<uint32_t, float>{a.data(), w.data()}, 0, a.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(std::make_pair(a[i], w[i]), want[i]) << i;
  }
}

uint64_t fnv_floats(const std::vector<float>& xs) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (float x : xs)
    for (int b = 0; b < 4; ++b) h = (h ^ ((bits(x) >> (8 * b)) & 0xFF)) * 0x100000001b3ULL;
  return h;
}
uint64_t fnv_parents(const std::vector<uint32_t>& parent) {  // as int64 LE, unreached -1
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint32_t p : parent) {
    const uint64_t x = p == kNoVertex<uint32_t> ? ~uint64_t(0) : p;
    for (int b = 0; b < 8; ++b) h = (h ^ ((x >> (8 * b)) & 0xFF)) * 0x100000001b3ULL;
  }
  return h;
}
uint64_t internal_id(const Csr<uint32_t, float>& g, uint64_t label) {
  return internal_ids<uint32_t>({g.to_input.data(), g.n}, {label})[0];
}

// Kernel 3: delta-stepping gives the reference's distances and (these roots have no ties) its parents, for
// any bucket width and thread count, over lists by id or light part first (the in-core run's: 0.025 is the
// light part's own delta, the others read such lists entry by entry), and every result passes validation.
TEST(DeltaStepping, ReferenceDistancesAndParentsForAnyDeltaAndThreads) {
  for (const GraphVector& t : kVectors)
  for (const float light_below : {0.0f, 0.025f}) {
    const Csr<uint32_t, float> g =
        build_csr<uint32_t, float>(GeneratedEdges{Kronecker({t.scale, 16, 2, 3})}, {}, nullptr, light_below);
    for (const float delta : {0.1f, 0.025f, 1.0f, 1e9f, 0.002f})  // 0.002: the default, many windows of buckets
      for (const int threads : {1, 2}) {
        omp_set_num_threads(threads);
        DeltaStepping<uint32_t> sssp(g, delta);
        for (const RootVector& want : t.roots) {
          std::vector<float> dist(g.n);
          std::vector<uint32_t> parent(g.n);
          const SsspStats stats = sssp.search(uint32_t(internal_id(g, want.root)), dist.data(), parent.data());
          const std::string where = "SCALE " + std::to_string(t.scale) + " root " + std::to_string(want.root) +
                                    " delta " + std::to_string(delta) + " threads " + std::to_string(threads) +
                                    " light below " + std::to_string(light_below);
          EXPECT_EQ(stats.reached, want.reached) << where;
          EXPECT_EQ(fnv_floats(dist), want.dist_hash) << where;
          EXPECT_EQ(fnv_parents(parent), want.pred_hash) << where;
          const uint64_t nedge = sssp.reached_raw_degree_sum() / 2;
          const Verdict verdict = check_sssp<uint32_t>(g, {want.root, dist.data(), parent.data(), nedge});
          EXPECT_TRUE(verdict.valid) << where << ": " << verdict.message;
        }
      }
  }
  omp_set_num_threads(omp_get_num_procs());
}

// A bucket's vertices in id order, each once, by a sort (few) or through the marks (many), which it leaves clear.
TEST(Buckets, OrderUniqueSortsAndDeduplicatesEitherWay) {
  std::mt19937_64 rng(7);
  for (const size_t count : {size_t(0), size_t(5), size_t(3000), size_t(100000)}) {
    std::vector<uint64_t> marks(1 << 10, 0);  // 65,536 vertices: the marks from 64 ids on
    std::vector<uint32_t> v(count);
    for (uint32_t& x : v) x = uint32_t(rng() % (count < 64 ? 100 : 65536));
    std::vector<uint32_t> want = v;
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    buckets::order_unique(v, marks);
    EXPECT_EQ(v, want) << count << " ids";
    EXPECT_TRUE(std::all_of(marks.begin(), marks.end(), [](uint64_t w) { return w == 0; })) << count << " ids";
  }
}

// The weighted on-disk CSR (kernel 3 on storage) of SCALE 10, built in `parts` partitions with a small scratch
// (several range passes, or ranges filled from tuple buckets where `buckets`), and its O(N) arrays.
struct StoredWeighted {
  test::TempDir tmp;
  std::optional<CsrFiles> files;
  Csr<uint32_t> meta;
  ExternalBuildStats stats;
  explicit StoredWeighted(int parts, uint64_t scratch = uint64_t(64) << 10, bool buckets = false) {
    write_graph_dir(Kronecker({10, 16, 2, 3}), tmp / "g", false);
    const GraphDir dir = GraphDir::open(tmp / "g");
    const std::string path = CsrFiles::path_for(dir.path(), parts, true);
    build_csr_files<uint32_t, NodeWeight<uint32_t>>(dir, path, parts, Topology::detect(), scratch, {}, &stats, false,
                                                    buckets ? Renumbering{tmp.path(), 2} : Renumbering{});
    files.emplace(CsrFiles::open(path, dir.header_hash(), 10));
    meta = load_csr_meta<uint32_t>(*files);
  }
  // Every stored entry, by list, read back whole.
  std::vector<NodeWeight<uint32_t>> entries() const {
    std::vector<NodeWeight<uint32_t>> all;
    for (int p = 0; p < files->layout().parts(); ++p) {
      const uint64_t count = files->layout().part_first[p + 1] - files->layout().part_first[p];
      AlignedBuffer part(count * 8);  // O_DIRECT: an aligned buffer
      files->adj(p).file.pread_all(part.data(), part.bytes(), 0);
      const auto* first = reinterpret_cast<const NodeWeight<uint32_t>*>(part.data());
      all.insert(all.end(), first, first + count);
    }
    return all;
  }
};

// Ranges filled from the tuple buckets (weights carried beside the coded ids) store the very lists the range
// passes store: lightest copies, by weight, the same offsets; the tuples read once after the degree pass.
TEST(WeightedCsrFiles, BucketedBuildStoresTheRangePassesLists) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);  // the scratch below is sized for two threads' block buffers
  {
    const StoredWeighted passes(1);
    const StoredWeighted bucketed(1, EdgeBuckets<uint32_t, NodeWeight<uint32_t>>::read_bytes(2) + (uint64_t(128) << 10),
                                  true);
    EXPECT_GE(bucketed.stats.passes, 2u);
    EXPECT_EQ(bucketed.stats.tuple_passes, 1u);
    EXPECT_GT(bucketed.stats.renumbered_bytes, 0u);
    EXPECT_EQ(passes.stats.renumbered_bytes, 0u);
    const std::vector<NodeWeight<uint32_t>> want = passes.entries(), got = bucketed.entries();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].v, want[i].v) << i;
      ASSERT_EQ(got[i].w, want[i].w) << i;
    }
    for (uint64_t v = 0; v <= passes.meta.n; ++v) ASSERT_EQ(bucketed.meta.offsets[v], passes.meta.offsets[v]) << v;
  }
  omp_set_num_threads(threads);
}

// The stored lists are the in-core weighted CSR's, each ordered by weight (light edges first), with the same
// offsets, labels and duplicate counts; so kernel 2's CSR and kernel 3's share their O(N) arrays.
TEST(WeightedCsrFiles, TheInCoreListsByWeightWithTheSameMetadata) {
  const Csr<uint32_t, float> g = build_csr<uint32_t, float>(GeneratedEdges{Kronecker({10, 16, 2, 3})});
  for (int parts : {1, 3}) {
    const StoredWeighted stored(parts);
    const CsrLayout& L = stored.files->layout();
    EXPECT_TRUE(L.weighted);
    EXPECT_EQ(L.entry_bytes(), 8u);
    ASSERT_EQ(stored.meta.directed_edges(), g.directed_edges());
    const std::vector<NodeWeight<uint32_t>> es = stored.entries();
    for (uint64_t v = 0; v < g.n; ++v) {
      ASSERT_EQ(stored.meta.to_input[v], g.to_input[v]) << v;
      ASSERT_EQ(stored.meta.raw_degree(v), g.raw_degree(v)) << v;
      ASSERT_EQ(stored.meta.offsets[v], g.offsets[v]) << v;
      std::vector<std::pair<uint32_t, float>> want, got;
      for (uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) {
        want.push_back({g.adj[i], g.weights[i]});
        got.push_back({es[i].v, es[i].w});
        if (i > g.offsets[v]) {
          ASSERT_LE(es[i - 1].w, es[i].w) << "list " << v << " is not by weight";
        }
      }
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, want) << "list " << v;
    }
  }
}

// A stored weighted CSR's partition files mapped, as dax reads them in place.
struct MappedWeightedParts {
  std::vector<PmemMapping> maps;
  std::vector<const NodeWeight<uint32_t>*> lists;
  explicit MappedWeightedParts(const StoredWeighted& stored) {
    for (int p = 0; p < stored.files->layout().parts(); ++p) {
      maps.push_back(PmemMapping::open_read(stored.files->path() + "/" + CsrFiles::adj_name(p)));
      lists.push_back(reinterpret_cast<const NodeWeight<uint32_t>*>(maps.back().data()));
    }
  }
};

// Kernel 3 over the stored lists -- an edge cache of K light-first entries with the tails read by io_uring, or
// read in place from the mapped files -- gives the in-core search's bits, distances and parents alike.
TEST(WeightedSources, CachedAndStoredListsGiveTheInCoreBits) {
  const Csr<uint32_t, float> g = build_csr<uint32_t, float>(GeneratedEdges{Kronecker({10, 16, 2, 3})});
  const StoredWeighted stored(3);
  const Partitioning parts = Partitioning::with_bounds(stored.files->layout().bounds, Topology::detect());
  const MappedWeightedParts mapped(stored);
  const IoOptions io{4, 4096, 4096};
  for (uint64_t k : {uint64_t(0), uint64_t(1), uint64_t(3), stored.meta.degree(0)}) {
    const auto cache = load_edge_cache<uint32_t, NodeWeight<uint32_t>>(stored.meta, *stored.files, k, kNoHubs);
    DeltaStepping<uint32_t> in_core(g, 0.01f);
    DeltaStepping<uint32_t, WeightsReadTails<uint32_t>> read(
        stored.meta, WeightsReadTails<uint32_t>(stored.meta, cache, *stored.files, io, parts, 0.01f), 0.01f);
    // A light round's head of 2 entries: most hubs' heads end light and are read again whole.
    DeltaStepping<uint32_t, WeightsReadTails<uint32_t>> short_heads(
        stored.meta, WeightsReadTails<uint32_t>(stored.meta, cache, *stored.files, io, parts, 0.01f, 2), 0.01f);
    DeltaStepping<uint32_t, WeightsInPlace<uint32_t>> in_place(
        stored.meta, WeightsInPlace<uint32_t>(stored.meta, cache, mapped.lists, *stored.files, 0.01f), 0.01f);
    for (uint64_t label : {458, 214}) {
      const uint32_t root = uint32_t(internal_id(g, label));
      std::vector<float> d0(g.n), d1(g.n), d2(g.n), d3(g.n);
      std::vector<uint32_t> p0(g.n), p1(g.n), p2(g.n), p3(g.n);
      in_core.search(root, d0.data(), p0.data());
      const SsspStats s1 = read.search(root, d1.data(), p1.data());
      in_place.search(root, d2.data(), p2.data());
      short_heads.search(root, d3.data(), p3.data());
      ASSERT_EQ(std::memcmp(d0.data(), d3.data(), g.n * 4), 0) << "short heads, K " << k;
      ASSERT_EQ(std::memcmp(d0.data(), d1.data(), g.n * 4), 0) << "read tails, K " << k;
      ASSERT_EQ(std::memcmp(d0.data(), d2.data(), g.n * 4), 0) << "in place, K " << k;
      EXPECT_EQ(read.reached_raw_degree_sum(), in_core.reached_raw_degree_sum());
      // Tails are read (each settled vertex's for its heavy edges; light phases read a tail only where the whole
      // prefix is light), and nothing when the cache holds every list.
      if (k == stored.meta.degree(0)) EXPECT_EQ(s1.io.edges_storage, 0u);
      else EXPECT_GT(s1.io.edges_storage, 0u) << "K " << k;
      const Verdict v = check_sssp_stored<uint32_t>(stored.meta, *stored.files, {label, d1.data(), p1.data(), read.reached_raw_degree_sum() / 2});
      EXPECT_TRUE(v.valid) << v.message;
    }
  }
}

// Over lists by weight the search runs in stages (a stage relaxes only what lands below its cut; at its end the
// settled push, or the others pull, what lands below the next): from every kind of root -- hubs, vertices of
// degree one, vertices of small components -- with any delta, prefix and request size, it gives the in-core
// search's distances (which runs in one stage: lists by id).
TEST(WeightedSources, StagesGiveTheInCoreBitsFromEveryRoot) {
  const Csr<uint32_t, float> g = build_csr<uint32_t, float>(GeneratedEdges{Kronecker({10, 16, 2, 3})});
  const StoredWeighted stored(2);
  const Partitioning parts = Partitioning::with_bounds(stored.files->layout().bounds, Topology::detect());
  const MappedWeightedParts mapped(stored);
  std::vector<uint32_t> roots;  // every 61st label with an edge
  for (uint64_t label = 0; label < g.n; label += 61)
    if (g.degree(uint32_t(internal_id(g, label))) > 0) roots.push_back(uint32_t(internal_id(g, label)));
  for (const float delta : {0.002f, 0.05f}) {
    // The in-core bits once a root and delta (the cache and the reads do not change them), and each root read
    // under two of the four caches and requests: the searches wait on O_DIRECT reads (0.3 s of CPU in 3 s), and
    // the test took 8.9 s of the suite when it searched every root under all four, in-core again each time.
    DeltaStepping<uint32_t> in_core(g, delta);
    std::vector<std::vector<float>> want(roots.size(), std::vector<float>(g.n));
    std::vector<uint32_t> p0(g.n);
    for (size_t i = 0; i < roots.size(); ++i)
      EXPECT_EQ(in_core.search(roots[i], want[i].data(), p0.data()).stage_ends, 0u);
    int combination = 0;
    for (const uint64_t k : {uint64_t(0), uint64_t(2)})
      for (const IoOptions io : {IoOptions{4, 4096, 0}, IoOptions{2, 8192, 4096}}) {
        const size_t first = size_t(combination++ % 2);  // each root under two of the four: the reads' waits
        const auto cache = load_edge_cache<uint32_t, NodeWeight<uint32_t>>(stored.meta, *stored.files, k, kNoHubs);
        DeltaStepping<uint32_t, WeightsReadTails<uint32_t>> read(
            stored.meta, WeightsReadTails<uint32_t>(stored.meta, cache, *stored.files, io, parts, delta), delta);
        DeltaStepping<uint32_t, WeightsInPlace<uint32_t>> in_place(
            stored.meta, WeightsInPlace<uint32_t>(stored.meta, cache, mapped.lists, *stored.files, delta), delta);
        std::vector<float> d1(g.n), d2(g.n);
        std::vector<uint32_t> p1(g.n), p2(g.n);
        for (size_t i = first; i < roots.size(); i += 2) {
          const SsspStats s1 = read.search(roots[i], d1.data(), p1.data());
          const SsspStats s2 = in_place.search(roots[i], d2.data(), p2.data());
          const std::string where = "root " + std::to_string(g.to_input[roots[i]]) + " delta " +
                                    std::to_string(delta) + " K " + std::to_string(k) + " request " +
                                    std::to_string(io.request_bytes);
          ASSERT_EQ(std::memcmp(want[i].data(), d1.data(), g.n * 4), 0) << "read tails, " << where;
          ASSERT_EQ(std::memcmp(want[i].data(), d2.data(), g.n * 4), 0) << "in place, " << where;
          EXPECT_GE(s1.stage_ends, 2u) << where;  // a cut's end, and the last
          EXPECT_GE(s2.stage_ends, 2u) << where;
        }
      }
  }
}

// Each rule, planted: a result that breaks it is refused by that rule -- against the weighted CSR in DRAM and
// against the same lists on storage (check_sssp_stored), which must agree.
class SsspPlanted : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g = new Csr<uint32_t, float>(build_csr<uint32_t, float>(GeneratedEdges{Kronecker({10, 16, 2, 3})}));
    stored = new StoredWeighted(2);
  }
  static void TearDownTestSuite() {
    delete g;
    delete stored;
  }
  void SetUp() override {
    dist.resize(g->n);
    parent.resize(g->n);
    DeltaStepping<uint32_t> sssp(*g, 0.1f);
    sssp.search(uint32_t(internal_id(*g, root)), dist.data(), parent.data());
    nedge = sssp.reached_raw_degree_sum() / 2;
    ASSERT_TRUE(verdict().valid) << verdict().message;
  }
  Verdict verdict() const {
    const Verdict in_core = check_sssp<uint32_t>(*g, {root, dist.data(), parent.data(), nedge});
    const Verdict on_disk = check_sssp_stored<uint32_t>(stored->meta, *stored->files, {root, dist.data(), parent.data(), nedge});
    EXPECT_EQ(on_disk.valid, in_core.valid) << on_disk.message;
    EXPECT_EQ(on_disk.rule, in_core.rule) << on_disk.message << " / " << in_core.message;
    const Verdict batched = in_a_batch();
    EXPECT_EQ(batched.valid, in_core.valid) << batched.message;
    EXPECT_EQ(batched.rule, in_core.rule) << batched.message << " / " << in_core.message;
    return in_core;
  }
  // The result checked between two correct copies in one batch's pass over the stored lists (its R1-R4 and R8
  // when added): the error is found in its own search only.
  Verdict in_a_batch() const {
    const test::TempDir scratch;
    SsspStoredBatch<uint32_t> batch(stored->meta, *stored->files, scratch.path(), 3);
    DeltaStepping<uint32_t> sssp(*g, 0.1f);
    std::vector<float> d0(g->n);
    std::vector<uint32_t> p0(g->n);
    sssp.search(uint32_t(internal_id(*g, root)), d0.data(), p0.data());
    std::vector<int32_t> level(g->n);
    Verdict now;
    const bool first = batch.add({root, d0.data(), p0.data(), nedge_of(sssp)}, level, now);
    const bool planted = batch.add({root, dist.data(), parent.data(), nedge}, level, now);
    const bool last = batch.add({root, d0.data(), p0.data(), nedge_of(sssp)}, level, now);
    EXPECT_TRUE(first && last);
    const std::vector<Verdict> v = batch.check();
    EXPECT_EQ(v.size(), planted ? 3u : 2u);
    for (const Verdict& x : {v.front(), v.back()}) EXPECT_TRUE(x.valid) << x.message;
    return planted ? v[1] : now;
  }
  static uint64_t nedge_of(const DeltaStepping<uint32_t>& s) { return s.reached_raw_degree_sum() / 2; }
  uint64_t reached_leaf() const {  // a reached vertex that is no one's parent
    std::vector<bool> is_parent(g->n);
    for (uint64_t v = 0; v < g->n; ++v)
      if (parent[v] != kNoVertex<uint32_t>) is_parent[parent[v]] = true;
    for (uint64_t v = 0; v < g->n; ++v)
      if (parent[v] != kNoVertex<uint32_t> && v != root && !is_parent[v]) return v;
    ADD_FAILURE() << "no leaf";
    return 0;
  }
  static inline Csr<uint32_t, float>* g = nullptr;
  static inline StoredWeighted* stored = nullptr;
  static constexpr uint64_t root = 458;
  std::vector<float> dist;
  std::vector<uint32_t> parent;
  uint64_t nedge = 0;
};

TEST_F(SsspPlanted, ParentOutOfRange) {
  parent[reached_leaf()] = uint32_t(g->n + 5);
  EXPECT_EQ(verdict().rule, 1) << verdict().message;
}
TEST_F(SsspPlanted, NegativeDistance) {
  dist[reached_leaf()] = -0.5f;
  EXPECT_EQ(verdict().rule, 2) << verdict().message;
}
TEST_F(SsspPlanted, ReachedWithoutAParent) {
  parent[reached_leaf()] = kNoVertex<uint32_t>;
  EXPECT_EQ(verdict().rule, 3) << verdict().message;
}
// Words carry "unreached" as distance +inf; by label it must be -1: +inf there breaks R3 all the same.
TEST_F(SsspPlanted, AnUnreachedVertexAtInfinity) {
  const auto v = std::find(parent.begin(), parent.end(), kNoVertex<uint32_t>) - parent.begin();
  ASSERT_LT(uint64_t(v), g->n) << "every vertex reached";
  dist[size_t(v)] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(verdict().rule, 3) << verdict().message;
}

TEST_F(SsspPlanted, RootNotAtZero) {
  dist[root] = 0.25f;
  EXPECT_EQ(verdict().rule, 4) << verdict().message;
}
TEST_F(SsspPlanted, AReachedVertexLeftUnreached) {
  const uint64_t v = reached_leaf();
  parent[v] = kNoVertex<uint32_t>, dist[v] = -1.0f;  // consistent on its own: only the edges tell
  const Verdict bad = verdict();
  EXPECT_EQ(bad.rule, 5) << bad.message;
  EXPECT_NE(bad.message.find("visited and unvisited"), std::string::npos) << bad.message;
}
TEST_F(SsspPlanted, ADistanceTooLarge) {
  const uint64_t v = reached_leaf();
  dist[v] = std::nextafter(dist[v], 10.0f);  // longer than its shortest path: that path's last edge is shorter
  const Verdict bad = verdict();
  EXPECT_EQ(bad.rule, 5) << bad.message;
  EXPECT_NE(bad.message.find("triangle"), std::string::npos) << bad.message;
}
TEST_F(SsspPlanted, ADistanceTooSmall) {
  const uint64_t v = reached_leaf();
  dist[v] = std::nextafter(dist[v], 0.0f);  // shorter than any path: no edge, its parent's included, confirms it
  EXPECT_EQ(verdict().rule, 6) << verdict().message;
}
TEST_F(SsspPlanted, AWrongParent) {
  const uint64_t v = reached_leaf();
  const uint64_t iv = internal_id(*g, v);
  for (const uint32_t u : g->neighbors(iv))  // a neighbour whose edge is not tight
    if (g->to_input[u] != parent[v] && dist[g->to_input[u]] + 0.0f != dist[v]) {
      parent[v] = g->to_input[u];
      break;
    }
  EXPECT_EQ(verdict().rule, 6) << verdict().message;
}
TEST_F(SsspPlanted, AWrongNedge) {
  ++nedge;
  EXPECT_EQ(verdict().rule, 7) << verdict().message;
}

// R8, which the reference lacks: a parent cycle whose edges all confirm, made possible by absorption
// (fl32(1 + 1e-10) == 1). Path 0 -1.0- 1 -1e-10- 2: dist 0, 1, 1; the parents of 1 and 2 point at each other.
TEST(SsspValidator, AParentCycleThatConfirmsIsRefusedByTheTreeCheck) {
  Csr<uint32_t, float> g;
  g.n = 3;
  NumaArray<uint64_t> offsets(4);
  const uint64_t bounds[4] = {0, 1, 3, 4};
  std::copy(bounds, bounds + 4, offsets.begin());
  g.offsets = BlockOffsets(offsets, false);
  g.adj = NumaArray<uint32_t>(4);
  g.weights = NumaArray<float>(4);
  const uint32_t adj[4] = {1, 0, 2, 1};
  const float w[4] = {1.0f, 1.0f, 1e-10f, 1e-10f};
  std::copy(adj, adj + 4, g.adj.begin());
  std::copy(w, w + 4, g.weights.begin());
  g.to_input = NumaArray<uint32_t>(3);
  g.duplicates = NumaArray<uint8_t>(3);
  for (uint32_t v = 0; v < 3; ++v) g.to_input[v] = v;
  ASSERT_EQ(1.0f + 1e-10f, 1.0f);
  std::vector<float> dist = {0.0f, 1.0f, 1.0f};
  std::vector<uint32_t> parent = {0, 0, 1};
  EXPECT_TRUE(check_sssp<uint32_t>(g, {0, dist.data(), parent.data(), 2}).valid);
  parent = {0, 2, 1};
  const Verdict bad = check_sssp<uint32_t>(g, {0, dist.data(), parent.data(), 2});
  EXPECT_EQ(bad.rule, 8) << bad.message;
  EXPECT_NE(bad.message.find("cycle"), std::string::npos) << bad.message;
}

// A graph directory gives the same weighted CSR as the generator, whether it stores its tuples or only its spec.
TEST(WeightedCsr, FromAGraphDirectoryEqualsFromTheGenerator) {
  const Kronecker gen({11, 16, 2, 3});
  const Csr<uint32_t, float> want = build_csr<uint32_t, float>(GeneratedEdges{gen});
  test::TempDir tmp;
  for (const bool stored : {true, false}) {
    const std::string path = tmp / (stored ? "stored" : "spec");
    write_graph_dir(gen, path, false, {}, stored);
    const Csr<uint32_t, float> got = build_csr<uint32_t, float>(GraphDir::open(path));
    ASSERT_EQ(got.directed_edges(), want.directed_edges());
    for (uint64_t i = 0; i < want.directed_edges(); ++i) {
      ASSERT_EQ(got.adj[i], want.adj[i]);
      ASSERT_EQ(got.weights[i], want.weights[i]);
    }
  }
}

}  // namespace
}  // namespace strata
