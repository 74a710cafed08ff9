#include "apps/report.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "storage/error.hpp"
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

void write_json_file(const std::string& path, const nlohmann::json& j) {
  // Written beside the target and renamed, so a reader never sees half a file.
  const std::string tmp = path + ".tmp";
  {
    File f(tmp, O_WRONLY | O_CREAT | O_TRUNC);
    const std::string text = j.dump(2) + "\n";
    f.write_all(text.data(), text.size());
    f.sync();
    f.close();
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error(errno_message("cannot rename " + tmp + " to " + path, errno));
}

}  // namespace strata
