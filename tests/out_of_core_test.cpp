// Out-of-core search: the on-disk CSR equals the in-memory one, searches over an edge cache of any size
// (K = 0, 1, 4, 16, all; hubs; several partitions; small requests that split lists) find the in-core levels
// and nedge and pass validation; faults in reads give the right answer (short reads) or a clear error
// (EIO), never a wrong search; damaged or foreign CSR files are refused.
#include <fcntl.h>
#include <sys/resource.h>
#include <csignal>
#include <gtest/gtest.h>

#include <cstdio>
#include <omp.h>

#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "tiers/out_of_core.hpp"
#include "engine/build_csr.hpp"
#include "engine/build_csr_files.hpp"
#include "engine/edge_cache.hpp"
#include "engine/label_slots.hpp"
#include "engine/placement.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"
#include "storage/numa_array.hpp"
#include "tests/test_util.hpp"
#include "validate/validator.hpp"

namespace strata {
namespace {

// The out-of-core tier's search over g's on-disk lists (its kernel 1 done by the test).
std::unique_ptr<GraphSearch<uint32_t>> out_of_core_search(const Csr<uint32_t>& g, const EdgeCache<uint32_t>& cache,
                                                          const CsrFiles& files, const IoOptions& io,
                                                          const Partitioning& p, const BfsOptions& bfs) {
  PlacementSpec spec;
  spec.io = io;
  return tier_search<OutOfCoreTier>(Adjacency<uint32_t>{g, &p, nullptr, nullptr, &cache, &files}, spec, bfs);
}

using test::depths;
using test::TempDir;


struct Fixture {
  TempDir tmp;
  KroneckerSpec spec;
  GraphDir dir;
  Csr<uint32_t> in_core;
  Fixture(int scale, uint64_t seed) : spec{scale, 16, seed, seed + 1} {
    write_graph_dir(Kronecker(spec), tmp / "g", false);
    dir = GraphDir::open(tmp / "g");
    in_core = build_csr<uint32_t>(dir);
  }
  std::vector<uint64_t> roots(int count) const {
    std::vector<bool> has_edge(in_core.n);
    for (uint64_t v = 0; v < in_core.n; ++v) has_edge[in_core.to_input[v]] = in_core.degree(v) > 0;
    return search_roots(spec, count, [&](uint64_t v) { return bool(has_edge[v]); });
  }
  CsrFiles build(int parts, uint64_t memory) {
    const std::string path = CsrFiles::path_for(dir.path(), parts);
    build_csr_files<uint32_t>(dir, path, parts, Topology::detect(), memory);
    return CsrFiles::open(path, dir.header_hash(), spec.scale);
  }
};

// A CSR of one partition with its O(N) arrays and a K-entry cache loaded: what a search needs.
struct LoadedCsr {
  CsrFiles files;
  Csr<uint32_t> g;
  EdgeCache<uint32_t> cache;
  LoadedCsr(Fixture& f, uint64_t k) : files(f.build(1, uint64_t(1) << 30)), g(load_csr_meta<uint32_t>(files)),
                                      cache(load_edge_cache(g, files, k, kNoHubs)) {}
};

class FaultsOff {
 public:
  ~FaultsOff() {
    io_faults().short_every = 0;
    io_faults().error_at = 0;
  }
};

Partitioning partitioning_of(const CsrFiles& files) {
  Partitioning p;
  p.bounds = files.layout().bounds;
  for (int i = 0; i < files.layout().parts(); ++i) p.node.push_back(0);
  return p;
}

// Two OpenMP threads for a test's scope: the budgets below are sized for two threads' buffers.
struct TwoThreads {
  int threads = omp_get_max_threads();
  TwoThreads() { omp_set_num_threads(2); }
  ~TwoThreads() { omp_set_num_threads(threads); }
};

TEST(CsrFiles, ExternalBuildEqualsInMemoryBuildInAnyNumberOfPasses) {
  TwoThreads two;
  Fixture f(12, 2);
  // The buckets' block buffers (1 MiB) and about 3 ranges of the 512 KiB adjacency beside them.
  const uint64_t bucketed = EdgeBuckets<uint32_t>::read_bytes(2) + (uint64_t(256) << 10);
  for (uint64_t memory : {uint64_t(1) << 30, bucketed, uint64_t(64) << 10, uint64_t(24) << 10}) {
    for (int parts : {1, 3}) {
      for (bool renumber : {false, true}) {
        SCOPED_TRACE(testing::Message() << "memory " << memory << " parts " << parts << " renumber " << renumber);
        std::filesystem::remove_all(CsrFiles::path_for(f.dir.path(), parts));
        ExternalBuildStats stats;
        build_csr_files<uint32_t>(f.dir, CsrFiles::path_for(f.dir.path(), parts), parts, Topology::detect(), memory, {},
                                  &stats, false, renumber ? Renumbering{f.tmp.path(), 2} : Renumbering{});
        if (memory < bucketed || (renumber && memory == bucketed)) {
          EXPECT_GT(stats.passes, 2u);
        }
        // Buckets only where they are allowed, pay (two ranges or more: one a partition at least) and their buffers
        // fit; then the tuples are read once after the degree pass, else once a range.
        const bool want_buckets = renumber && memory >= bucketed && stats.passes >= 2;
        EXPECT_EQ(stats.renumbered_bytes > 0, want_buckets);
        EXPECT_EQ(stats.tuple_passes, want_buckets ? 1u : stats.passes);
        const CsrFiles files = CsrFiles::open(CsrFiles::path_for(f.dir.path(), parts), f.dir.header_hash(), 12);
        const Csr<uint32_t> g = load_csr_meta<uint32_t>(files);
        ASSERT_EQ(g.n, f.in_core.n);
        ASSERT_EQ(g.directed_edges(), f.in_core.directed_edges());
        for (uint64_t v = 0; v < g.n; ++v) {
          ASSERT_EQ(g.to_input[v], f.in_core.to_input[v]);
          ASSERT_EQ(g.degree(v), f.in_core.degree(v));
          ASSERT_EQ(g.raw_degree(v), f.in_core.raw_degree(v));
        }
        // The whole adjacency, read back through the cache with every list whole.
        const EdgeCache<uint32_t> all = load_edge_cache(g, files, g.degree(0), kNoHubs);
        ASSERT_EQ(all.adj.size(), f.in_core.adj.size());
        for (uint64_t i = 0; i < all.adj.size(); ++i) ASSERT_EQ(all.adj[i], f.in_core.adj[i]) << i;
      }
    }
  }
}

// The edge cache cut from the prefixes a build keeps (engine/prefix_stage.hpp) holds, for every K up to the
// stage's, each list's first min(degree, K) entries: lists appended a range at a time and cut across the stage's
// blocks (4 KiB here). A K above the stage's is refused, and a damaged block is an error naming the scratch file.
TEST(OutOfCore, CacheCutFromTheStagedPrefixesHoldsEachListsFirstEntries) {
  TwoThreads two;
  Fixture f(12, 3);
  const Csr<uint32_t>& g = f.in_core;
  std::vector<uint64_t> offsets(g.n + 1);
  for (uint64_t v = 0; v <= g.n; ++v) offsets[v] = g.offsets[v];
  const uint64_t ks = 9;
  uint64_t entries = 0;
  for (uint64_t v = 0; v < g.n; ++v) entries += std::min(g.degree(v), ks);
  PrefixStage stage(f.tmp.path(), ks, entries, sizeof(uint32_t), 4096);
  for (uint64_t lo = 0; lo < g.n;) {  // ranges of 1 to 999 vertices, as a build's
    const uint64_t hi = std::min(g.n, lo + 1 + (lo * 7919) % 999);
    stage.append(g.adj.data() + offsets[lo], offsets.data() + lo, hi - lo);
    lo = hi;
  }
  stage.finish();
  EXPECT_EQ(stage.bytes(), entries * sizeof(uint32_t));
  ASSERT_GT(stage.blocks(), 3u);
  for (uint64_t k : {uint64_t(0), uint64_t(1), uint64_t(4), ks}) {
    SCOPED_TRACE(testing::Message() << "K " << k);
    const EdgeCache<uint32_t> c = stage.load<uint32_t, uint32_t>(g, k);
    ASSERT_EQ(c.k, k);
    uint64_t at = 0;
    for (uint64_t v = 0; v < g.n; ++v) {
      ASSERT_EQ(c.index.begin(v, g.offsets), at) << v;
      for (uint64_t i = 0; i < std::min(g.degree(v), k); ++i, ++at) ASSERT_EQ(c.adj[at], g.adj[offsets[v] + i]) << v;
    }
    EXPECT_EQ(at, c.adj.size());
  }
  EXPECT_THROW((stage.load<uint32_t, uint32_t>(g, ks + 1)), Error);
  stage.damage_for_testing(2);
  try {
    (void)stage.load<uint32_t, uint32_t>(g, ks);
    FAIL() << "a damaged block was read back without an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cached prefixes in " + f.tmp.path() + " do not read back as written (block 2)"),
              std::string::npos) << e.what();
  }
}

// A build asked to keep the cache's prefixes (kernel 1 on storage, engine/prepare.hpp) keeps them in one range or
// several, from its buckets or its passes, ids or weighted, and the cache cut from them equals the cache read
// back from the CSR it wrote, for K up to the stage's; none where they would pass half the adjacency.
TEST(OutOfCore, CacheFromTheBuildsPrefixesEqualsTheCacheReadFromItsCsr) {
  TwoThreads two;
  Fixture f(15, 4);
  const uint64_t cache_bytes = uint64_t(160) << 10;  // of a 4 MiB adjacency
  for (uint64_t memory : {uint64_t(64) << 20, (uint64_t(5) << 20) / 2}) {
    for (bool renumber : {false, true}) {
      for (bool weighted : {false, true}) {
        SCOPED_TRACE(testing::Message() << "memory " << memory << " renumber " << renumber << " weighted " << weighted);
        const std::string path = CsrFiles::path_for(f.dir.path(), 1, weighted);
        std::filesystem::remove_all(path);
        ExternalBuildStats stats;
        std::optional<PrefixStage> staged;
        const Renumbering buckets = renumber ? Renumbering{f.tmp.path(), 2} : Renumbering{};
        const PrefixStaging staging{f.tmp.path(), cache_bytes, -1};
        if (weighted)
          build_csr_files<uint32_t, NodeWeight<uint32_t>>(f.dir, path, 1, Topology::detect(), memory, {}, &stats, false,
                                                         buckets, nullptr, staging, &staged);
        else
          build_csr_files<uint32_t>(f.dir, path, 1, Topology::detect(), memory, {}, &stats, false, buckets, nullptr,
                                    staging, &staged);
        ASSERT_TRUE(staged.has_value());
        EXPECT_EQ(stats.passes > 1, memory < (uint64_t(4) << 20));
        EXPECT_EQ(stats.prefix_bytes, staged->bytes());
        EXPECT_LE(staged->bytes(), 2 * cache_bytes);
        const CsrFiles files = CsrFiles::open(path, f.dir.header_hash(), 15);
        const Csr<uint32_t> g = load_csr_meta<uint32_t>(files);
        uint64_t k = 0;
        ASSERT_TRUE(k_for_budget(g, cache_bytes, kNoHubs, k, weighted ? 8 : 4));
        ASSERT_LE(k, staged->k());
        for (uint64_t kk : {uint64_t(1), k, staged->k()}) {
          if (weighted) {
            const auto a = staged->load<uint32_t, NodeWeight<uint32_t>>(g, kk);
            const auto b = load_edge_cache<uint32_t, NodeWeight<uint32_t>>(g, files, kk, kNoHubs);
            ASSERT_EQ(a.adj.size(), b.adj.size());
            for (uint64_t i = 0; i < a.adj.size(); ++i) ASSERT_TRUE(a.adj[i].v == b.adj[i].v && a.adj[i].w == b.adj[i].w) << i;
          } else {
            const auto a = staged->load<uint32_t, uint32_t>(g, kk);
            const auto b = load_edge_cache(g, files, kk, kNoHubs);
            ASSERT_EQ(a.adj.size(), b.adj.size());
            for (uint64_t i = 0; i < a.adj.size(); ++i) ASSERT_EQ(a.adj[i], b.adj[i]) << i;
          }
        }
      }
    }
  }
  // A cache of more than half the adjacency is read back instead: writing and reading its prefixes costs more.
  std::optional<PrefixStage> staged;
  const std::string path = CsrFiles::path_for(f.dir.path(), 1);
  std::filesystem::remove_all(path);
  ExternalBuildStats stats;
  build_csr_files<uint32_t>(f.dir, path, 1, Topology::detect(), uint64_t(64) << 20, {}, &stats, false, {}, nullptr,
                            PrefixStaging{f.tmp.path(), uint64_t(2) << 20, -1}, &staged);
  EXPECT_FALSE(staged.has_value());
  EXPECT_EQ(stats.prefix_bytes, 0u);
}

namespace {

// `count` raw lists as kernel 1 holds a range's (lengths not increasing; neighbours drawn from a few, so that
// duplicates shrink many lists), ids below n; weighted entries carry weights drawn alike.
template <class Entry>
std::vector<Entry> raw_test_lists(uint64_t count, uint64_t n, std::vector<uint64_t>& raw) {
  std::mt19937_64 rng(count);
  raw.assign(1, 0);
  std::vector<Entry> entries;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t length = i + 50 < count ? 6000 / (i + 1) + 1 : 0;  // the last lists empty
    for (uint64_t j = 0; j < length; ++j) {
      const uint32_t v = uint32_t(rng() % std::min<uint64_t>(n, 2 * length + 3));
      if constexpr (std::is_same_v<Entry, uint32_t>) entries.push_back(v);
      else entries.push_back({v, float(rng() % 7) / 8.0f});
    }
    raw.push_back(entries.size());
  }
  return entries;
}

// The lists as sort_and_append writes them to a CSR of one partition (chunks of at least min_chunk entries),
// read back whole, every block's checksum checked; offsets[i] and removed[i] as its on_list gave them.
template <class Entry>
std::vector<Entry> sorted_and_appended(const std::string& path, std::vector<Entry> entries, const std::vector<uint64_t>& raw,
                                       uint64_t n, uint64_t min_chunk, std::vector<uint64_t>& offsets,
                                       std::vector<uint64_t>& removed) {
  const uint64_t count = raw.size() - 1;
  CsrLayout layout;
  layout.graph_hash = 0x5eed;
  layout.scale = 16;
  layout.id_bytes = 4;
  layout.weighted = !std::is_same_v<Entry, uint32_t>;
  layout.n = count;
  layout.bounds = {0, count};
  offsets.assign(count + 1, 0);
  removed.assign(count, 0);
  {
    CsrWriter writer(path, layout);
    double sort_s = 0, write_s = 0;
    offsets[count] = sort_and_append<uint32_t>(entries.data(), raw.data(), count, n, writer, 0,
                                               [&](uint64_t i, uint64_t start, uint64_t r) { offsets[i] = start, removed[i] = r; },
                                               [](Entry*, uint64_t) {}, sort_s, write_s, min_chunk);
    writer.finish_part(0);
    writer.write_meta(offsets.data(), offsets.size() * sizeof(uint64_t));
    NumaArray<uint32_t> to_input(count);
    NumaArray<uint8_t> duplicates(count);
    std::vector<std::pair<uint64_t, uint64_t>> many;
    for (uint64_t i = 0; i < count; ++i) to_input[i] = uint32_t(i), Csr<uint32_t>::note_duplicates(duplicates[i], many, i, removed[i]);
    write_labels_and_duplicates(writer, to_input.data(), duplicates.data(), count, many);
    writer.commit(0);
  }
  const CsrFiles files = CsrFiles::open(path, 0x5eed, 16);
  const Csr<uint32_t> g = load_csr_meta<uint32_t>(files);
  const EdgeCache<Entry> all = load_edge_cache<uint32_t, Entry>(g, files, max_degree(g), kNoHubs);
  return std::vector<Entry>(all.adj.data(), all.adj.data() + all.adj.size());
}

template <class Entry>
void expect_chunked_equals_whole() {
  TwoThreads two;
  TempDir tmp;
  const uint64_t count = 3000, n = 1 << 16;
  std::vector<uint64_t> raw;
  std::vector<Entry> whole = raw_test_lists<Entry>(count, n, raw);
  std::vector<Entry> chunked = whole;
  if constexpr (std::is_same_v<Entry, uint32_t>) sort_and_dedup_lists(whole.data(), raw.data(), count, n);
  else sort_and_dedup_lists_by_weight(whole.data(), raw.data(), count);
  std::vector<uint64_t> offsets(count + 1), removed(count);
  offsets[count] = squish_lists(whole.data(), raw.data(), count, [&](uint64_t i, uint64_t start, uint64_t, uint64_t, uint64_t r) {
    offsets[i] = start, removed[i] = r;
  });
  whole.resize(offsets[count]);
  ASSERT_LT(offsets[count], raw[count] * 9 / 10);  // duplicates removed from many lists
  for (uint64_t min_chunk : {uint64_t(1), uint64_t(997), raw[count] / 3, raw[count]}) {  // a list a chunk, to all in one
    SCOPED_TRACE(min_chunk);
    std::vector<uint64_t> got_offsets, got_removed;
    const std::vector<Entry> got =
        sorted_and_appended(tmp / ("csr" + std::to_string(min_chunk)), chunked, raw, n, min_chunk, got_offsets, got_removed);
    EXPECT_EQ(got_offsets, offsets);
    EXPECT_EQ(got_removed, removed);
    ASSERT_EQ(got.size(), whole.size());
    for (uint64_t e = 0; e < whole.size(); ++e) {
      ASSERT_EQ(entry_id(got[e]), entry_id(whole[e])) << e;
      if constexpr (!std::is_same_v<Entry, uint32_t>) {
        ASSERT_EQ(got[e].w, whole[e].w) << e;
      }
    }
  }
}

}  // namespace

// A range's lists sorted, deduplicated, compacted and appended a chunk at a time, each chunk's append behind the
// next chunk's sort (sort_and_append), are the CSR one sort and one compaction of the whole range give: ids and
// weighted entries, chunks from one list each to the whole range.
TEST(CsrFiles, ListsSortedAndAppendedByChunksEqualTheWholeRangeSortedOnce) {
  expect_chunked_equals_whole<uint32_t>();
  expect_chunked_equals_whole<NodeWeight<uint32_t>>();
}

// An append that fails behind the next chunk's sort (here past a file size limit, as a full disk) is an error
// naming the CSR's file, not a CSR that reads back short.
TEST(CsrFiles, FailedAppendBehindTheSortIsAnErrorNamingTheFile) {
  TempDir tmp;
  std::mt19937_64 rng(5);
  std::vector<uint64_t> raw{0}, offsets, removed;
  std::vector<uint32_t> entries;  // 4096 lists of 1024 entries (16 MiB): four of the writer's blocks
  for (int i = 0; i < 4096; ++i) {
    for (int j = 0; j < 1024; ++j) entries.push_back(uint32_t(rng() % (1 << 16)));
    raw.push_back(entries.size());
  }
  rlimit was{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &was), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
  rlimit limit = was;
  limit.rlim_cur = 8 << 20;  // two blocks
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  std::string error;
  try {
    sorted_and_appended(tmp / "csr", entries, raw, 1 << 16, 1000, offsets, removed);
  } catch (const Error& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &was);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(error.find(tmp / "csr"), std::string::npos) << error;
}

// Appends of whole checksum blocks are hashed and written straight from the caller's memory (CsrWriter::append),
// the rest copied into the writer's block: appends that start on and off a block's start, shorter and longer
// than a block, read back equal, every block's checksum checked.
TEST(CsrFiles, WholeBlocksWrittenFromTheCallersMemoryReadBackChecked) {
  TempDir tmp;
  const uint64_t block = kCsrHashBlock / sizeof(uint32_t), n = uint64_t(1) << 20;
  // 100 entries (the block begun), the rest of block 0 (copied), 2.5 blocks from a block's start (two written
  // from the caller's memory, half a block copied), then 1000 entries.
  const std::vector<uint64_t> appends = {100, block - 100, block * 5 / 2, 1000};
  std::vector<uint32_t> entries;
  for (uint64_t count : appends)
    for (uint64_t i = 0; i < count; ++i) entries.push_back(uint32_t((entries.size() * 2654435761u) % n));
  CsrLayout layout;
  layout.graph_hash = 0x5eed;
  layout.scale = 20;
  layout.id_bytes = 4;
  layout.n = n;
  layout.bounds = {0, n};
  const std::string path = tmp / "csr";
  {
    CsrWriter writer(path, layout);
    writer.reserve_part(0, entries.size());
    NumaArray<uint64_t> offsets(n + 1);
    uint64_t at = 0;
    for (uint64_t v = 0; v <= n; ++v) {
      offsets[v] = at;
      if (v < appends.size()) {
        writer.append(0, entries.data() + at, appends[v]);
        at += appends[v];
      }
    }
    writer.finish_part(0);
    writer.write_meta(offsets.data(), (n + 1) * sizeof(uint64_t));
    NumaArray<uint32_t> to_input(n);
    NumaArray<uint8_t> duplicates(n);
    for (uint64_t v = 0; v < n; ++v) to_input[v] = uint32_t(v), duplicates[v] = 0;
    write_labels_and_duplicates(writer, to_input.data(), duplicates.data(), n, {});
    writer.commit(0);
  }
  const CsrFiles files = CsrFiles::open(path, 0x5eed, 20);
  const Csr<uint32_t> g = load_csr_meta<uint32_t>(files);
  ASSERT_EQ(max_degree(g), block * 5 / 2);
  const EdgeCache<uint32_t> all = load_edge_cache(g, files, max_degree(g), kNoHubs);
  ASSERT_EQ(all.adj.size(), entries.size());
  for (uint64_t i = 0; i < entries.size(); ++i) ASSERT_EQ(all.adj[i], entries[i]) << i;
}

// Ranges filled from the tuple buckets build the same CSR as the in-memory build, stored tuples or regenerated,
// at a SCALE whose lists outgrow a budget that still holds the buckets' buffers (2 threads); the buckets are
// written once and coded below the 5 bytes an entry reserved.
TEST(CsrFiles, BucketedBuildBuildsTheSameCsr) {
  TwoThreads two;
  const uint64_t memory = EdgeBuckets<uint32_t>::read_bytes(2) + (uint64_t(1) << 20);
  for (bool stored : {true, false}) {
    SCOPED_TRACE(stored ? "tuples stored" : "spec alone");
    TempDir tmp;
    const KroneckerSpec spec{15, 16, 5, 6};
    write_graph_dir(Kronecker(spec), tmp / "g", false, {}, stored);
    const GraphDir dir = GraphDir::open(tmp / "g");
    const Csr<uint32_t> want = build_csr<uint32_t>(dir);
    ExternalBuildStats stats;
    build_csr_files<uint32_t>(dir, tmp / "csr", 1, Topology::detect(), memory, {}, &stats, false,
                              Renumbering{tmp.path(), 2});
    EXPECT_GE(stats.passes, 2u);
    EXPECT_EQ(stats.tuple_passes, 1u);
    EXPECT_GT(stats.renumbered_bytes, 0u);
    EXPECT_LE(stats.renumbered_bytes, EdgeBuckets<uint32_t>::reserve_bytes(spec.edge_count()));
    const CsrFiles files = CsrFiles::open(tmp / "csr", dir.header_hash(), spec.scale);
    const Csr<uint32_t> g = load_csr_meta<uint32_t>(files);
    ASSERT_EQ(g.n, want.n);
    for (uint64_t v = 0; v < g.n; ++v) {
      ASSERT_EQ(g.to_input[v], want.to_input[v]);
      ASSERT_EQ(g.raw_degree(v), want.raw_degree(v));
    }
    const EdgeCache<uint32_t> all = load_edge_cache(g, files, g.degree(0), kNoHubs);
    ASSERT_EQ(all.adj.size(), want.adj.size());
    for (uint64_t i = 0; i < all.adj.size(); ++i) ASSERT_EQ(all.adj[i], want.adj[i]) << i;
  }
}

// Bucket k's entries as (list, entry) pairs, sorted: what for_each_batch hands out, in whatever order.
template <class Id>
std::vector<std::pair<uint64_t, Id>> read_back(EdgeBuckets<Id>& buckets, size_t k) {
  std::vector<std::pair<uint64_t, Id>> got;
  std::mutex lock;
  buckets.for_each_batch(k, [&](const uint32_t* rows, const Id* ids, size_t count) {
    const std::lock_guard<std::mutex> hold(lock);
    for (size_t i = 0; i < count; ++i) got.push_back({buckets.bucket_first(k) + rows[i], ids[i]});
  });
  std::sort(got.begin(), got.end());
  return got;
}

// Every entry put in a bucket comes back from that bucket, as many times; a damaged block is
// an error naming it; nothing is left in the directory.
TEST(CsrFiles, TupleBucketsReadBackWhatWasPutAndRefuseADamagedBlock) {
  TwoThreads two;
  Fixture f(12, 2);
  NumaArray<uint32_t> label;
  order_by_degree<uint32_t>(f.dir, label, {});
  const uint64_t n = f.spec.vertex_count();
  const std::vector<uint64_t> bounds{0, 7, 300, 301, n};
  std::vector<Edge> tuples(f.spec.edge_count());
  Kronecker(f.spec).generate(0, tuples.size(), tuples.data());
  auto fill = [&](EdgeBuckets<uint32_t>& buckets) {
    distribute_tuples(f.dir, label, buckets, {});
  };
  // stage 300: many blocks a bucket, runs of a row split across blocks and threads.
  EdgeBuckets<uint32_t> buckets(bounds, std::vector<uint64_t>(bounds.size() - 1, n * 64), n, f.tmp.path(), 4096, 300);
  fill(buckets);
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> want(bounds.size() - 1);
  const LabelSlots slots(f.spec);
  for (const Edge& e : tuples) {
    if (e.u == e.v) continue;
    const uint32_t lu = label[slots.slot(e.u)], lv = label[slots.slot(e.v)];  // the map is kept by slot
    for (auto [a, b] : {std::pair{lu, lv}, std::pair{lv, lu}})
      for (size_t k = 0; k + 1 < bounds.size(); ++k)
        if (a >= bounds[k] && a < bounds[k + 1]) want[k].push_back({a, b});
  }
  EXPECT_EQ(buckets.entries(), [&] { uint64_t s = 0; for (auto& w : want) s += w.size(); return s; }());
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    std::sort(want[k].begin(), want[k].end());
    EXPECT_EQ(read_back(buckets, k), want[k]) << "bucket " << k;
  }
  for (const auto& entry : std::filesystem::directory_iterator(f.tmp.path()))
    EXPECT_EQ(entry.path().filename().string().rfind(".strata-spill", 0), std::string::npos) << entry.path();

  EdgeBuckets<uint32_t> damaged(bounds, std::vector<uint64_t>(bounds.size() - 1, n * 64), n, f.tmp.path(), 4096, 300);
  fill(damaged);
  damaged.damage_for_testing(2);
  try {
    damaged.for_each_batch(2, [](const uint32_t*, const uint32_t*, size_t) {});
    FAIL() << "a damaged block was read back without an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("do not read back as written (bucket 2, block 0)"), std::string::npos) << e.what();
  }
}

// The buckets' writes run behind the flush that codes them (WriteBehind): a write that fails (here past a file
// size limit, as a full disk past the reservation) is still an error naming the scratch file, from the
// distribution, not a bucket that reads back short.
TEST(CsrFiles, TupleBucketsFailedWriteBehindIsAnErrorNamingTheScratchFile) {
  TwoThreads two;
  Fixture f(12, 2);
  NumaArray<uint32_t> label;
  order_by_degree<uint32_t>(f.dir, label, {});
  const uint64_t n = f.spec.vertex_count();
  const std::vector<uint64_t> bounds{0, 7, 300, 301, n};
  using Buckets = EdgeBuckets<uint32_t>;  // large blocks: the flush codes one while the last is written
  ASSERT_EQ(Buckets::write_parts(Buckets::kLargeBlockBytes), 2u);
  Buckets buckets(bounds, std::vector<uint64_t>(bounds.size() - 1, n * 64), n, f.tmp.path(), 4096, 300,
                  Buckets::kLargeBlockBytes);
  rlimit was{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &was), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
  rlimit limit = was;
  limit.rlim_cur = 64 << 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  std::string error;
  try {
    distribute_tuples(f.dir, label, buckets, {});
  } catch (const Error& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &was);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(error.find("cannot write kernel 1's tuple buckets' scratch file"), std::string::npos) << error;
}

// `count` entries put by thread 0 into the two buckets of `bounds` alternately, each row drawn in its bucket and
// its id by id_of(draw); returns each bucket's entries, sorted as read_back gives them.
template <class Id, class IdOf>
std::vector<std::vector<std::pair<uint64_t, Id>>> put_alternately(EdgeBuckets<Id>& buckets,
                                                                  const std::vector<uint64_t>& bounds, uint64_t count,
                                                                  IdOf id_of) {
  std::vector<std::vector<std::pair<uint64_t, Id>>> want(2);
  uint64_t x = 1;
  for (uint64_t i = 0; i < count; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const size_t k = size_t(i % 2);
    const uint64_t row = bounds[k] + (x >> 11) % (bounds[k + 1] - bounds[k]);
    const Id id = id_of(x);
    buckets.add(0, row, id);
    want[k].push_back({row, id});
  }
  buckets.finish();
  for (auto& w : want) std::sort(w.begin(), w.end());
  return want;
}

// Rows and ids of every width the coding takes come back from their buckets as they were put: varints of 1 to 9
// bytes, in blocks sorted by row and id (a bucket whose flush holds more entries than it has rows) and by row
// alone (fewer).
TEST(CsrFiles, TupleBucketsKeepRowsAndIdsOfEveryWidth) {
  TwoThreads two;
  TempDir tmp;
  struct Case {
    uint64_t n;
    std::vector<uint64_t> bounds;
    uint64_t stage;
  };
  for (const Case& c : {Case{uint64_t(1) << 40, {0, 16, 16 + (uint64_t(1) << 20)}, 300},
                        Case{uint64_t(1) << 60, {0, 2, 16}, 8}}) {
    EdgeBuckets<uint64_t> buckets(c.bounds, {1 << 20, 1 << 20}, c.n, tmp.path(), 4096, c.stage);
    const auto want = put_alternately(buckets, c.bounds, 6000, [&](uint64_t x) {
      return (x >> (x % 61)) % c.n;  // every width up to the ids' bits
    });
    for (size_t k = 0; k < 2; ++k) EXPECT_EQ(read_back(buckets, k), want[k]) << "n " << c.n << ", bucket " << k;
  }
}

// Blocks of 1 MiB where the memory holds their buffers 64 times over, 256 KiB below (a rank's few MiB); a bucket
// built with the large blocks, a flush of several of them, reads back what was put.
TEST(CsrFiles, TupleBucketsTakeLargeBlocksWhereTheMemoryHoldsThem) {
  using Buckets = EdgeBuckets<uint32_t>;
  EXPECT_EQ(Buckets::block_bytes_for(uint64_t(9) << 20, 2), Buckets::kBlockBytes);
  EXPECT_EQ(Buckets::block_bytes_for(uint64_t(1) << 30, 2), Buckets::kLargeBlockBytes);
  EXPECT_EQ(Buckets::read_bytes(2, uint64_t(1) << 30), 2 * Buckets::kReadersPerThread * Buckets::kLargeBlockBytes);
  EXPECT_EQ(Buckets::read_bytes(2), 2 * Buckets::kReadersPerThread * Buckets::kBlockBytes);
  TwoThreads two;
  TempDir tmp;
  const uint64_t n = uint64_t(1) << 30, entries = 900000;
  const std::vector<uint64_t> bounds{0, 64, n};
  Buckets buckets(bounds, {entries, entries}, n, tmp.path(), 4096, entries, Buckets::kLargeBlockBytes);
  const auto want = put_alternately(buckets, bounds, 2 * entries, [&](uint64_t x) { return uint32_t((x >> 33) % n); });
  EXPECT_GT(buckets.written_bytes(), 3 * Buckets::kLargeBlockBytes);
  for (size_t k = 0; k < 2; ++k) EXPECT_EQ(read_back(buckets, k), want[k]) << "bucket " << k;
}

// A scratch file that cannot be made names its use, in a possessive that reads (names ending in s included).
TEST(SpillFile, ErrorsNameTheUse) {
  for (auto [what, said] : {std::pair{"validation", "validation's scratch file"},
                            std::pair{"kernel 1's tuple buckets", "kernel 1's tuple buckets' scratch file"}}) {
    try {
      SpillFile f("/nonexistent-strata-dir", 4096, what);
      ADD_FAILURE() << "a scratch file in a missing directory was made";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("cannot create ") + said + " in /nonexistent-strata-dir"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(CsrFiles, BuildRefusesScratchSmallerThanTheLongestList) {
  Fixture f(12, 2);
  try {
    build_csr_files<uint32_t>(f.dir, CsrFiles::path_for(f.dir.path(), 1), 1, Topology::detect(), 4096);
    FAIL() << "a 4 KiB build budget cannot hold the longest list";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("of memory for the longest list"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(CsrFiles::path_for(f.dir.path(), 1)));
}

TEST(OutOfCore, LevelsAndNedgeEqualInCoreForEveryCacheSize) {
  for (uint64_t seed : {2, 9}) {
    Fixture f(13, seed);
    const auto roots = f.roots(3);
    Partitioning one = partition_by_work(f.in_core, 1, Topology::detect());
    HybridBfs<uint32_t> reference(f.in_core, one, BfsOptions{});
    std::vector<std::vector<int>> want;
    std::vector<uint64_t> want_nedge;
    for (uint64_t r : roots) {
      std::vector<uint32_t> parent(f.in_core.n);
      reference.search(internal_ids(f.in_core, {r})[0], parent.data());
      want.push_back(depths(parent, r));
      want_nedge.push_back(reference.reached_raw_degree_sum() / 2);
    }
    test::ResultBatch batch;  // every case's results, validated together at the end
    for (int parts : {1, 3}) {
      const CsrFiles files = f.build(parts, uint64_t(256) << 10);
      const Csr<uint32_t> g = load_csr_meta<uint32_t>(files);
      const Partitioning p = partitioning_of(files);
      struct Case {
        uint64_t k, hub;
        uint32_t request;
      };
      const uint64_t all = g.degree(0);
      for (Case c : {Case{0, kNoHubs, 128 << 10}, Case{1, kNoHubs, 128 << 10}, Case{4, kNoHubs, 4096},
                     Case{16, kNoHubs, 128 << 10}, Case{all, kNoHubs, 128 << 10}, Case{1, 64, 8192}}) {
        const EdgeCache<uint32_t> cache = load_edge_cache(g, files, c.k, c.hub);
        for (Direction d : {Direction::kHybrid, Direction::kTopDown, Direction::kBottomUp}) {
          auto bfs = out_of_core_search(g, cache, files, IoOptions{.depth = 8, .request_bytes = c.request, .merge_gap = 4096},
                                  p, BfsOptions{.direction = d});
          for (size_t i = 0; i < roots.size(); ++i) {
            const std::string what = (testing::Message() << "seed " << seed << " parts " << parts << " K " << c.k
                                                         << " hub " << c.hub << " request " << c.request << " dir "
                                                         << int(d) << " root " << roots[i]).GetString();
            SCOPED_TRACE(what);
            std::vector<uint32_t> parent(g.n);
            const SearchStats s = bfs->search(internal_ids(g, {roots[i]})[0], parent.data());
            ASSERT_EQ(depths(parent, roots[i]), want[i]);
            const uint64_t nedge = bfs->reached_raw_degree_sum() / 2;
            ASSERT_EQ(nedge, want_nedge[i]);
            if (c.k == all) {
              EXPECT_EQ(s.io.bytes_read, 0u);
            }
            if (c.k == 0) {
              EXPECT_GT(s.io.edges_storage, 0u);
            }
            batch.add(std::move(parent), roots[i], nedge, what);
          }
        }
      }
    }
    const std::vector<Verdict> verdicts = batch.validate(f.dir);
    ASSERT_EQ(verdicts.size(), batch.what.size());
    for (size_t k = 0; k < verdicts.size(); ++k) EXPECT_TRUE(verdicts[k].valid) << batch.what[k] << ": " << verdicts[k].message;
  }
}

TEST(OutOfCore, BudgetPicksTheLargestCacheThatFits) {
  Fixture f(12, 2);
  const CsrFiles files = f.build(1, uint64_t(1) << 30);
  const Csr<uint32_t> g = load_csr_meta<uint32_t>(files);
  const uint64_t total = g.directed_edges() * 4;
  for (uint64_t budget : {total / 10, total / 4, total / 2, total}) {
    uint64_t k = 0;
    ASSERT_TRUE(k_for_budget(g, budget, kNoHubs, k));
    EXPECT_LE(cache_entries(g, k, kNoHubs) * 4, budget);
    if (k < g.degree(0)) {
      EXPECT_GT(cache_entries(g, k + 1, kNoHubs) * 4, budget);
    }
  }
  uint64_t k = 0;
  EXPECT_FALSE(k_for_budget(g, 16, 8, k));  // the hubs alone do not fit
}


// The sizes k_for_budget searches come from one count of the degrees (CacheSizes), equal to a pass over the
// vertices for every K and hub degree, lists longer than its dense counts included (degrees not in order).
TEST(OutOfCore, CacheSizesEqualAPassOverTheVertices) {
  std::mt19937_64 rng(5);
  Csr<uint32_t> g;
  g.n = 3000;
  NumaArray<uint64_t> offsets(g.n + 1);
  offsets[0] = 0;
  for (uint64_t v = 0; v < g.n; ++v) {
    const uint64_t d = v == 0 ? CacheSizes::kDense : v < 7 ? CacheSizes::kDense + 1 + rng() % 20000 : rng() % 3 == 0 ? 0 : rng() % 300;
    offsets[v + 1] = offsets[v] + d;
  }
  g.offsets = BlockOffsets(offsets);
  const CacheSizes sizes(g);
  uint64_t longest = 0;
  for (uint64_t v = 0; v < g.n; ++v) longest = std::max(longest, g.degree(v));
  ASSERT_GT(longest, g.degree(0));  // as deduplication can leave it: vertex 0 is not the longest list
  EXPECT_EQ(sizes.max_degree(), longest);
  EXPECT_EQ(max_degree(g), longest);
  // A budget that holds every list whole gives the longest list's K, not vertex 0's (a cut list).
  uint64_t whole = 0;
  ASSERT_TRUE(k_for_budget(g, UINT64_MAX / 8, kNoHubs, whole));
  EXPECT_EQ(whole, longest);
  EXPECT_EQ(cache_entries(g, whole, kNoHubs), g.offsets[g.n]);
  for (uint64_t hub : {uint64_t(100), uint64_t(5000), kNoHubs})
    for (uint64_t k : {uint64_t(0), uint64_t(1), uint64_t(17), uint64_t(299), CacheSizes::kDense, uint64_t(30000)})
      ASSERT_EQ(sizes.entries(k, hub), cache_entries(g, k, hub)) << "K " << k << ", hub degree " << hub;
}

TEST(OutOfCore, ShortReadsAreCompletedAndEioIsAnErrorNamingFileAndOffset) {
  Fixture f(13, 2);
  const LoadedCsr csr(f, 1);
  const auto& [files, g, cache] = std::tie(csr.files, csr.g, csr.cache);
  const Partitioning p = partitioning_of(files);
  const uint64_t root = f.roots(1)[0];
  auto bfs = out_of_core_search(g, cache, files, IoOptions{.depth = 4, .request_bytes = 64 << 10}, p, BfsOptions{});
  std::vector<uint32_t> clean(g.n), faulty(g.n);
  bfs->search(internal_ids(g, {root})[0], clean.data());
  {
    Partitioning one = partition_by_work(f.in_core, 1, Topology::detect());
    HybridBfs<uint32_t> reference(f.in_core, one, BfsOptions{});
    std::vector<uint32_t> parent(g.n);
    reference.search(internal_ids(f.in_core, {root})[0], parent.data());
    ASSERT_EQ(depths(clean, root), depths(parent, root));
  }
  FaultsOff restore;
  io_faults().short_every = 2;
  const SearchStats s = bfs->search(internal_ids(g, {root})[0], faulty.data());
  ASSERT_GT(s.io.requests, 4u);
  EXPECT_EQ(depths(faulty, root), depths(clean, root));
  io_faults().short_every = 0;
  io_faults().error_at = io_faults().completions.load() + 3;
  try {
    bfs->search(internal_ids(g, {root})[0], faulty.data());
    FAIL() << "an EIO must end the search";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("adj.0.bin at offset"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Input/output error"), std::string::npos) << e.what();
  }
  // The reader is usable again after the error.
  io_faults().error_at = 0;
  bfs->search(internal_ids(g, {root})[0], faulty.data());
  EXPECT_EQ(depths(faulty, root), depths(clean, root));
}

// Overwriting the adjacency during a run (here between searches, after the load checked every checksum): an
// entry that is no vertex id ends the search with an error naming the file and offset, in either direction;
// nothing indexes past the search's arrays.
TEST(OutOfCore, AnAdjacencyFileOverwrittenAfterLoadIsAnErrorNamingFileAndOffset) {
  Fixture f(12, 3);
  const LoadedCsr csr(f, 1);
  const auto& [files, g, cache] = std::tie(csr.files, csr.g, csr.cache);
  const Partitioning p = partitioning_of(files);
  const uint32_t root = internal_ids(g, f.roots(1))[0];
  {
    File adj(files.path() + "/adj.0.bin", O_WRONLY);
    const std::vector<char> junk(adj.size(), char(0xff));
    adj.write_all(junk.data(), junk.size());
  }
  for (Direction d : {Direction::kTopDown, Direction::kBottomUp}) {
    auto bfs = out_of_core_search(g, cache, files, IoOptions{}, p, BfsOptions{.direction = d});
    std::vector<uint32_t> parent(g.n);
    try {
      bfs->search(root, parent.data());
      FAIL() << "a corrupted tail must end the search";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("adj.0.bin is corrupted: the entry at offset"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("remove " + files.path()), std::string::npos) << e.what();
    }
  }
}

// The reader alone, on random requests, O_DIRECT and buffered (the fallback), with short reads planted:
// every buffer handed out holds exactly the file's bytes.
TEST(UringReader, RandomRequestsReturnTheFileBytesDirectAndBuffered) {
  TempDir tmp;
  const uint64_t size = uint64_t(3) << 20;
  std::vector<char> want(size);
  for (uint64_t i = 0; i < size; ++i) want[i] = char(i * 2654435761u >> 13);
  {
    File f(tmp / "data", O_WRONLY | O_CREAT | O_TRUNC);
    f.write_all(want.data(), size);
  }
  FaultsOff restore;
  for (bool direct : {true, false})
    for (uint64_t short_every : {0, 3}) {
      io_faults().short_every = short_every;
      DirectFile file = open_direct(tmp / "data", direct);
      // Buffered when asked; direct where the filesystem has O_DIRECT (not tmpfs before Linux 6.6, as $TMPDIR):
      // there the reads fall back to buffered ones and are checked all the same.
      if (!direct) {
        EXPECT_FALSE(file.direct);
      }
      if (direct && !file.direct) std::fprintf(stderr, "note: no O_DIRECT under %s: buffered reads\n", (tmp / "").c_str());
      UringReader reader({&file}, 8, 64 << 10);
      uint64_t seed = 7, issued = 0, checked = 0;
      reader.run(
          [&](ReadRequest& r) {
            if (issued++ == 500) return false;
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            r.length = uint32_t(4096 * (1 + (seed >> 33) % 16));
            r.offset = 4096 * ((seed >> 13) % ((size - r.length) / 4096));
            return true;
          },
          [&](const ReadRequest& r, const char* data) {
            ASSERT_EQ(std::memcmp(data, want.data() + r.offset, r.length), 0) << "offset " << r.offset;
            ++checked;
          });
      EXPECT_EQ(checked, 500u);
      EXPECT_EQ(reader.requests(), 500u);
    }
}

TEST(CsrFiles, DamagedForeignAndUnfinishedCsrsAreRefused) {
  Fixture f(11, 2);
  const std::string path = CsrFiles::path_for(f.dir.path(), 1);
  f.build(1, uint64_t(1) << 30);
  auto expect_error = [&](const std::string& what, auto&& fn) {
    try {
      fn();
      ADD_FAILURE() << "expected an error mentioning '" << what << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  // Another graph's hash or SCALE.
  expect_error("was built from another graph", [&] { CsrFiles::open(path, f.dir.header_hash() ^ 1, 11); });
  expect_error("was built from another graph", [&] { CsrFiles::open(path, f.dir.header_hash(), 12); });
  // A flipped byte in the adjacency is found when the cache is loaded.
  {
    File adj(path + "/adj.0.bin", O_RDWR);
    char c;
    adj.pread_all(&c, 1, 100);
    c ^= 0x40;
    ASSERT_EQ(::pwrite(adj.fd(), &c, 1, 100), 1);
  }
  {
    const CsrFiles files = CsrFiles::open(path, f.dir.header_hash(), 11);
    const Csr<uint32_t> g = load_csr_meta<uint32_t>(files);
    expect_error("adj.0.bin is corrupted: checksum mismatch in block 0", [&] { load_edge_cache(g, files, 4, kNoHubs); });
  }
  // Truncated adjacency, missing adjacency, damaged meta.
  std::filesystem::resize_file(path + "/adj.0.bin", 4096);
  expect_error("adj.0.bin has 4096 bytes, expected", [&] { CsrFiles::open(path, f.dir.header_hash(), 11); });
  std::filesystem::remove(path + "/adj.0.bin");
  expect_error("cannot open", [&] { CsrFiles::open(path, f.dir.header_hash(), 11); });
  std::filesystem::remove_all(path);
  f.build(1, uint64_t(1) << 30);
  {
    File meta(path + "/meta.bin", O_RDWR);
    const char z = 0x55;
    ASSERT_EQ(::pwrite(meta.fd(), &z, 1, 17), 1);
  }
  expect_error("meta.bin is corrupted", [&] { load_csr_meta<uint32_t>(CsrFiles::open(path, f.dir.header_hash(), 11)); });
  // An unfinished build (a temporary directory of a dead process) is removed; a live one is left alone.
  std::filesystem::create_directory(path + ".tmp-999999999");
  std::filesystem::create_directory(path + ".tmp-" + std::to_string(::getpid()));
  EXPECT_EQ(remove_unfinished_builds(path), 1);
  EXPECT_TRUE(std::filesystem::exists(path + ".tmp-" + std::to_string(::getpid())));
}

// A refusal of stored data says how to rebuild it once: errors that name their own fix (what to remove, the
// budget to raise) pass unchanged, by their type's field rather than their text.
TEST(Errors, RebuildHintIsAddedOnlyWhereTheErrorDoesNotSayItsFix) {
  const Error plain("csr.hdr is corrupted");
  EXPECT_STREQ(with_rebuild_hint(plain, "/g/csr-p1").what(),
               "csr.hdr is corrupted; remove /g/csr-p1 and run again to rebuild it");
  EXPECT_STREQ(with_rebuild_hint(with_rebuild_hint(plain, "/g/csr-p1"), "/g/csr-p1").what(),
               "csr.hdr is corrupted; remove /g/csr-p1 and run again to rebuild it");
  const Error budget("--dram-budget 1M cannot hold the hubs' lists", Error::kFixSaid);
  EXPECT_STREQ(with_rebuild_hint(budget, "/g/csr-p1").what(), budget.what());
  const Error remove_word("could not remove the old file");  // "remove" in the text is no longer taken as a fix
  EXPECT_NE(std::string(with_rebuild_hint(remove_word, "/g").what()).find("; remove /g"), std::string::npos);
}

// An allocation refused while a CSR is read (its cache, under a ulimit) is no fault of the CSR: no hint to remove it.
TEST(Errors, AnAllocationRefusedGetsNoRebuildHint) {
  try {
    PageRegion too_big(size_t(1) << 60);  // 1024 PiB, above x86-64's address space: refused with ENOMEM
    FAIL() << "1024 PiB were mapped";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot allocate 1024.0 PiB: Cannot allocate memory ("), std::string::npos) << e.what();
    EXPECT_STREQ(with_rebuild_hint(e, "/g/csr-p1").what(), e.what());
  }
}

}  // namespace
}  // namespace strata
