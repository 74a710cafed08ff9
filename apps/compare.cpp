// `strata compare`: the same graph and roots under each placement, one table, the full results as JSON,
// a bar chart of TEPS.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "apps/plot.hpp"
#include "apps/report.hpp"
#include "apps/tools.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "storage/file.hpp"

namespace strata {

namespace {

std::string storage_read(const RunResult& r) {
  if (r.placement.tier->counts_reads) return human_bytes(double(r.bytes_read()));
  if (r.placement.tier->in_place) return r.placement.is_pmem ? "in place (pmem)" : "in place (mmap)";
  return "-";
}

bool all_valid(const RunResult& r) {
  auto valid = [](const SearchRecord& s) { return s.valid; };
  const auto timed = r.timed();
  return r.validate && r.ok() && std::all_of(timed.begin(), timed.end(), [&](const auto& kernel) {
           return std::all_of(kernel.second->begin(), kernel.second->end(), valid);
         });
}

// A row per kernel timed, (row name, statistics prefix): BFS's row keeps the placement's bare name (as before
// kernel 3), another kernel's is "<placement> <kernel>".
std::vector<std::pair<std::string, std::string>> rows_of(const RunResult& r) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& [kernel, searches] : r.timed()) {
    const std::string placement(r.placement.tier->name);
    rows.push_back({kernel == &kBfsKernel ? placement : placement + " " + kernel->name, kernel->name});
  }
  return rows;
}

// One row a placement and kernel: TEPS, the ratio to in-core's for that kernel, DRAM, storage read,
// construction, validated.
void print_table(const std::vector<RunResult>& results) {
  std::map<std::string, double> in_core;  // by kernel
  for (const RunResult& r : results)
    if (r.placement.tier->name == kInCore.name)
      for (const auto& [row, kernel] : rows_of(r)) in_core[kernel] = r.statistic(kernel + "_harmonic_mean_TEPS");
  int width = 12;  // the placement column as wide as its longest row ("out-of-core sssp")
  for (const RunResult& r : results)
    for (const auto& [row, kernel] : rows_of(r)) width = std::max(width, int(row.size()));
  std::printf("%-*s %20s %9s %12s %20s %18s %10s\n", width, "placement", "harmonic_mean_TEPS", "ratio", "dram_bytes",
              "storage_bytes_read", "construction_time", "validated");
  for (const RunResult& r : results)
    for (const auto& [row, kernel] : rows_of(r)) {
      const double teps = r.statistic(kernel + "_harmonic_mean_TEPS"), base = in_core[kernel];
      std::printf("%-*s %20.4g %9s %12s %20s %17.2fs %10s\n", width, row.c_str(), teps,
                  base > 0 ? fmt::format("{:.3f}", teps / base).c_str() : "-", human_bytes(double(r.dram_bytes)).c_str(),
                  storage_read(r).c_str(), r.construction_time, all_valid(r) ? "yes" : "no");
    }
}

// The kernels compared, for people: "BFS", "SSSP", "BFS and SSSP".
std::string titles(const std::vector<RunResult>& results) {
  std::string out;
  for (const KernelRun& k : results.empty() ? std::vector<KernelRun>{{&kBfsKernel}} : results[0].runs)
    out += (out.empty() ? "" : " and ") + std::string(k.kernel->title);
  return out;
}

// A bar chart of harmonic-mean TEPS by placement (and kernel).
void plot_compare(const std::string& path, const std::vector<RunResult>& results, int roots) {
  std::string data;
  for (const RunResult& r : results)
    for (const auto& [row, kernel] : rows_of(r))
      data += fmt::format("\"{}\" {:.6g}\n", row, r.statistic(kernel + "_harmonic_mean_TEPS") / 1e9);
  const std::string script = fmt::format(
      "set terminal pngcairo size 800,500 font \",11\"\nset output $png\n"
      "set title \"{} on SCALE {} ({} roots): harmonic-mean TEPS by placement\"\n"
      "set ylabel \"GTEPS\"\nset yrange [0:*]\nset style fill solid 0.6 border -1\nset boxwidth 0.6\n"
      "set grid ytics\nunset key\n"
      "plot $data using 0:2:xtic(1) with boxes lc rgb \"#3b75af\", '' using 0:2:(sprintf(\"%.3g\", $2)) with labels offset 0,1\n",
      titles(results),
      results.empty() ? 0 : results[0].spec.scale, roots);
  plot_png(path, script, data);
}

}  // namespace

namespace {
// One placement's run of the compared graph and roots.
RunConfig placement_run(const CompareConfig& cfg, const Tier* tier) {
  RunConfig run = cfg.run;
  run.place.tier = tier;
  // The budget is the out-of-core edge cache's; DAX reads every list in place, in-core holds them all.
  if (!tier->on_storage || tier->in_place) run.place.dram_budget = 0;
  return run;
}
}  // namespace

int run_compare(const CompareConfig& cfg) {
  // What a placement would refuse before its work (a budget below its I/O buffers, no room for its CSR) is
  // refused before the first placement runs, naming it.
  for (const Tier* tier : cfg.placements) {
    try {
      check_run(placement_run(cfg, tier));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", tier->name, e.what()), e.fix_said ? Error::kFixSaid : Error::kFixUnsaid);
    }
  }
  nlohmann::json all = {{"graph", cfg.run.graph_dir}, {"roots", cfg.run.roots}, {"placements", nlohmann::json::array()}};
  std::vector<RunResult> results;
  std::string failure;
  for (const Tier* tier : cfg.placements) {
    const RunConfig run = placement_run(cfg, tier);
    const std::string name(tier->name);
    std::fprintf(stderr, "compare: %s\n", name.c_str());
    try {
      RunResult r = run_graph500(run);
      if (!r.ok() && failure.empty()) failure = fmt::format("{}: {}", name, r.failure);
      all["placements"].push_back(to_json(r));
      results.push_back(std::move(r));
    } catch (const Error& e) {  // one placement failing (say, no room for its CSR) does not stop the others
      if (failure.empty()) failure = fmt::format("{}: {}", name, e.what());
      std::fprintf(stderr, "strata: error: %s: %s\n", name.c_str(), e.what());
      all["placements"].push_back({{"placement", name}, {"error", e.what()}});
    }
  }

  print_table(results);
  if (!cfg.json_path.empty()) write_json_file(cfg.json_path, all);
  if (!cfg.plot_path.empty()) plot_compare(cfg.plot_path, results, cfg.run.roots);
  if (!failure.empty()) {
    std::fprintf(stderr, "strata: error: %s\n", failure.c_str());
    return 1;
  }
  return 0;
}

}  // namespace strata
