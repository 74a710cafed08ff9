// The searches Strata runs, one per placement: the hybrid kernel over the matching neighbour source.
#pragma once
#include <memory>
#include <vector>

#include "bfs/hybrid_bfs.hpp"
#include "bfs/neighbour_sources.hpp"

namespace strata {

// In-core: every list of g in DRAM.
template <class Id>
std::unique_ptr<GraphSearch<Id>> in_core_search(const Csr<Id>& g, const Partitioning& parts, const BfsOptions& options) {
  return std::make_unique<HybridBfs<Id>>(g, parts, options);
}

// Out-of-core: the cache's prefixes in DRAM, the tails in the on-disk CSR's files (g holds its offsets). The
// partitions must be the files' (one file per part).
template <class Id>
std::unique_ptr<GraphSearch<Id>> out_of_core_search(const Csr<Id>& g, const EdgeCache<Id>& cache, const CsrFiles& files,
                                                    const IoOptions& io, const Partitioning& parts,
                                                    const BfsOptions& options) {
  using Source = PrefixAndReadTails<Id>;  // (TailReads checks that parts are the files' partitions)
  return std::make_unique<HybridBfs<Id, Source>>(
      g, Source(g, cache, files, io, parts, HybridBfs<Id, Source>::active_vertices(g)), parts, options);
}

// DAX: the cache's prefixes in DRAM, the tails read in place from the mapped partition files (mapped[p] is
// partition p's first entry); nothing is copied and nothing written. Without a cache and with one partition
// the mapping is one array of whole lists, searched like DRAM (ids checked).
template <class Id>
std::unique_ptr<GraphSearch<Id>> dax_search(const Csr<Id>& g, const EdgeCache<Id>& cache, std::vector<const Id*> mapped,
                                            const CsrFiles& files, const Partitioning& parts,
                                            const BfsOptions& options) {
  const CsrLayout& layout = files.layout();
  if (layout.bounds != parts.bounds) throw Error("internal error: search partitions differ from the CSR files'");
  if (cache.adj.size() == 0 && layout.parts() == 1) {
    using Source = WholeLists<Id, true>;
    return std::make_unique<HybridBfs<Id, Source>>(g, Source(mapped[0], g.offsets, files), parts, options);
  }
  using Source = PrefixAndMappedTails<Id>;
  return std::make_unique<HybridBfs<Id, Source>>(g, Source(g, cache, std::move(mapped), files), parts, options);
}

}  // namespace strata
