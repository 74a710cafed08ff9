#include "engine/memory.hpp"

#include "core/error.hpp"
#include "core/units.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>
#include <vector>
#include <fstream>
#include <string>

namespace strata {

namespace {
uint64_t read_number(const std::string& path) {
  std::ifstream f(path);
  uint64_t x = 0;
  return (f >> x) ? x : UINT64_MAX;  // absent, unreadable or "max"
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

// This process's group in a cgroup hierarchy: "/a/b" from /proc/self/cgroup ("4:memory:/a/b" for v1,
// "0::/a/b" for v2); nullopt if it is in none.
std::optional<std::string> own_group(bool v1) {
  std::ifstream f("/proc/self/cgroup");
  for (std::string line; std::getline(f, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    bool memory = false;
    for (size_t at = 0; at <= controllers.size();) {
      const size_t end = std::min(controllers.find(',', at), controllers.size());
      memory |= controllers.substr(at, end - at) == "memory";
      at = end + 1;
    }
    if (v1 ? memory : (line.substr(0, a) == "0" && controllers.empty())) return line.substr(b + 1);
  }
  return std::nullopt;
}

// Where a hierarchy is mounted (v1: the one with the memory controller; v2: cgroup2, wherever it is, e.g.
// /sys/fs/cgroup or /sys/fs/cgroup/unified) and the group path the mount shows as its root.
struct Mount {
  std::string point, root;
};
std::optional<Mount> hierarchy_mount(bool v1) {
  std::ifstream f("/proc/self/mountinfo");
  for (std::string line; std::getline(f, line);) {
    std::istringstream in(line);
    std::string id, parent, devno, root, point, field;
    in >> id >> parent >> devno >> root >> point;
    while (in >> field && field != "-") {}
    std::string fstype, source, options;
    in >> fstype >> source >> options;
    if (v1 ? (fstype == "cgroup" && ("," + options + ",").find(",memory,") != std::string::npos) : fstype == "cgroup2")
      return Mount{point, root};
  }
  return std::nullopt;
}

// The tightest room left under any group from ours up to the hierarchy's root: a limit set on a parent
// binds its children too. Used memory is net of page cache, which the kernel reclaims before it fails an
// allocation.
uint64_t cgroup_room(bool v1) {
  const auto group = own_group(v1);
  const auto mount = hierarchy_mount(v1);
  if (!group || !mount) return UINT64_MAX;
  std::string rel = *group;  // the group as seen below the mount point
  if (mount->root != "/" && rel.rfind(mount->root, 0) == 0) rel = rel.substr(mount->root.size());
  uint64_t room = UINT64_MAX;
  for (std::filesystem::path dir = std::filesystem::path(mount->point) / std::filesystem::path(rel).relative_path();;
       dir = dir.parent_path()) {
    const std::string d = dir.string();
    std::vector<uint64_t> limits;
    uint64_t used = UINT64_MAX;
    if (v1) {
      limits = {read_number(d + "/memory.limit_in_bytes")};
      used = read_number(d + "/memory.usage_in_bytes");
      if (used != UINT64_MAX) used -= std::min(used, stat_value(d + "/memory.stat", "total_cache"));
    } else {
      limits = {read_number(d + "/memory.max"), read_number(d + "/memory.high")};
      used = read_number(d + "/memory.current");
      if (used != UINT64_MAX) used -= std::min(used, stat_value(d + "/memory.stat", "file"));
    }
    const uint64_t in_use = used == UINT64_MAX ? 0 : used;
    for (uint64_t limit : limits)
      if (limit < (uint64_t(1) << 60)) room = std::min(room, limit > in_use ? limit - in_use : 0);
    if (d.size() <= mount->point.size() || dir == dir.parent_path()) break;
  }
  return room;
}

// A "Key:   N kB" line of /proc/meminfo or /proc/self/status, in bytes; UINT64_MAX if absent.
uint64_t kib_line(const char* path, const std::string& want) {
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) {
    if (line.compare(0, want.size(), want) != 0) continue;
    std::istringstream in(line.substr(want.size()));
    uint64_t kib;
    return (in >> kib) ? kib * 1024 : UINT64_MAX;
  }
  return UINT64_MAX;
}

// The room under one of this process's own limits (ulimit -v: the address space against its size now; ulimit
// -d: data, which counts private writable mappings since Linux 4.7, against its data now); UINT64_MAX if unset.
uint64_t rlimit_room(int resource, const std::string& status_key) {
  struct rlimit rl;
  if (::getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  const uint64_t used = kib_line("/proc/self/status", status_key);
  return used == UINT64_MAX || used >= rl.rlim_cur ? 0 : uint64_t(rl.rlim_cur) - used;
}

// Each bound on what this process may take, and which of them binds.
struct MemoryBounds {
  uint64_t machine, cgroups, address_space, data;
  MemoryBounds()
      : machine(kib_line("/proc/meminfo", "MemAvailable:")),
        cgroups(std::min(cgroup_room(true), cgroup_room(false))),
        address_space(rlimit_room(RLIMIT_AS, "VmSize:")),
        data(rlimit_room(RLIMIT_DATA, "VmData:")) {}
  uint64_t node() const { return std::min(machine, cgroups); }
  uint64_t process() const { return std::min({node(), address_space, data}); }
};

}  // namespace

uint64_t available_memory_bytes() { return MemoryBounds().process(); }
uint64_t node_memory_bytes() { return MemoryBounds().node(); }

std::string available_words(uint64_t bytes) {
  const MemoryBounds b;
  const char* bound = b.process() >= b.machine ? ""
                      : b.address_space == b.process() ? " (under this process's address-space limit, ulimit -v)"
                      : b.data == b.process()          ? " (under this process's data limit, ulimit -d)"
                                                       : " (under a cgroup memory limit)";
  return human_bytes(double(bytes)) + " available" + bound;
}

uint64_t csr_validation_bytes(uint64_t n, uint64_t entries, int id_bytes) {
  // The certificate's inverse label map and covered bits; a check's levels (1 or 4 B a vertex) fit in them.
  return n * uint64_t(id_bytes) + entries / 8;
}

uint64_t in_core_bytes(const KroneckerSpec& spec, int id_bytes, int validate_batch, bool against_csr, bool weighted) {
  const uint64_t n = spec.vertex_count(), m = spec.edge_count(), id = uint64_t(id_bytes);
  // Before deduplication, an upper bound; weighted, a float beside each entry and kernel 3's search (a 64-bit
  // state word, the distances by label, confirmed bits).
  const uint64_t adjacency = 2 * m * (id + (weighted ? 4 : 0)) + (weighted ? sssp_search_bytes(n) : 0);
  const uint64_t build = adjacency + n * (build_bound_bytes(2 * m) + id);  // + list bounds, relabel map
  const uint64_t search = adjacency + n * (4 + id + 1)                  // + block offsets, label map, duplicates
                          + 2 * n * id                                  // + internal and output parent arrays
                          + (against_csr ? csr_validation_bytes(n, 2 * m, id_bytes)      // + the CSR validator
                             : validate_batch > 1 ? validation_batch_bytes(n, id_bytes, validate_batch)  // packed
                                                  : n / 8);                                      // in place: a bitmap
  return std::max(build, search);
}

uint64_t validation_batch_bytes(uint64_t n, int id_bytes, int slots) {
  const uint64_t b = uint64_t(slots);
  return n * ((b + 7) / 8 * 17 + b * uint64_t(id_bytes));  // a row of levels, parent hashes, seen bits; of parents
}

uint64_t tiered_state_bytes(uint64_t n, int id_bytes, bool sssp) {
  const uint64_t id = uint64_t(id_bytes);
  // Offsets at their least: 2 bytes and a 64-bit base per 64 vertices (the first, long lists take 4 bytes).
  return n * (2 + id + 1) + 2 * ((n + 63) / 64 * 8) + tiered_search_bytes(n, id_bytes, sssp);
}

uint64_t tiered_search_bytes(uint64_t n, int id_bytes, bool sssp) {
  // Kernel 3: its search (validation's confirmed bits included) and four bitmaps: the tails to read, the tails
  // done (delta_stepping.hpp's done_), the far vertices and a round's ordering marks.
  if (sssp) return sssp_search_bytes(n) + 4 * ((n + 63) / 64 * 8);
  return 2 * n * uint64_t(id_bytes) + 4 * ((n + 63) / 64 * 8);  // parents, output parents; four bitmaps
}

uint64_t tiered_build_state_bytes(uint64_t n, int id_bytes) {
  const uint64_t id = uint64_t(id_bytes);
  return std::max(n * (id + 8 + 1) + (n + 63) / 64 * 8, n * (2 * id + 1));  // while scattering: + the range marks
}

uint64_t io_buffer_bytes(int threads, const IoOptions& io) { return uint64_t(threads) * io.depth * io.request_bytes; }

uint64_t search_state_bytes(uint64_t n, int id_bytes, int kept) {
  const uint64_t id = uint64_t(id_bytes);
  return n * id + 3 * (n / 8) + uint64_t(kept) * n * id;  // internal parents, bitmaps, kept output parents
}

int validation_batch_within_build_peak(uint64_t n, int id_bytes, uint64_t raw_entries, uint64_t graph_bytes, int roots) {
  const uint64_t id = uint64_t(id_bytes);
  const uint64_t build_peak = raw_entries * id + n * (build_bound_bytes(raw_entries) + id);  // adjacency, bounds, map
  const uint64_t in_use = graph_bytes + 2 * n * id + n / 4;     // graph, two parent arrays, bitmaps
  return validation_slots_within(n, id_bytes, build_peak > in_use ? build_peak - in_use : 0, roots);
}

int validation_slots_within(uint64_t n, int id_bytes, uint64_t room, int roots) {
  // From a guess at a parent and a level byte a search (below the true cost), down to what fits.
  uint64_t slots = std::min<uint64_t>(room / (n * (uint64_t(id_bytes) + 1) + 1), uint64_t(roots));
  while (slots > 1 && validation_batch_bytes(n, id_bytes, int(slots)) > room) --slots;
  return int(std::max<uint64_t>(slots, 1));
}

uint64_t tiered_budget(uint64_t requested, bool dax, uint64_t state, uint64_t io, uint64_t available, int threads,
                       const IoOptions& opt, const char* placement, int scale, uint64_t stream) {
  // What the run holds besides its budget, as the messages name it.
  const std::string fixed =
      human_bytes(double(state)) + " of O(N) state" +
      (stream ? " and " + human_bytes(double(stream)) + " of tuple-stream buffers (validation)" : std::string());
  const uint64_t held = state + stream;
  if (requested == 0 && !dax && held + io > available)  // no budget given: the state is what does not fit
    throw Error(fmt::format("{} SCALE {} needs {} plus at least {} of I/O buffers; {}", placement, scale, fixed,
                            human_bytes(double(io)), available_words(available)));
  uint64_t budget = requested;
  if (budget == 0 && !dax) budget = available > held ? (available - held) / 2 : 0;
  if (!dax && budget < io)
    throw Error(fmt::format("--dram-budget {} is below the minimum {} for out-of-core: the I/O buffers alone take {} "
                            "({} threads x depth {} x {}); raise it, or lower --io-depth or --threads",
                            human_bytes(double(budget)), human_bytes(double(io)), human_bytes(double(io)), threads,
                            opt.depth, human_bytes(double(opt.request_bytes))), Error::kFixSaid);
  if (held + budget > available)
    throw Error(fmt::format("{} SCALE {} needs {} plus the {} budget; {}", placement, scale, fixed,
                            human_bytes(double(budget)), available_words(available)));
  return budget;
}

void check_cache_fits(uint64_t k, uint64_t cache, uint64_t io, uint64_t budget, bool budget_given, uint64_t state,
                      uint64_t available) {
  if (cache + io > budget && budget_given)
    throw Error(fmt::format("--on-mem-edges {} needs a {} edge cache plus {} of I/O buffers, more than --dram-budget {}",
                            k, human_bytes(double(cache)), human_bytes(double(io)), human_bytes(double(budget))), Error::kFixSaid);
  if (cache + io + state > available)
    throw Error(fmt::format("--on-mem-edges {} needs a {} edge cache plus {} of O(N) state; {}", k,
                            human_bytes(double(cache)), human_bytes(double(state)), available_words(available)), Error::kFixSaid);
}

}  // namespace strata
