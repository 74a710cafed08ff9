// A rank's rows on its own storage (`--placement out-of-core` or `dax` under mpirun): written by kernel 1 into
// a rank-local directory, DIR/mpi-p<P>/rank-<r> (DIR: --rank-dir, default the graph directory), in the on-disk
// CSR format (storage/csr_files.hpp: checksummed blocks, header last, renamed into place; through libpmem for
// dax), bound to the graph by its header checksum and reused by later runs of the same graph and rank count.
// The search keeps the first K entries of each list in DRAM (the edge cache, K the largest that --dram-budget
// holds beside the I/O buffers; dax: none without a budget); the search's neighbour source reads the tails with
// io_uring (bfs/tail_reads.hpp), or, dax, in place from the mapping, and checks every id read from storage.
#pragma once
#include <omp.h>

#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cluster/dist_graph.hpp"
#include "engine/adjacency.hpp"
#include "engine/csr.hpp"
#include "engine/edge_buckets.hpp"
#include "engine/edge_cache.hpp"
#include "engine/prefix_stage.hpp"
#include "engine/topology.hpp"
#include "core/error.hpp"
#include "driver/run_result.hpp"
#include "storage/csr_files.hpp"
#include "storage/pmem_map.hpp"
#include "storage/uring_reader.hpp"

namespace strata {

struct RankRowsReport {
  std::string dir;
  bool reused = false;
  // A build's phases on this rank, as one process reports its CSR's (zeros where reused): the received rows
  // distributed to its buckets, each range filled from its bucket, sorted, and written (beyond the sort, which it
  // runs behind).
  RankBuildSeconds build_seconds;
  double load_seconds = 0;
  double stored_build_seconds = 0;  // how long the build that wrote the rows took
  uint64_t disk_bytes = 0;
  uint64_t k = 0;                 // the edge cache's prefix length
  uint64_t bucket_bytes = 0;      // the received rows as coded in their buckets
  int build_passes = 0;           // ranges built, each from its bucket of the received rows (0: reused, or in DRAM)
  uint64_t cache_bytes = 0, io_buffer_bytes = 0, budget = 0;
  bool dax = false, is_pmem = false;
  // The cache read from the rows' files ("csr"), cut from the prefixes kept as this run wrote them ("build",
  // prefix_bytes of them), or copied out of the mapping ("mapping", dax).
  std::string cache_source = "csr";
  uint64_t prefix_bytes = 0;
};

// A rank's raw rows on its own storage while kernel 1 receives them: the one-process build's external
// distribution (engine/edge_buckets.hpp), one bucket per range of lists that a build pass holds in DRAM, so that
// each range is then built from its own bucket. The received rows are written and read once, whatever the budget
// (a pass over all of them per range grew with the rank's graph / DRAM). Entry: kernel 2's degree ranks, or kernel
// 3's (degree rank, weight) pairs.
template <class Id, class Entry = Id>
class RowBuckets {
 public:
  // Ranges of g's local lists, each at most rows_bytes of entries (a longer list alone), from g's raw degrees; the
  // buckets in an unlinked file in dir, staged within stage_bytes of DRAM.
  RowBuckets(const std::string& dir, const DistGraph<Id>& g, uint64_t rows_bytes, uint64_t stage_bytes)
      : raw(g.raw_starts()), bounds(range_bounds(raw, rows_bytes)), buckets(bounds, range_entries(), g.n, dir,
            EdgeBuckets<Id, Entry>::reserve_bytes(raw.back() / 2 + 1),
            std::max(EdgeBuckets<Id, Entry>::kMinStage,  // a tiny budget: a little over it, not a block an entry
                     EdgeBuckets<Id, Entry>::stage_for(stage_bytes, omp_get_max_threads(), bounds.size() - 1))) {}
  // A round's received pairs (the owner's degree rank first, `ranks` ranks), on the OpenMP team.
  void add(std::span<const PairFor<Id, Entry>> pairs, Id ranks) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < pairs.size(); ++i)
      buckets.add(size_t(omp_get_thread_num()), pairs[i].first / ranks, entry_of(pairs[i]));
  }
  size_t ranges() const { return bounds.size() - 1; }

  std::vector<uint64_t> raw;     // local list i's raw entries start at raw[i]
  std::vector<uint64_t> bounds;  // range k: local lists [bounds[k], bounds[k + 1])
  EdgeBuckets<Id, Entry> buckets;

 private:
  static std::vector<uint64_t> range_bounds(const std::vector<uint64_t>& r, uint64_t rows_bytes) {
    const uint64_t local = r.size() - 1, cap = std::max<uint64_t>(1, rows_bytes / sizeof(Entry));
    std::vector<uint64_t> b = {0};
    for (uint64_t i0 = 0; i0 < local;) {
      uint64_t i1 = i0 + 1;
      while (i1 < local && r[i1 + 1] - r[i0] <= cap) ++i1;
      b.push_back(i0 = i1);
    }
    if (b.size() == 1) b.push_back(0);  // no local vertex: one empty range
    return b;
  }
  std::vector<uint64_t> range_entries() const {
    std::vector<uint64_t> e(bounds.size() - 1);
    for (size_t k = 0; k + 1 < bounds.size(); ++k) e[k] = raw[bounds[k + 1]] - raw[bounds[k]];
    return e;
  }
};

// Where rank `rank` of `ranks` keeps its rows under base (--rank-dir, or the graph directory): kernel 2's in
// mpi-p<P>/rank-<r>, kernel 3's weighted ones in mpi-w-p<P>/rank-<r>.
std::string rank_rows_dir(const std::string& base, int ranks, int rank, bool weighted = false);
// Refuses, before any work, a budget below a rank's I/O buffers (out-of-core); returns the buffers' bytes.
uint64_t check_rank_budget(uint64_t budget, bool dax, const IoOptions& io, int threads);

// A rank's rows of Entry: kernel 2's ids by degree, or kernel 3's (id, weight) pairs by weight (NodeWeight<Id>).
template <class Id, class Entry = Id>
class RankRows {
 public:
  static constexpr bool kWeighted = !std::is_same_v<Id, Entry>;
  // Writes g's rows (offsets, entries, labels and raw degrees) to dir from the received raw rows, each range of
  // lists built in DRAM from its own bucket (then handed back), replacing nothing: a directory already there is
  // refused (the caller reuses or reports it). Each list's prefix goes to *prefixes too where given (the edge
  // cache's, engine/prefix_stage.hpp). Sets g's entries and the fill, sort and write of the report's build_seconds;
  // returns the ranges built.
  static int write_from(const std::string& dir, DistGraph<Id>& g, RowBuckets<Id, Entry>& spill, uint64_t graph_hash,
                        int scale, double started, bool pmem, RankRowsReport& report, PrefixStage* prefixes = nullptr);

  // Opens dir's rows for g (order_vertices' result: its raw degrees must match the stored ones), loads the
  // offsets into g and the edge cache within budget (the lists of at least hub_degree entries whole, the others'
  // first K), and prepares the tail reads. Throws Error naming the cause. dax: the rows mapped and read in place
  // (no I/O buffers); budget 0 then means no prefixes (hubs' lists still copied whole). With `staged` (the
  // prefixes this run kept as it wrote the rows) a cache of K <= its K is cut from them, not read from the files.
  RankRows(const std::string& dir, DistGraph<Id>& g, uint64_t graph_hash, int scale, uint64_t budget, int64_t k_asked,
           uint64_t hub_degree, const IoOptions& io, int threads, bool dax, const PrefixStage* staged = nullptr);
  RankRows(const RankRows&) = delete;  // the sources hold references to the members
  RankRows& operator=(const RankRows&) = delete;

  const EdgeCache<Entry>& cache() const { return cache_; }
  // dax: the rows in place (entry e of the rank's rows at mapped()[e]); null out-of-core.
  const Entry* mapped() const { return map_.size() ? reinterpret_cast<const Entry*>(map_.data()) : nullptr; }
  // The rows as a CSR of local indices (offsets, labels, duplicates; no adjacency) and their files, for the
  // neighbour sources (bfs/neighbour_sources.hpp, sssp/weighted_sources.hpp).
  const Csr<Id>& local() const { return local_; }
  const CsrFiles& files() const { return files_; }
  const Partitioning& partitioning() const { return parts_; }
  // The rows for a tier's source: offsets in DRAM, the cache's prefixes, the file, in place where mapped.
  Adjacency<Id, Entry> adjacency() const { return {local_, &parts_, nullptr, nullptr, &cache_, &files_, {mapped()}}; }
  const RankRowsReport& report() const { return report_; }
  RankRowsReport& report() { return report_; }

 private:
  uint64_t cache_k(uint64_t budget, int64_t k_asked, uint64_t hub_degree) const;
  void load_cache(const std::string& dir, uint64_t k, uint64_t hub_degree, bool dax, const PrefixStage* staged);

  CsrFiles files_;
  Csr<Id> local_;  // the rank's rows by local index: offsets only (n = its vertex count)
  Partitioning parts_;
  EdgeCache<Entry> cache_;
  PmemMapping map_;
  RankRowsReport report_;
};

}  // namespace strata
