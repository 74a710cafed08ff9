#include "engine/placement.hpp"
#include "engine/prepare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"

namespace strata {

namespace {
std::string node_list(const std::vector<int>& nodes) { return fmt::format("{}", fmt::join(nodes, ",")); }
}  // namespace

void check_memory_nodes(const std::vector<int>& nodes, const Topology& topo) {
  for (int n : nodes)
    if (!topo.has_memory_node(n))
      throw Error(fmt::format("--mem-nodes: NUMA node {} does not exist or has no memory (this machine's memory nodes: {})",
                              n, node_list(topo.memory_nodes)));
}

std::map<std::string, std::string> describe_placement(const MemoryPlacement& m, const Partitioning& parts,
                                                      const Topology& topo) {
  std::vector<int> part_nodes;
  for (int n : parts.node)
    if (std::find(part_nodes.begin(), part_nodes.end(), n) == part_nodes.end()) part_nodes.push_back(n);
  const std::string local = fmt::format("partitioned over CPU nodes {}", node_list(part_nodes));
  const std::string spread = fmt::format("interleaved over nodes {}", node_list(topo.memory_nodes));
  std::map<std::string, std::string> d = {{"adjacency", local},  {"offsets", local},   {"labels", local},
                                          {"duplicates", local}, {"parents", local},   {"frontiers", local}};
  if (!m.mem_nodes.empty()) {
    d["adjacency"] = fmt::format("{} nodes {}", m.interleave ? "interleaved over" : "bound to", node_list(m.mem_nodes));
  } else if (m.interleave) {
    d["adjacency"] = d["labels"] = d["duplicates"] = spread;
  }
  return d;
}

}  // namespace strata
