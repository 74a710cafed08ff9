// The Graph500 statistics block (stdout) and its machine-readable JSON copy.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace strata {

struct SearchRecord {
  uint64_t root;
  double time;
  uint64_t nedge;
  double validate_time;
  bool valid;
};

// Every key of GRAPH500.md section 4, in the reference's order, by spec name.
std::vector<std::pair<std::string, double>> graph500_statistics(int scale, uint64_t edgefactor, double generation,
                                                                double construction,
                                                                const std::vector<SearchRecord>& searches);

std::string format_block(const std::vector<std::pair<std::string, double>>& stats);

void write_json_file(const std::string& path, const nlohmann::json& j);

}  // namespace strata
