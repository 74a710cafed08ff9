// DRAM accounting: what this process may use (MemAvailable, capped by every cgroup limit above it) and what an
// in-core run needs, so a too-large SCALE is refused up front with the numbers.
#pragma once
#include <cstdint>

#include "generators/kronecker.hpp"

namespace strata {

uint64_t available_memory_bytes();

// Peak of kernel 1 (pre-dedup adjacency, offsets, relabel map) or of the search with its validation batch,
// whichever is larger.
uint64_t in_core_bytes(const KroneckerSpec& spec, int id_bytes, int validate_batch);

}  // namespace strata
