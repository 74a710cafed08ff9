// What `strata run` was asked to do.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "bfs/hybrid_bfs.hpp"
#include "engine/edge_cache.hpp"
#include "engine/placement.hpp"
#include "generators/kronecker.hpp"

namespace strata {

enum class Placement { kInCore, kOutOfCore, kDax };
const char* placement_name(Placement p);
std::optional<Placement> placement_from_name(const std::string& name);  // the inverse; nullopt if unknown

struct RunConfig {
  KroneckerSpec spec;
  std::string graph_dir;  // empty: generate from spec
  int roots = 64;
  int threads = 0;        // 0: OpenMP default
  int numa_parts = 0;     // 0: one per NUMA node
  BfsOptions bfs;
  bool validate = true;
  int validate_batch = 0;  // searches per validation pass; 0: as many as kernel 1's peak memory allows
  std::string json_path;
  int corrupt_search = -1;  // testing: plant a parent cycle into this search's result after it is timed

  Placement placement = Placement::kInCore;
  uint64_t dram_budget = 0;           // out-of-core: bytes for the edge cache and I/O buffers; 0 = half of what is free
  int64_t on_mem_edges = -1;          // out-of-core: K; -1 = the largest K the budget holds
  uint64_t hub_degree = kNoHubs;      // out-of-core: lists at least this long stay whole in DRAM
  IoOptions io;
  MemoryPlacement memory;             // in-core: --mem-nodes / --interleave
  bool quiet = false;                 // compare/tune: no Graph500 block or summary on stdout
  double load_at_start = -1;          // the load average before the run (for measurement_warnings)
};

// Runs kernel 1, the searches and their validation; prints the Graph500 block (unless quiet); returns the
// exit status (1: a search failed validation). The full results, as written by --json, go to *result.
int run_graph500(const RunConfig& config, nlohmann::json* result = nullptr);

}  // namespace strata
