// `strata compare`: the same graph and roots under each placement, one table, the full results as JSON,
// a bar chart of TEPS.
#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "apps/plot.hpp"
#include "apps/report.hpp"
#include "apps/tools.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"

namespace strata {

int run_compare(const CompareConfig& cfg) {
  nlohmann::json all = {{"graph", cfg.run.graph_dir}, {"roots", cfg.run.roots}, {"placements", nlohmann::json::array()}};
  std::vector<nlohmann::json> results;
  std::string failure;
  for (Placement p : cfg.placements) {
    RunConfig run = cfg.run;
    run.placement = p;
    run.quiet = true;
    run.json_path.clear();
    // The budget is the out-of-core edge cache's; DAX reads every list in place, in-core holds them all.
    if (p != Placement::kOutOfCore) run.dram_budget = 0;
    std::fprintf(stderr, "compare: %s\n", placement_name(p));
    nlohmann::json j;
    try {
      const int rc = run_graph500(run, &j);
      if (rc != 0 && failure.empty()) failure = fmt::format("{}: {}", placement_name(p), j.value("error", "failed"));
    } catch (const Error& e) {  // one placement failing (say, no room for its CSR) does not stop the others
      if (failure.empty()) failure = fmt::format("{}: {}", placement_name(p), e.what());
      std::fprintf(stderr, "strata: error: %s: %s\n", placement_name(p), e.what());
      all["placements"].push_back({{"placement", placement_name(p)}, {"error", e.what()}});
      continue;
    }
    results.push_back(j);
    all["placements"].push_back(j);
  }

  double in_core = 0;
  for (const auto& j : results)
    if (j["placement"] == "in-core") in_core = j["bfs_harmonic_mean_TEPS"].get<double>();
  std::printf("%-12s %20s %9s %12s %20s %18s %10s\n", "placement", "harmonic_mean_TEPS", "ratio", "dram_bytes",
              "storage_bytes_read", "construction_time", "validated");
  for (const auto& j : results) {
    const double teps = j["bfs_harmonic_mean_TEPS"].get<double>();
    std::string read = "-";
    if (j.contains("bytes_read")) read = human_bytes(double(j["bytes_read"].get<uint64_t>()));
    else if (j["placement"] == "dax") read = j["is_pmem"].get<bool>() ? "in place (pmem)" : "in place (mmap)";
    bool valid = j["validated"].get<bool>();
    for (const auto& s : j["searches"]) valid = valid && s["valid"].is_boolean() && s["valid"].get<bool>();
    std::printf("%-12s %20.4g %9s %12s %20s %17.2fs %10s\n", j["placement"].get<std::string>().c_str(), teps,
                in_core > 0 ? fmt::format("{:.3f}", teps / in_core).c_str() : "-",
                human_bytes(double(j["dram_bytes"].get<uint64_t>())).c_str(), read.c_str(),
                j["construction_time"].get<double>(), valid ? "yes" : "no");
  }
  if (!cfg.json_path.empty()) write_json_file(cfg.json_path, all);
  if (!cfg.plot_path.empty()) {
    std::string data;
    for (const auto& j : results)
      data += fmt::format("\"{}\" {:.6g}\n", j["placement"].get<std::string>(), j["bfs_harmonic_mean_TEPS"].get<double>() / 1e9);
    const std::string script = fmt::format(
        "set terminal pngcairo size 800,500 font \",11\"\nset output $png\n"
        "set title \"BFS on SCALE {} ({} roots): harmonic-mean TEPS by placement\"\n"
        "set ylabel \"GTEPS\"\nset yrange [0:*]\nset style fill solid 0.6 border -1\nset boxwidth 0.6\n"
        "set grid ytics\nunset key\n"
        "plot $data using 0:2:xtic(1) with boxes lc rgb \"#3b75af\", '' using 0:2:(sprintf(\"%.3g\", $2)) with labels offset 0,1\n",
        results.empty() ? 0 : results[0]["scale"].get<int>(), cfg.run.roots);
    plot_png(cfg.plot_path, script, data);
  }
  if (!failure.empty()) {
    std::fprintf(stderr, "strata: error: %s\n", failure.c_str());
    return 1;
  }
  return 0;
}

}  // namespace strata
