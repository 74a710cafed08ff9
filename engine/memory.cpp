#include "engine/memory.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace strata {

namespace {
uint64_t read_number(const std::string& path) {
  std::ifstream f(path);
  uint64_t x = 0;
  return (f >> x) ? x : UINT64_MAX;
}

// This process's group in a cgroup hierarchy: "/a/b" from /proc/self/cgroup ("4:memory:/a/b" for v1,
// "0::/a/b" for v2).
std::string own_group(bool v1) {
  std::ifstream f("/proc/self/cgroup");
  for (std::string line; std::getline(f, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (v1 ? controllers == "memory" : (line.substr(0, a) == "0" && controllers.empty())) {
      std::string g = line.substr(b + 1);
      return g == "/" ? "" : g;
    }
  }
  return "";
}
// A counter from a cgroup's memory.stat, 0 if absent.
uint64_t stat_value(const std::string& path, const std::string& key) {
  std::ifstream f(path);
  std::string k;
  uint64_t x;
  while (f >> k >> x)
    if (k == key) return x;
  return 0;
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
  // cgroup v1 and v2 limits of our own group (the root group reports no useful limit). Page cache counts
  // against them too, but the kernel reclaims it before it fails an allocation.
  const std::string v1_dir = "/sys/fs/cgroup/memory" + own_group(true);
  const uint64_t v1 = read_number(v1_dir + "/memory.limit_in_bytes");
  uint64_t v1_used = read_number(v1_dir + "/memory.usage_in_bytes");
  if (v1_used != UINT64_MAX) v1_used -= std::min(v1_used, stat_value(v1_dir + "/memory.stat", "total_cache"));
  if (v1 < (uint64_t(1) << 60) && v1_used != UINT64_MAX && v1 > v1_used) avail = std::min(avail, v1 - v1_used);
  const std::string v2_dir = "/sys/fs/cgroup" + own_group(false);
  const uint64_t v2 = read_number(v2_dir + "/memory.max");
  uint64_t v2_used = read_number(v2_dir + "/memory.current");
  if (v2_used != UINT64_MAX) v2_used -= std::min(v2_used, stat_value(v2_dir + "/memory.stat", "file"));
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
