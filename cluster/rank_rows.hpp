// A rank's rows on its own storage (`--placement out-of-core` or `dax` under mpirun): written by kernel 1 into
// a rank-local directory, DIR/mpi-p<P>/rank-<r> (DIR: --rank-dir, default the graph directory), in the on-disk
// CSR format (storage/csr_files.hpp: checksummed blocks, header last, renamed into place; through libpmem for
// dax), bound to the graph by its header checksum and reused by later runs of the same graph and rank count.
// The search keeps the first K entries of each list in DRAM (the edge cache, K the largest that --dram-budget
// holds beside the I/O buffers; dax: none without a budget) and reads the tails with io_uring
// (bfs/tail_reads.hpp), or, dax, in place from the mapping; every id read from storage is checked.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bfs/tail_reads.hpp"
#include "cluster/dist_graph.hpp"
#include "engine/csr.hpp"
#include "engine/edge_cache.hpp"
#include "engine/topology.hpp"
#include "core/error.hpp"
#include "storage/csr_files.hpp"
#include "storage/pmem_map.hpp"

namespace strata {

struct RankRowsReport {
  std::string dir;
  bool reused = false;
  double write_seconds = 0, load_seconds = 0;
  double stored_build_seconds = 0;  // how long the build that wrote the rows took
  uint64_t disk_bytes = 0;
  uint64_t k = 0;                 // the edge cache's prefix length
  uint64_t cache_bytes = 0, io_buffer_bytes = 0, budget = 0;
  bool dax = false, is_pmem = false;
};

class RankRows {
 public:
  static std::string dir_for(const std::string& base, int ranks, int rank);

  // Writes g's rows (offsets, entries and raw degrees) to dir, replacing nothing: a directory already there is
  // refused (the caller reuses or reports it).
  static void write(const std::string& dir, const DistGraph& g, uint64_t graph_hash, int scale, double build_seconds,
                    bool pmem);

  // Opens dir's rows for g (order_vertices' result: its raw degrees must match the stored ones), loads the
  // offsets into g and the edge cache within budget, and prepares the tail reads. Throws Error naming the cause.
  // dax: the rows mapped and read in place (no I/O buffers); budget 0 then means no edge cache.
  RankRows(const std::string& dir, DistGraph& g, uint64_t graph_hash, int scale, uint64_t budget, int64_t k_asked,
           const IoOptions& io, int threads, bool dax);
  RankRows(const RankRows&) = delete;  // the tail reads hold references to the members
  RankRows& operator=(const RankRows&) = delete;

  const EdgeCache<DistId>& cache() const { return cache_; }
  TailReads<DistId>& tails() { return *tails_; }
  // dax: the rows in place (entry e of the rank's rows at mapped()[e]); null out-of-core.
  const DistId* mapped() const { return map_.size() ? reinterpret_cast<const DistId*>(map_.data()) : nullptr; }
  // dax: an entry of the mapping that is no vertex id, as an error naming the file and offset.
  Error corrupted(const DistId* at) const;
  const RankRowsReport& report() const { return report_; }
  RankRowsReport& report() { return report_; }
  // First entry of local vertex i's cached prefix (walks at most 63 degrees).
  uint64_t prefix_begin(uint64_t i) const { return cache_.index.begin(i, local_.offsets); }

 private:
  CsrFiles files_;
  Csr<DistId> local_;  // the rank's rows by local index: offsets only (n = its vertex count)
  Partitioning parts_;
  EdgeCache<DistId> cache_;
  std::unique_ptr<TailReads<DistId>> tails_;
  PmemMapping map_;
  RankRowsReport report_;
};

}  // namespace strata
