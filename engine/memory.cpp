#include "engine/memory.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace strata {

namespace {
uint64_t read_number(const char* path) {
  std::ifstream f(path);
  uint64_t x = 0;
  return (f >> x) ? x : UINT64_MAX;
}
}  // namespace

uint64_t available_memory_bytes() {
  uint64_t avail = UINT64_MAX;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    uint64_t kib;
    meminfo >> kib;
    if (key == "MemAvailable:") avail = kib * 1024;
    meminfo.ignore(64, '\n');
  }
  // cgroup v1 and v2 limits of our own group (the root group reports no useful limit).
  const uint64_t v1 = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  const uint64_t v1_used = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  if (v1 < (uint64_t(1) << 60) && v1_used != UINT64_MAX && v1 > v1_used) avail = std::min(avail, v1 - v1_used);
  const uint64_t v2 = read_number("/sys/fs/cgroup/memory.max");
  const uint64_t v2_used = read_number("/sys/fs/cgroup/memory.current");
  if (v2 != UINT64_MAX && v2_used != UINT64_MAX && v2 > v2_used) avail = std::min(avail, v2 - v2_used);
  return avail;
}

uint64_t in_core_bytes(const KroneckerSpec& spec, int id_bytes, int validate_batch) {
  const uint64_t n = spec.vertex_count(), m = spec.edge_count(), id = uint64_t(id_bytes);
  const uint64_t adjacency = 2 * m * id;                                // before deduplication: an upper bound
  const uint64_t build = adjacency + n * (8 + id);                      // + 64-bit offsets, relabel map
  const uint64_t search = adjacency + n * (4 + id + 1)                  // + block offsets, label map, duplicates
                          + 2 * n * id                                  // + internal and output parent arrays
                          + uint64_t(std::max(validate_batch - 1, 0)) * n * (id + 4);  // + kept results, levels
  return std::max(build, search);
}

}  // namespace strata
