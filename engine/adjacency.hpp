// Where a graph's lists are, as a tier's neighbour source needs them: one process's prepared graph and an MPI
// rank's rows both describe themselves this way, so one tier's sources (tiers/) serve both backends.
#pragma once
#include <vector>

#include "engine/csr.hpp"
#include "engine/edge_cache.hpp"
#include "engine/topology.hpp"
#include "storage/csr_files.hpp"

namespace strata {

// Entry: an id (kernel 2's lists) or a NodeWeight<Id> (kernel 3's on storage and a rank's in DRAM). Every
// pointer is to an object that outlives the search made from it; null where the graph has no such part.
template <class Id, class Entry = Id>
struct Adjacency {
  const Csr<Id>& g;                         // the offsets; in DRAM, the lists too (g.adj)
  const Partitioning* parts = nullptr;      // the search's partitions (on storage: the files')
  const float* weights = nullptr;           // kernel 3 in DRAM, one process: a weight per entry of g.adj
  const Entry* pairs = nullptr;             // kernel 3 in DRAM, a rank: its lists as pairs, lightest first
  const EdgeCache<Entry>* cache = nullptr;  // on storage: the prefixes in DRAM
  const CsrFiles* files = nullptr;          // on storage: the lists' files
  std::vector<const Entry*> mapped{};       // dax: each partition file's lists in place
  bool by_weight = false;                   // with weights: g's lists ordered by weight
};

}  // namespace strata
