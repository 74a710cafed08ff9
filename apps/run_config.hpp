// What `strata run` was asked to do.
#pragma once
#include <optional>
#include <string>

#include "bfs/hybrid_bfs.hpp"
#include "generators/kronecker.hpp"

namespace strata {

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
};

// Runs kernel 1, the searches and their validation; prints the Graph500 block; returns the exit status.
int run_graph500(const RunConfig& config);

}  // namespace strata
