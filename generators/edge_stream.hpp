// Streams a Kronecker edge list in chunks across OpenMP threads, so no one holds all M edges at once.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "generators/kronecker.hpp"

namespace strata {

inline constexpr uint64_t kDefaultEdgeChunk = uint64_t(1) << 16;

// Calls fn(first_index, std::span<const Edge>) for consecutive chunks covering [0, M); chunks run
// concurrently on the current OpenMP team, so fn must be thread-safe.
template <class Fn>
void for_each_edge_chunk(const Kronecker& gen, Fn&& fn, uint64_t chunk = kDefaultEdgeChunk) {
  const uint64_t m = gen.spec().edge_count();
  const uint64_t chunks = (m + chunk - 1) / chunk;
#pragma omp parallel
  {
    std::vector<Edge> buffer(chunk);
#pragma omp for schedule(dynamic, 1)
    for (uint64_t c = 0; c < chunks; ++c) {
      const uint64_t begin = c * chunk, end = std::min(m, begin + chunk);
      gen.generate(begin, end, buffer.data());
      fn(begin, std::span<const Edge>(buffer.data(), end - begin));
    }
  }
}

}  // namespace strata
