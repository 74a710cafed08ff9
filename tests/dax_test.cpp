// DAX placement, on a plain file with PMEM_IS_PMEM_FORCE=1 (set by CMake for this test): the CSR written
// through libpmem equals the in-memory one, searches reading it in place (any cache size) find the in-core
// levels and nedge, and a build killed midway leaves nothing that looks complete and is redone.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <tuple>
#include <vector>

#include "tiers/dax.hpp"
#include "engine/build_csr.hpp"
#include "engine/build_csr_files.hpp"
#include "engine/edge_cache.hpp"
#include "engine/placement.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"
#include "storage/pmem_map.hpp"
#include "tests/test_util.hpp"
#include "validate/validator.hpp"

namespace strata {
namespace {

// The DAX tier's search over g's mapped lists (its kernel 1 done by the test).
std::unique_ptr<GraphSearch<uint32_t>> dax_search(const Csr<uint32_t>& g, const EdgeCache<uint32_t>& cache,
                                                  std::vector<const uint32_t*> lists, const CsrFiles& files,
                                                  const Partitioning& p, const BfsOptions& bfs) {
  Adjacency<uint32_t> at{g, &p, nullptr, nullptr, &cache, &files, std::move(lists)};
  return tier_search<DaxTier>(at, PlacementSpec{}, bfs);
}

using test::depths;
using test::TempDir;

// The on-disk CSR of dir for `parts` partitions, built through libpmem, its O(N) arrays and its files mapped.
struct MappedCsr {
  CsrFiles files;
  Csr<uint32_t> g;
  std::vector<PmemMapping> maps;
  std::vector<const char*> bases;
  std::vector<const uint32_t*> lists;
  Partitioning partitioning;

  MappedCsr(const GraphDir& dir, int parts, uint64_t scratch) {
    const std::string path = CsrFiles::path_for(dir.path(), parts);
    build_csr_files<uint32_t>(dir, path, parts, Topology::detect(), scratch, {}, nullptr, /*pmem=*/true);
    files = CsrFiles::open(path, dir.header_hash(), dir.spec().scale);
    g = load_csr_meta<uint32_t>(files);
    for (int p = 0; p < parts; ++p) {
      maps.push_back(PmemMapping::open_read(path + "/" + CsrFiles::adj_name(p)));
      bases.push_back(maps.back().data());
      lists.push_back(reinterpret_cast<const uint32_t*>(maps.back().data()));
    }
    partitioning.bounds = files.layout().bounds;
    partitioning.node.assign(parts, 0);
  }
};

TEST(Dax, ForcedPmemMappingIsReportedAsPmem) {
  ASSERT_STREQ(std::getenv("PMEM_IS_PMEM_FORCE"), "1") << "run through ctest (it sets PMEM_IS_PMEM_FORCE=1)";
  TempDir tmp;
  PmemMapping m = PmemMapping::create(tmp / "f", 8192);
  EXPECT_TRUE(m.is_pmem());
  const char text[] = "persisted";
  m.write_persist(4096, text, sizeof text);
  m.unmap();
  const PmemMapping r = PmemMapping::open_read(tmp / "f");
  EXPECT_EQ(r.size(), 8192u);
  EXPECT_STREQ(r.data() + 4096, "persisted");
}

// A mapped file truncated by another process under the run: the next read past its new end ends the process
// with a message naming the file (status 1), not SIGBUS; a fault outside any mapping still crashes.
TEST(DaxDeathTest, AFileTruncatedUnderTheMappingIsNamedNotACrash) {
  TempDir tmp;
  PmemMapping w = PmemMapping::create(tmp / "adj", 1 << 20);
  w.unmap();
  EXPECT_EXIT(
      {
        const PmemMapping r = PmemMapping::open_read(tmp / "adj");
        if (::truncate((tmp / "adj").c_str(), 4096) != 0) std::_Exit(3);
        volatile char c = r.data()[512 << 10];  // past the new end
        (void)c;
        std::_Exit(0);
      },
      testing::ExitedWithCode(1), "adj shrank while it was mapped");
  EXPECT_EXIT(
      {
        const PmemMapping r = PmemMapping::open_read(tmp / "adj");
        std::raise(SIGBUS);  // not from a guarded mapping: the default action
      },
      testing::KilledBySignal(SIGBUS), "");
}

TEST(Dax, InPlaceSearchesEqualInCoreForEveryCacheSize) {
  TempDir tmp;
  const KroneckerSpec spec{13, 16, 4, 5};
  write_graph_dir(Kronecker(spec), tmp / "g", false);
  const GraphDir dir = GraphDir::open(tmp / "g");
  const Csr<uint32_t> in_core = build_csr<uint32_t>(dir);
  std::vector<bool> has_edge(in_core.n);
  for (uint64_t v = 0; v < in_core.n; ++v) has_edge[in_core.to_input[v]] = in_core.degree(v) > 0;
  const auto roots = search_roots(spec, 3, [&](uint64_t v) { return bool(has_edge[v]); });
  const Partitioning one = partition_by_work(in_core, 1, Topology::detect());
  HybridBfs<uint32_t> reference(in_core, one, BfsOptions{});

  for (int parts : {1, 2}) {
    const MappedCsr m(dir, parts, uint64_t(128) << 10);
    const CsrFiles& files = m.files;
    const Csr<uint32_t>& g = m.g;
    for (const PmemMapping& map : m.maps) EXPECT_TRUE(map.is_pmem());
    const auto& [bases, lists, partitioning] = std::tie(m.bases, m.lists, m.partitioning);
    for (uint64_t k : {uint64_t(0), uint64_t(2), g.degree(0)}) {
      const EdgeCache<uint32_t> cache = load_edge_cache_mapped(g, files, bases, k, kNoHubs);
      for (Direction d : {Direction::kHybrid, Direction::kTopDown, Direction::kBottomUp}) {
        auto bfs = dax_search(g, cache, lists, files, partitioning, BfsOptions{.direction = d});
        for (uint64_t root : roots) {
          SCOPED_TRACE(testing::Message() << "parts " << parts << " K " << k << " dir " << int(d) << " root " << root);
          std::vector<uint32_t> want(g.n), got(g.n);
          reference.search(internal_ids(in_core, {root})[0], want.data());
          const uint64_t want_nedge = reference.reached_raw_degree_sum() / 2;
          const SearchStats s = bfs->search(internal_ids(g, {root})[0], got.data());
          ASSERT_EQ(depths(got, root), depths(want, root));
          const uint64_t nedge = bfs->reached_raw_degree_sum() / 2;
          ASSERT_EQ(nedge, want_nedge);
          if (k == 0) {
            EXPECT_EQ(s.io.edges_storage, s.edges_examined);  // every entry read in place
          }
          SearchToCheck<uint32_t> check{root, got.data(), nedge};
          const auto verdict = validate_searches<uint32_t>(dir, {&check, 1});
          ASSERT_TRUE(verdict[0].valid) << verdict[0].message;
        }
      }
    }
  }
}

// A mapped file changed under the search (after the load checked it): an entry that is no vertex id is
// never used; the search ends with an error naming the file and offset (or, bottom-up over a whole 32-bit
// mapping, skips it and fails validation), whole-mapping and prefix/tail alike.
TEST(Dax, AMappedFileOverwrittenAfterLoadIsAnErrorNamingFileAndOffset) {
  TempDir tmp;
  const KroneckerSpec spec{12, 16, 6, 7};
  write_graph_dir(Kronecker(spec), tmp / "g", false);
  const GraphDir dir = GraphDir::open(tmp / "g");
  for (int parts : {1, 2}) {
    const MappedCsr m(dir, parts, uint64_t(1) << 30);
    const std::string path = m.files.path();
    const CsrFiles& files = m.files;
    const Csr<uint32_t>& g = m.g;
    const auto& [bases, lists, partitioning] = std::tie(m.bases, m.lists, m.partitioning);
    const EdgeCache<uint32_t> cache = load_edge_cache_mapped(g, files, bases, parts == 1 ? 0 : 2, kNoHubs);
    for (int p = 0; p < parts; ++p) {
      File adj(path + "/" + CsrFiles::adj_name(p), O_WRONLY);
      const std::vector<char> junk(adj.size(), char(0xff));
      adj.write_all(junk.data(), junk.size());
    }
    for (Direction d : {Direction::kTopDown, Direction::kBottomUp}) {
      SCOPED_TRACE(testing::Message() << "parts " << parts << " dir " << int(d));
      auto bfs = dax_search(g, cache, lists, files, partitioning, BfsOptions{.direction = d});
      std::vector<uint32_t> parent(g.n);
      uint64_t root = 0;
      while (g.degree(root) == 0) ++root;
      try {
        bfs->search(uint32_t(root), parent.data());
        // Bottom-up over a whole 32-bit mapping looks ids up in a guarded bitmap instead of checking each: a
        // bad id is never used as a parent, and the wrong tree is caught by validation.
        ASSERT_TRUE(parts == 1 && d == Direction::kBottomUp) << "a corrupted mapping must end the search";
        SearchToCheck<uint32_t> check{g.to_input[root], parent.data(), bfs->reached_raw_degree_sum() / 2};
        EXPECT_FALSE(validate_searches<uint32_t>(dir, {&check, 1})[0].valid);
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(".bin is corrupted: the entry at offset"), std::string::npos) << e.what();
      }
    }
  }
}

TEST(Dax, ABuildKilledMidwayIsDetectedAndRedone) {
  TempDir tmp;
  const KroneckerSpec spec{12, 16, 2, 3};
  write_graph_dir(Kronecker(spec), tmp / "g", false);
  const GraphDir dir = GraphDir::open(tmp / "g");
  const std::string path = CsrFiles::path_for(dir.path(), 1);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // builds in passes of ~16 KiB and dies in the third pass, without cleaning up
    omp_set_num_threads(1);  // the parent's OpenMP thread pool does not survive fork
    int calls = 0;
    try {
      build_csr_files<uint32_t>(dir, path, 1, Topology::detect(), uint64_t(32) << 10,
                                [&](const char* phase, uint64_t, uint64_t) {
                                  if (std::string(phase).rfind("pass 3", 0) == 0 && ++calls == 1) ::_exit(7);
                                },
                                nullptr, true);
    } catch (...) {
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 7) << "the build should have been killed in pass 3";
  EXPECT_FALSE(std::filesystem::exists(path)) << "a killed build must not look complete";
  EXPECT_TRUE(std::filesystem::exists(path + ".tmp-" + std::to_string(child)));
  EXPECT_THROW(CsrFiles::open(path, dir.header_hash(), spec.scale), Error);
  EXPECT_EQ(remove_unfinished_builds(path), 1);
  build_csr_files<uint32_t>(dir, path, 1, Topology::detect(), uint64_t(32) << 10, {}, nullptr, true);
  const CsrFiles files = CsrFiles::open(path, dir.header_hash(), spec.scale);
  EXPECT_EQ(load_csr_meta<uint32_t>(files).directed_edges(), build_csr<uint32_t>(dir).directed_edges());
}

}  // namespace
}  // namespace strata
