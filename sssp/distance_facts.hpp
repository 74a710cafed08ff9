// Kernel 3's result in a few numbers (SSSP.md section 8), so that anyone can compare its bits with the
// reference's, and the figures a search reports (core/search_facts.hpp): those numbers and the search's counts.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>

#include "core/search_facts.hpp"
#include "engine/tier.hpp"
#include "sssp/delta_stepping.hpp"

namespace strata {

struct DistanceFacts {
  uint64_t reached = 0;   // vertices with a distance, the root included
  double dist_sum = 0;    // their float32 distances as doubles, summed in ascending input-label order
  float max_dist = 0;
  uint64_t dist_fnv = kFnvOffset;  // FNV-1a 64 of the float32 distances by input label (unreached -1.0f), little-endian

  static constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
  // Continues the facts over the next `count` distances in input-label order (one pass, or a rank's block of
  // labels after the lower ranks' blocks: the sum's rounding is the reference's order either way).
  void add(const float* dist, uint64_t count) {
    uint64_t hash = dist_fnv;
    for (uint64_t v = 0; v < count; ++v) {
      const uint32_t bits = std::bit_cast<uint32_t>(dist[v]);
      for (int byte = 0; byte < 4; ++byte) hash = (hash ^ ((bits >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
      if (dist[v] == -1.0f) continue;
      ++reached;
      dist_sum += double(dist[v]);
      max_dist = std::max(max_dist, dist[v]);
    }
    dist_fnv = hash;
  }
};

// A kernel-3 search's JSON figures: the facts, the buckets settled, the relaxations, the stages' ends, and where
// the tier counts them, the tails' entries, bytes and requests read from storage.
inline SearchFacts search_facts(const DistanceFacts& f, const SsspStats& s, const Tier& tier) {
  SearchFacts out;
  out.add("reached", f.reached);
  out.add("dist_sum", f.dist_sum);
  out.add("max_dist", double(f.max_dist));
  out.add("dist_fnv", Hash64{f.dist_fnv});
  out.add("buckets", s.buckets);
  out.add("relaxations", s.relaxations);
  out.add("stage_ends", s.stage_ends);
  if (tier.counts_reads) {
    out.add("edges_storage", s.io.edges_storage);
    out.add("bytes_read", s.io.bytes_read);
    out.add("io_requests", s.io.requests);
  }
  return out;
}

}  // namespace strata
