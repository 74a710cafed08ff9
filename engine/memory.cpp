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
  const uint64_t fixed = n * (8 + 2 * id);                     // offsets, raw degree, label map
  const uint64_t build = 2 * m * id + fixed;                   // kernel 1 peak
  const uint64_t search = 2 * m * id + fixed + n * 4 * id      // adjacency (upper bound) + parents, queues
                          + uint64_t(validate_batch) * n * (id + 4);  // kept parent arrays + levels
  return std::max(build, search);
}

}  // namespace strata
