#include "engine/topology.hpp"

#include <numa.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>

namespace strata {

Topology Topology::detect() {
  Topology t;
  if (numa_available() >= 0) {
    struct bitmask* cpus = numa_allocate_cpumask();
    for (int node = 0; node <= numa_max_node(); ++node) {
      if (numa_node_to_cpus(node, cpus) != 0) continue;
      std::vector<int> list;
      for (unsigned c = 0; c < cpus->size; ++c)
        if (numa_bitmask_isbitset(cpus, c)) list.push_back(int(c));
      if (!list.empty()) {
        t.node_ids.push_back(node);
        t.node_cpus.push_back(std::move(list));
      }
      if (numa_bitmask_isbitset(numa_all_nodes_ptr, unsigned(node))) t.memory_nodes.push_back(node);
    }
    numa_free_cpumask(cpus);
  }
  if (t.node_cpus.empty()) {  // no NUMA support: one node with every CPU we may run on
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    std::vector<int> list;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) list.push_back(c);
    t.node_cpus = {list};
    t.node_ids = {0};
    t.memory_nodes = {0};
  }
  return t;
}

int Topology::index_of(int node_id) const {
  for (size_t i = 0; i < node_ids.size(); ++i)
    if (node_ids[i] == node_id) return int(i);
  return 0;
}

bool Topology::has_memory_node(int node_id) const {
  return std::find(memory_nodes.begin(), memory_nodes.end(), node_id) != memory_nodes.end();
}

int Partitioning::part_of(uint64_t v) const {
  return int(std::upper_bound(bounds.begin(), bounds.end(), v) - bounds.begin()) - 1;
}

std::string Partitioning::describe() const {
  std::string s;
  for (int p = 0; p < parts(); ++p)
    s += (p ? ", " : "") + std::string("[") + std::to_string(begin(p)) + "," + std::to_string(end(p)) + ")@node" +
         std::to_string(node[p]);
  return s;
}

Partitioning Partitioning::balanced(uint64_t n, const std::function<uint64_t(uint64_t)>& work_prefix, int parts,
                                   const Topology& topo) {
  Partitioning p;
  const uint64_t total = work_prefix(n);
  p.bounds.push_back(0);
  for (int k = 1; k < parts; ++k) {
    const uint64_t target = total / parts * k;
    uint64_t lo = 0, hi = n;  // first v with work_prefix(v) >= target
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (work_prefix(mid) < target) lo = mid + 1; else hi = mid;
    }
    uint64_t v = lo;
    v = std::min(n, (v + 63) / 64 * 64);
    p.bounds.push_back(std::max(v, p.bounds.back()));
  }
  p.bounds.push_back(n);
  return with_bounds(std::move(p.bounds), topo);
}

Partitioning Partitioning::with_bounds(std::vector<uint64_t> bounds, const Topology& topo) {
  Partitioning p;
  p.bounds = std::move(bounds);
  for (size_t k = 0; k + 1 < p.bounds.size(); ++k) p.node.push_back(topo.node_ids[k % topo.node_ids.size()]);
  return p;
}

void pin_threads(const Partitioning& parts, const Topology& topo, int threads) {
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int node = parts.node[parts.home_part(t, threads)];
    const std::vector<int>& cpus = topo.node_cpus[topo.index_of(node)];
    // Threads sharing a node spread over its CPUs.
    int rank_in_node = 0;
    for (int u = 0; u < t; ++u) rank_in_node += parts.node[parts.home_part(u, threads)] == node;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[rank_in_node % cpus.size()], &set);
    sched_setaffinity(0, sizeof set, &set);
  }
}

}  // namespace strata
