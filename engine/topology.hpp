// NUMA topology (libnuma) and the partitioning of vertices into contiguous ranges, one per part, each part
// on a node. `parts` may exceed the real node count (parts map to nodes round-robin), so the partitioned
// code paths run and are tested on a one-node machine.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace strata {

struct Topology {
  std::vector<int> node_ids;                // NUMA nodes with CPUs (the nodes that run threads)
  std::vector<std::vector<int>> node_cpus;  // their CPUs; one entry, node 0, without NUMA
  std::vector<int> memory_nodes;            // every node with memory, CPU-less ones (CXL, PMem) included
  int nodes() const { return int(node_cpus.size()); }
  int index_of(int node_id) const;          // position of a CPU node in node_ids (0 if absent)
  bool has_memory_node(int node_id) const;
  static Topology detect();
};

struct Partitioning {
  std::vector<uint64_t> bounds;  // parts + 1 vertex bounds, multiples of 64 (one bitmap word per owner)
  std::vector<int> node;         // NUMA node of each part (kFirstTouch: none preferred)
  static constexpr int kFirstTouch = -1;
  int parts() const { return int(node.size()); }
  uint64_t begin(int p) const { return bounds[p]; }
  uint64_t end(int p) const { return bounds[p + 1]; }
  int part_of(uint64_t v) const;
  // The part a thread serves first; with more parts than threads a thread serves several in turn.
  int home_part(int thread, int threads) const { return int(int64_t(thread) * parts() / threads); }
  std::string describe() const;  // "[begin,end)@nodeN, ..."

  // Splits [0, n) into `parts` ranges of roughly equal work; work_prefix(v) is the work of [0, v), non-decreasing.
  // Given bounds (parts + 1), parts mapped to the CPU nodes round-robin.
  static Partitioning with_bounds(std::vector<uint64_t> bounds, const Topology& topo);
  // [0, n) as one part whose pages go where they are first touched: an MPI rank's, placed by the launcher's
  // binding (a node of its own would put every rank's arrays on one socket).
  static Partitioning first_touch(uint64_t n) { return {{0, n}, {kFirstTouch}}; }
  static Partitioning balanced(uint64_t n, const std::function<uint64_t(uint64_t)>& work_prefix, int parts,
                               const Topology& topo);
};

// Pins OpenMP thread t of a team of `threads` to a CPU of its home part's node.
void pin_threads(const Partitioning& parts, const Topology& topo, int threads);

}  // namespace strata
