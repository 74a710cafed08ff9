// The CSR must hold exactly the input's undirected simple graph (Boost.Graph as the oracle), renumbered by
// degree, and raw degrees must reproduce the reference nedge rule.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <random>
#include <set>
#include <vector>

#include "engine/build_csr.hpp"
#include "engine/edge_cache.hpp"
#include "engine/label_slots.hpp"
#include "generators/edge_stream.hpp"
#include "storage/graph_dir.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using BoostGraph = boost::adjacency_list<boost::setS, boost::vecS, boost::undirectedS>;

std::vector<Edge> all_edges(const KroneckerSpec& spec) {
  Kronecker gen(spec);
  std::vector<Edge> e(spec.edge_count());
  gen.generate(0, e.size(), e.data());
  return e;
}

template <class Id>
void expect_matches_boost(const Csr<Id>& g, const std::vector<Edge>& edges) {
  BoostGraph oracle(g.n);
  std::vector<uint64_t> raw(g.n, 0);
  for (const Edge& e : edges)
    if (e.u != e.v) {
      boost::add_edge(e.u, e.v, oracle);
      ++raw[e.u], ++raw[e.v];
    }
  ASSERT_EQ(g.directed_edges(), 2 * boost::num_edges(oracle));
  std::vector<bool> seen(g.n, false);
  for (uint64_t v = 0; v < g.n; ++v) {
    const uint64_t label = g.to_input[v];
    ASSERT_LT(label, g.n);
    ASSERT_FALSE(seen[label]) << "to_input is not a permutation";
    seen[label] = true;
    EXPECT_EQ(g.raw_degree(v), raw[label]) << "raw degree of " << label;
    if (v > 0) {
      EXPECT_GE(g.raw_degree(v - 1), g.raw_degree(v)) << "not ordered by degree at " << v;
    }
    std::set<uint64_t> got, want;
    auto nbrs = g.neighbors(v);
    for (size_t i = 0; i < nbrs.size(); ++i) {
      if (i > 0) {
        ASSERT_LT(nbrs[i - 1], nbrs[i]) << "list of " << label << " not strictly ascending";
      }
      got.insert(g.to_input[nbrs[i]]);
    }
    for (auto [a, b] = boost::adjacent_vertices(label, oracle); a != b; ++a) want.insert(*a);
    ASSERT_EQ(got, want) << "neighbours of input vertex " << label;
  }
}

TEST(Csr, MatchesBoostGraphOnManyKroneckerGraphs) {
  for (int scale : {4, 6, 9, 12})
    for (uint64_t seed : {1, 2, 77}) {
      KroneckerSpec spec{scale, 16, seed, seed + 1};
      SCOPED_TRACE(testing::Message() << "SCALE " << scale << " seed " << seed);
      expect_matches_boost(build_csr<uint32_t>(GeneratedEdges{Kronecker(spec)}), all_edges(spec));
    }
}

TEST(Csr, SixtyFourBitIdsGiveTheSameGraph) {
  KroneckerSpec spec{10, 8, 3, 4};
  expect_matches_boost(build_csr<uint64_t>(GeneratedEdges{Kronecker(spec)}), all_edges(spec));
}

TEST(Csr, BuiltFromGraphDirectoryEqualsBuiltFromGenerator) {
  test::TempDir tmp;
  KroneckerSpec spec{11, 16, 2, 3};
  write_graph_dir(Kronecker(spec), tmp / "g", false);
  auto a = build_csr<uint32_t>(GraphDir::open(tmp / "g"));
  expect_matches_boost(a, all_edges(spec));
  auto b = build_csr<uint32_t>(GeneratedEdges{Kronecker(spec)});
  ASSERT_EQ(a.directed_edges(), b.directed_edges());
  for (uint64_t i = 0; i < a.directed_edges(); ++i) ASSERT_EQ(a.adj[i], b.adj[i]);
}

// Kernel 0 counts the degrees as it generates (the driver's kernel0); the build that takes them makes the same
// graph, and a second build (kernel 3's beside kernel 2's) counts its own.
TEST(Csr, DegreesCountedByKernelZeroGiveTheSameGraph) {
  KroneckerSpec spec{11, 16, 5, 6};
  const std::vector<Edge> edges = all_edges(spec);
  CountedDegrees counted;
  counted.of<uint32_t>() = NumaArray<uint32_t>(spec.vertex_count());
  for (size_t i = 0; i < edges.size(); i += 1000)
    count_degrees(std::span<const Edge>(edges.data() + i, std::min<size_t>(1000, edges.size() - i)), counted.of<uint32_t>());
  counted.seconds = 1.5;
  EXPECT_EQ(counted.taken_seconds(), 0.0);
  const Csr<uint32_t> a = build_csr<uint32_t>(GeneratedEdges{Kronecker(spec)}, {}, &counted);
  EXPECT_TRUE(counted.taken);
  EXPECT_EQ(counted.taken_seconds(), 1.5);
  EXPECT_EQ(counted.of<uint32_t>().size(), 0u);
  expect_matches_boost(a, edges);
  const Csr<uint32_t, float> b = build_csr<uint32_t, float>(GeneratedEdges{Kronecker(spec)}, {}, &counted);
  expect_matches_boost(static_cast<const Csr<uint32_t>&>(b), edges);
}

// The team's count -- in one shared array (locked increments), in each thread's own copy summed at the end, or
// staged by block of vertices -- equals a serial count of the non-self-loop ends.
TEST(Csr, DegreeCountEveryModeEqualsSerialCount) {
  KroneckerSpec spec{17, 16, 2, 3};  // 32 chunks, so every thread of the team counts; two blocks of vertices
  const std::vector<Edge> edges = all_edges(spec);
  std::vector<uint32_t> serial(spec.vertex_count());
  for (const Edge& e : edges)
    if (e.u != e.v) ++serial[e.u], ++serial[e.v];
  using Count = DegreeCount<uint32_t>;
  for (Count::Mode mode : {Count::Mode::kShared, Count::Mode::kOwnCopies, Count::Mode::kBlocks}) {
    NumaArray<uint32_t> degree(spec.vertex_count());
    Count count(degree, mode);
    for_each_edge_chunk(Kronecker(spec), [&](uint64_t, std::span<const Edge> chunk) { count.add(chunk); });
    count.finish();
    for (uint64_t v = 0; v < serial.size(); ++v) ASSERT_EQ(degree[v], serial[v]) << "vertex " << v << ", mode " << int(mode);
  }
  EXPECT_EQ(Count::mode_for(Count::kOwnCopiesUpTo, 2), Count::Mode::kOwnCopies);
  EXPECT_EQ(Count::mode_for(Count::kOwnCopiesUpTo, 1), Count::Mode::kShared);
  EXPECT_EQ(Count::mode_for(Count::kOwnCopiesUpTo + 1, 1), Count::Mode::kBlocks);
  EXPECT_EQ(Count::mode_for(uint64_t(1) << 30, 2), Count::Mode::kBlocks);
  // Bounded memory with many threads: the copies together at most kOwnCopiesAtMost; the staging a quarter of
  // the counters, too little a thread beyond 4 threads to reuse the lines.
  EXPECT_EQ(Count::mode_for(Count::kOwnCopiesUpTo, 4), Count::Mode::kShared);
  EXPECT_EQ(Count::mode_for(Count::kOwnCopiesUpTo / 16, 32), Count::Mode::kOwnCopies);
  EXPECT_EQ(Count::mode_for(uint64_t(1) << 30, 4), Count::Mode::kBlocks);
  EXPECT_EQ(Count::mode_for(uint64_t(1) << 30, 8), Count::Mode::kShared);
}

// Kernel 1's slots are a permutation of the vertices, the scramble's inverse: every slot once, back to its label;
// and the spec's tuples' ends, by slot, fall on far fewer cache lines than by input label (why kernel 1 uses them).
TEST(LabelSlots, AreTheScramblesInverseAndGatherTheBusyVertices) {
  for (int scale : {1, 2, 7, 12}) {
    const KroneckerSpec spec{scale, 16, 2, 3};
    const LabelSlots slots(spec);
    const Kronecker gen(spec);
    std::vector<bool> seen(spec.vertex_count());
    for (uint64_t v = 0; v < spec.vertex_count(); ++v) {
      const uint64_t s = slots.slot(v);
      ASSERT_LT(s, spec.vertex_count());
      ASSERT_FALSE(seen[s]) << "SCALE " << scale << ": slot " << s << " twice";
      seen[s] = true;
      ASSERT_EQ(slots.label(s), v);
      ASSERT_EQ(gen.scramble(s), v);
    }
  }
  for (int scale : {28, 32, 33, 40}) {  // the runs' loops on 32-bit words to SCALE 32, on 64-bit ones above
    const KroneckerSpec spec{scale, 16, 5, 6};
    const LabelSlots slots(spec);
    std::vector<Edge> ends(1000);
    for (uint64_t k = 0; k < ends.size(); ++k)
      ends[k] = {(k * 0x9E3779B97F4A7C15ULL) & (spec.vertex_count() - 1), spec.vertex_count() - 1 - k};
    std::vector<uint64_t> su(ends.size()), sv(ends.size()), run(ends.size()), back(ends.size());
    slots.of_ends(ends.data(), ends.size(), su.data(), sv.data());
    slots.slots_of(spec.vertex_count() - 1000, 1000, run.data());
    slots.labels_of(spec.vertex_count() - 1000, 1000, back.data());
    for (size_t k = 0; k < ends.size(); ++k) {
      const uint64_t v = ends[k].u;
      ASSERT_EQ(slots.label(slots.slot(v)), v);
      ASSERT_EQ(slots.slot(slots.label(v)), v);
      ASSERT_EQ(su[k], slots.slot(v)) << "SCALE " << scale;
      ASSERT_EQ(sv[k], slots.slot(ends[k].v)) << "SCALE " << scale;
      ASSERT_EQ(run[k], slots.slot(spec.vertex_count() - 1000 + k));
      ASSERT_EQ(back[k], slots.label(spec.vertex_count() - 1000 + k));
    }
  }
  const KroneckerSpec spec{20, 16, 2, 3};
  const LabelSlots slots(spec);
  std::vector<Edge> edges(1 << 14);
  Kronecker(spec).generate(0, edges.size(), edges.data());
  std::vector<uint64_t> by_label, by_slot;  // 16 32-bit ids a line
  for (const Edge& e : edges)
    for (uint64_t v : {e.u, e.v}) by_label.push_back(v / 16), by_slot.push_back(slots.slot(v) / 16);
  for (auto* lines : {&by_label, &by_slot}) {
    std::sort(lines->begin(), lines->end());
    lines->erase(std::unique(lines->begin(), lines->end()), lines->end());
  }
  // 10,406 lines against 18,576.
  EXPECT_LT(by_slot.size() * 3, by_label.size() * 2)
      << by_slot.size() << " lines by slot, " << by_label.size() << " by label";
}

TEST(Csr, RawDegreeGivesReferenceNedge) {
  // nedge (reference 3.0) = non-self-loop tuples with both ends reached = sum of raw degrees of reached / 2.
  KroneckerSpec spec{12, 16, 2, 3};
  auto edges = all_edges(spec);
  auto g = build_csr<uint32_t>(GeneratedEdges{Kronecker(spec)});
  // Hubs with 255+ duplicates take the overflow path of raw_degree(); this graph must exercise it.
  EXPECT_FALSE(g.many_duplicates.empty());
  BoostGraph oracle(g.n);
  for (const Edge& e : edges)
    if (e.u != e.v) boost::add_edge(e.u, e.v, oracle);
  std::vector<int> dist(g.n, -1);
  const uint64_t root = 1834;  // first reference root for SCALE 12
  dist[root] = 0;
  boost::breadth_first_search(oracle, root,
                              boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
  uint64_t brute = 0, reached = 0;
  for (const Edge& e : edges) brute += e.u != e.v && dist[e.u] >= 0 && dist[e.v] >= 0;
  uint64_t sum = 0;
  for (uint64_t v = 0; v < g.n; ++v)
    if (dist[g.to_input[v]] >= 0) sum += g.raw_degree(v), ++reached;
  EXPECT_EQ(sum % 2, 0u);
  EXPECT_EQ(sum / 2, brute);
  EXPECT_EQ(brute, 65327u);   // GRAPH500.md section 6
  EXPECT_EQ(reached, 3351u);  // giant component of SCALE 12
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// The cache-sized radix sort orders as std::sort does: below one cache run (LSD alone), over many runs (the top
// bits' pass first), with keys that fill their bits or leave the top runs empty, and for a key taken from a
// record (kernel 1's weighted buckets); equal keys keep their order.
TEST(RadixSort, CacheRunsSortAsStdSortDoes) {
  std::mt19937_64 rng(7);
  for (size_t len : {size_t(0), size_t(1), size_t(1000), size_t(40000), size_t(300000)}) {
    for (int bits : {5, 33, 53}) {
      SCOPED_TRACE(::testing::Message() << len << " keys of " << bits << " bits");
      std::vector<uint64_t> keys(len), scratch(len);
      for (uint64_t& k : keys) k = rng() >> (64 - bits);
      if (len > 2) keys[len / 2] = (uint64_t(1) << bits) - 1, keys[1] = 0;
      std::vector<uint64_t> want = keys;
      std::sort(want.begin(), want.end());
      build_detail::cache_radix_sort(keys.data(), scratch.data(), len, bits);
      ASSERT_EQ(keys, want);
    }
  }
  struct Record {
    uint64_t key;
    float w;
  };
  std::vector<Record> records(100000), scratch(records.size());
  for (size_t i = 0; i < records.size(); ++i) records[i] = {rng() >> 50, float(i)};
  std::vector<Record> want = records;
  std::stable_sort(want.begin(), want.end(), [](const Record& a, const Record& b) { return a.key < b.key; });
  build_detail::cache_radix_sort(records.data(), scratch.data(), records.size(), 14, [](const Record& r) { return r.key; });
  for (size_t i = 0; i < records.size(); ++i) ASSERT_EQ(records[i].w, want[i].w) << i;
}

// The list sort's digit follows the length (lsd_digit: narrow digits for short lists, more passes), and every
// width it picks sorts as std::stable_sort does, the last pass's digit cut short by the key's bits included.
TEST(RadixSort, DigitFittedToTheLengthSortsAsStdSortDoes) {
  EXPECT_EQ(build_detail::lsd_digit(100000, 28), 10);  // 3 passes: the fewest 11-bit digits allow
  EXPECT_LT(build_detail::lsd_digit(64, 28), 10);      // more, narrower passes for a short list
  for (int bits = 1; bits <= 64; ++bits)
    for (size_t len : {size_t(1), size_t(40), size_t(1000), size_t(100000)}) {
      const int d = build_detail::lsd_digit(len, bits);
      ASSERT_TRUE(d >= 1 && d <= 11 && d <= bits) << len << " keys of " << bits << " bits: digit " << d;
    }
  std::mt19937_64 rng(11);
  struct Record {
    uint64_t key;
    uint32_t at;
  };
  for (size_t len : {size_t(2), size_t(40), size_t(41), size_t(64), size_t(200), size_t(3000), size_t(20000)})
    for (int bits : {1, 7, 20, 28, 29, 45, 64}) {
      SCOPED_TRACE(::testing::Message() << len << " keys of " << bits << " bits");
      std::vector<Record> records(len), scratch(len);
      for (size_t i = 0; i < len; ++i) records[i] = {bits == 64 ? rng() : rng() >> (64 - bits), uint32_t(i)};
      if (len > 8) records[3].key = records[5].key;  // equal keys keep their order
      std::vector<Record> want = records;
      std::stable_sort(want.begin(), want.end(), [](const Record& a, const Record& b) { return a.key < b.key; });
      build_detail::radix_sort(records.data(), scratch.data(), len, bits, [](const Record& r) { return r.key; });
      for (size_t i = 0; i < len; ++i) ASSERT_EQ(records[i].at, want[i].at) << i;
    }
}

TEST(BlockOffsets, PacksExactlyAndShrinksBlocksThatSpanTooMuch) {
  NumaArray<uint64_t> full(10001);
  for (uint64_t v = 0; v <= 10000; ++v) full[v] = v * 37;
  BlockOffsets small(full);
  EXPECT_EQ(small.block_shift(), BlockOffsets::kMaxShift);
  for (uint64_t v = 0; v <= 10000; ++v) ASSERT_EQ(small[v], full[v]);
  EXPECT_EQ(small.narrow_from(), 0u);  // 64 lists of 37 span < 2^16: 2 bytes a vertex and a base per 64
  EXPECT_LE(small.bytes(), full.size() * 2 + full.size() / 8 + 32);

  // Long lists first (ids are degree-ordered): 4-byte offsets up to the last 64-vertex run spanning 2^16.
  for (uint64_t v = 0; v <= 10000; ++v) full[v] = v < 1000 ? v * 5000 : 1000 * 5000 + (v - 1000) * 3;
  BlockOffsets mixed(full);
  EXPECT_EQ(mixed.narrow_from(), 1024u);
  for (uint64_t v = 0; v <= 10000; ++v) ASSERT_EQ(mixed[v], full[v]) << v;
  for (uint64_t w = 0; w * 64 < 10000; ++w) {  // word by word, as the search walks them
    const BlockOffsets::WordEnds ends = mixed.word(w);
    ASSERT_EQ(ends.begin(), full[w * 64]) << w;
    for (uint64_t i = 0; i < 64 && w * 64 + i < 10000; ++i) ASSERT_EQ(ends(i), full[w * 64 + i + 1]) << w << " " << i;
  }
  for (uint64_t v = 0; v <= 10000; ++v) full[v] = v * 37;

  // A hub of 2^33 entries at vertex 5000: no 4096-vertex block around it fits 32 bits any more.
  for (uint64_t v = 5001; v <= 10000; ++v) full[v] += uint64_t(1) << 33;
  BlockOffsets big(full);
  EXPECT_LT(big.block_shift(), BlockOffsets::kMaxShift);
  for (uint64_t v = 0; v <= 10000; ++v) ASSERT_EQ(big[v], full[v]) << v;
}

// The edge cache's index: v's prefix begins where the prefixes of the lists before it end (each min(degree, K),
// a hub's whole), in the 4-byte region and in the 16-bit one (summed a word at a time there), for K below, inside
// and above the degrees, with and without hubs. A sum that takes a list's end for its degree, or forgets the
// hubs, fails.
TEST(PrefixIndex, BeginIsTheSumOfThePrefixesBeforeIt) {
  NumaArray<uint64_t> full(5001);
  std::mt19937_64 rng(7);
  full[0] = 0;
  for (uint64_t v = 0; v < 5000; ++v) {  // degree-ordered: long lists first, then short ones and empty ones
    const uint64_t degree = v < 300 ? 2000 + rng() % 3000 : v < 4000 ? rng() % 40 : rng() % 3;
    full[v + 1] = full[v] + degree;
  }
  const BlockOffsets offsets(full);
  ASSERT_GT(offsets.narrow_from(), 0u);
  ASSERT_LT(offsets.narrow_from(), 5000u);
  for (const uint64_t k : {0u, 1u, 7u, 30u, 100000u})
    for (const uint64_t hub : {kNoHubs, uint64_t(25), uint64_t(2500)}) {
      const PrefixIndex index(offsets, 5000, k, hub);
      uint64_t at = 0;
      for (uint64_t v = 0; v < 5000; ++v) {
        ASSERT_EQ(index.begin(v, offsets), at) << "K " << k << " hub " << hub << " vertex " << v;
        at += index.length(full[v + 1] - full[v]);
      }
      EXPECT_EQ(index.entries(), at);
    }
}

}  // namespace

// Kernel 3's in-core lists reordered by weight: each list becomes its own entries ordered by (weight, id), short
// lists through a thread's scratch (as 64-bit keys: std::sort below 512 entries, radix sorted from there) and long
// ones (past 2^15 entries) where they lie. Negative weights too: a float's key bits must order as its value.
TEST(Csr, ListsOrderedByWeightAreTheSameEntriesByWeight) {
  std::mt19937_64 rng(7);
  const std::vector<uint64_t> lengths = {0, 1, 2, 17, 300, 511, 512, 32768, 40000, 5, 70000};
  std::vector<uint64_t> offsets = {0};
  for (uint64_t len : lengths) offsets.push_back(offsets.back() + len);
  std::vector<uint32_t> ids(offsets.back());
  std::vector<float> ws(offsets.back());
  for (size_t i = 0; i < ids.size(); ++i) {
    ids[i] = uint32_t(rng() % 100000);
    ws[i] = float(int(rng() % 2000) - 1000) / 1000.0f;  // ties of weight: ordered by id
  }
  const std::vector<uint32_t> ids0 = ids;
  const std::vector<float> ws0 = ws;
  order_lists_by_weight(ids.data(), ws.data(), offsets, lengths.size());
  for (size_t v = 0; v < lengths.size(); ++v) {
    std::vector<std::pair<float, uint32_t>> want, got;
    for (uint64_t i = offsets[v]; i < offsets[v + 1]; ++i) {
      want.push_back({ws0[i], ids0[i]});
      got.push_back({ws[i], ids[i]});
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "list " << v << " of " << lengths[v] << " entries";
  }
}

}  // namespace strata
