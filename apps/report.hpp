// A RunResult for people and scripts: the Graph500 statistics block, the placement lines and the summary
// line on stdout, and the JSON copy (every key README lists).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "driver/graph500.hpp"

namespace strata {

std::string format_block(const std::vector<std::pair<std::string, double>>& stats);

// Everything --json writes (a failed run: no statistics, "validated": false and the reason as "error").
nlohmann::json to_json(const RunResult& r);

// What `strata run` prints on stdout after the searches: the block, the placement lines, the validation
// note, the summary; or the failure message.
std::string format_run(const RunResult& r, const std::string& json_path);

// One line for people after the Graph500 block: SCALE, placement, searches validated, harmonic-mean TEPS in
// GTEPS, the spread, where the JSON went, and any measurement warning.
std::string summary_line(const RunResult& r, const std::string& json_path);

void write_json_file(const std::string& path, const nlohmann::json& j);

}  // namespace strata
