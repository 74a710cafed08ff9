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

// The 1-minute load average now (/proc/loadavg), or a negative number if unknown.
double load_average();

// Signs that a run's timings were disturbed, each a sentence (none: an empty list); they change no
// statistic. Searches of equal nedge (one component) whose times spread more than 20x, or a load average
// above the thread count when the run started.
std::vector<std::string> measurement_warnings(const std::vector<SearchRecord>& searches, double load_at_start,
                                              int threads);

// One line for people after the Graph500 block: SCALE, placement, searches validated, harmonic-mean TEPS in
// GTEPS, the spread, where the JSON went, and any measurement warning.
std::string summary_line(const nlohmann::json& run, const std::vector<std::string>& warnings,
                         const std::string& json_path);

}  // namespace strata
