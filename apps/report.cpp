#include "apps/report.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>

#include "core/error.hpp"
#include "storage/file.hpp"
#include "validate/stats.hpp"

namespace strata {

std::vector<std::pair<std::string, double>> graph500_statistics(int scale, uint64_t edgefactor, double generation,
                                                                double construction,
                                                                const std::vector<SearchRecord>& searches) {
  std::vector<double> time, nedge, validate;
  for (const auto& s : searches) {
    time.push_back(s.time);
    nedge.push_back(double(s.nedge));
    validate.push_back(s.validate_time);
  }
  std::vector<std::pair<std::string, double>> r = {{"SCALE", scale},
                                                   {"edgefactor", double(edgefactor)},
                                                   {"NBFS", double(searches.size())},
                                                   {"graph_generation", generation},
                                                   {"num_mpi_processes", 1},
                                                   {"construction_time", construction}};
  auto add = [&](const std::string& prefix, const std::string& suffix, const Summary& s) {
    r.push_back({prefix + "min" + suffix, s.min});
    r.push_back({prefix + "firstquartile" + suffix, s.firstquartile});
    r.push_back({prefix + "median" + suffix, s.median});
    r.push_back({prefix + "thirdquartile" + suffix, s.thirdquartile});
    r.push_back({prefix + "max" + suffix, s.max});
    r.push_back({prefix + "mean" + suffix, s.mean});
    r.push_back({prefix + "stddev" + suffix, s.stddev});
  };
  add("bfs_", "_time", summarize(time));
  add("", "_nedge", summarize(nedge));
  const TepsSummary t = summarize_teps(time, nedge);
  r.insert(r.end(), {{"bfs_min_TEPS", t.min},
                     {"bfs_firstquartile_TEPS", t.firstquartile},
                     {"bfs_median_TEPS", t.median},
                     {"bfs_thirdquartile_TEPS", t.thirdquartile},
                     {"bfs_max_TEPS", t.max},
                     {"bfs_harmonic_mean_TEPS", t.harmonic_mean},
                     {"bfs_harmonic_stddev_TEPS", t.harmonic_stddev}});
  add("bfs_", "_validate", summarize(validate));
  return r;
}

std::string format_block(const std::vector<std::pair<std::string, double>>& stats) {
  std::string out;
  for (const auto& [key, value] : stats) {
    const bool integral = key == "SCALE" || key == "edgefactor" || key == "NBFS" || key == "num_mpi_processes";
    out += integral ? fmt::format("{:<31} {}\n", key + ":", int64_t(value)) : fmt::format("{:<31} {:.17e}\n", key + ":", value);
  }
  return out;
}

void write_json_file(const std::string& path, const nlohmann::json& j) { write_file_atomically(path, j.dump(2) + "\n"); }

double load_average() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  double load = -1;
  if (f) {
    if (std::fscanf(f, "%lf", &load) != 1) load = -1;
    std::fclose(f);
  }
  return load;
}

std::vector<std::string> measurement_warnings(const std::vector<SearchRecord>& searches, double load_at_start,
                                              int threads) {
  constexpr double kSpread = 20;
  std::vector<std::string> w;
  if (load_at_start > threads)
    w.push_back(fmt::format("the load average was {:.2f} at start, above the {} thread{} the run used: other work "
                            "competed for the CPUs",
                            load_at_start, threads, threads == 1 ? "" : "s"));
  std::map<uint64_t, std::pair<double, double>> by_nedge;  // nedge -> fastest, slowest search
  for (const SearchRecord& s : searches) {
    auto [it, fresh] = by_nedge.try_emplace(s.nedge, s.time, s.time);
    if (!fresh) it->second = {std::min(it->second.first, s.time), std::max(it->second.second, s.time)};
  }
  for (const auto& [nedge, range] : by_nedge)
    if (range.first > 0 && range.second / range.first > kSpread) {
      w.push_back(fmt::format("searches of equal nedge ({}) took {:.3g} s to {:.3g} s, a {:.0f}x spread: the "
                              "machine was probably busy; measure again on an idle one",
                              nedge, range.first, range.second, range.second / range.first));
      break;
    }
  return w;
}

std::string summary_line(const nlohmann::json& run, const std::vector<std::string>& warnings,
                         const std::string& json_path) {
  const uint64_t searches = run["nbfs"].get<uint64_t>();
  uint64_t valid = 0;
  for (const auto& s : run["searches"]) valid += s["valid"].is_boolean() && s["valid"].get<bool>();
  const std::string checked = run["validated"].get<bool>()
                                  ? fmt::format("{} of {} searches validated", valid, searches)
                                  : fmt::format("{} searches NOT validated", searches);
  std::string line = fmt::format(
      "summary: SCALE {}, {}, {}, {:.3g} GTEPS harmonic mean (min {:.3g}, max {:.3g}), {}",
      run["scale"].get<int>(), run["placement"].get<std::string>(), checked,
      run["bfs_harmonic_mean_TEPS"].get<double>() / 1e9, run["bfs_min_TEPS"].get<double>() / 1e9,
      run["bfs_max_TEPS"].get<double>() / 1e9, json_path.empty() ? "no JSON (--json FILE)" : "JSON in " + json_path);
  for (const std::string& w : warnings) line += "; warning: " + w;
  return line;
}

}  // namespace strata
