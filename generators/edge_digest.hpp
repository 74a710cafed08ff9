// The public test-vector digest of an edge list: count, self-loops and FNV-1a 64 over little-endian int64
// pairs (v0, v1) in index order (GRAPH500.md section 6).
#pragma once
#include <cstdint>
#include <functional>

#include "generators/kronecker.hpp"

namespace strata {

struct EdgeListDigest {
  uint64_t edges = 0;
  uint64_t self_loops = 0;
  uint64_t fnv1a64 = 0;
};

// progress(done, total) is called between blocks when set.
EdgeListDigest digest_edge_list(const Kronecker& gen,
                                const std::function<void(uint64_t, uint64_t)>& progress = {});

}  // namespace strata
