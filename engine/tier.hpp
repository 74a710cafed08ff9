// A tier: where the adjacency lives and how a search reaches it (`--placement`). Every layer asks the tier
// what it needs to know instead of naming tiers; what a tier does -- its kernel 1 and its search -- is
// registered beside it in tiers/ (one file a tier). The built-in tiers are described here because their
// kernel 1 is the engine's own (prepare.hpp).
#pragma once
#include <string_view>

namespace strata {

struct Tier {
  std::string_view name;      // the --placement value, the JSON's "placement"
  bool on_storage = false;    // the adjacency stays in the graph directory's on-disk CSR, behind an edge cache
                              // within a DRAM budget: needs --graph; validation may read the on-disk CSR
  bool in_place = false;      // on storage, read in place from mapped files: no I/O buffers, and no edge cache
                              // unless --dram-budget is given
  bool memory_nodes = false;  // --mem-nodes and --interleave place its adjacency
  bool counts_reads = false;  // its searches count the bytes and requests they read from storage (io_uring)
};

inline constexpr Tier kInCore{"in-core", false, false, true, false};
inline constexpr Tier kOutOfCore{"out-of-core", true, false, false, true};
inline constexpr Tier kDax{"dax", true, true, false, false};

}  // namespace strata
