// `strata tune`: sweeps the edge-cache size from nothing to the DRAM budget (K = 0, 1, 2, 4, 8, 16 where
// they fit, and the K that fills each 1/steps of the budget), one validated run per point; writes a CSV
// and a plot of TEPS against DRAM, and recommends the smallest cache within 5% of the best TEPS. Kernel 2's
// cache (ids) or kernel 3's (--kernel sssp: the weighted CSR's light-first prefixes, 8 bytes an entry).
#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "apps/plot.hpp"
#include "apps/progress.hpp"
#include "apps/tools.hpp"
#include "engine/build_csr_files.hpp"
#include "engine/edge_cache.hpp"
#include "engine/memory.hpp"
#include "engine/topology.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"

namespace strata {

namespace {

// Peak resident memory since the last reset (VmHWM); resetting it lets each point report its own peak.
void reset_peak_rss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return;
  std::fputs("5", f);
  std::fclose(f);
}
uint64_t peak_rss() {
  std::ifstream status("/proc/self/status");
  for (std::string key; status >> key;) {
    uint64_t kib;
    if (key == "VmHWM:" && status >> kib) return kib * 1024;
    status.ignore(256, '\n');
  }
  return 0;
}

struct Point {
  uint64_t k, cache_bytes;
  double teps = 0;
  uint64_t bytes_read = 0, dram_bytes = 0, peak = 0;
  bool valid = false;
};

// The sweep's points: from the on-disk CSR's degrees (engine/edge_cache.hpp's cache_sweep).
std::vector<Point> plan(const RunConfig& run, int parts, uint64_t room, int steps) {
  const GraphDir dir = GraphDir::open(run.graph_dir);
  const bool weighted = run.kernels.weighted_lists();
  const CsrFiles files = CsrFiles::open(CsrFiles::path_for(run.graph_dir, parts, weighted), dir.header_hash(), dir.spec().scale);
  const uint64_t entry = files.layout().entry_bytes();
  const std::vector<CacheStep> sweep = files.layout().id_bytes == 4
                                           ? cache_sweep(load_csr_meta<uint32_t>(files), room, steps, entry)
                                           : cache_sweep(load_csr_meta<uint64_t>(files), room, steps, entry);
  std::vector<Point> points;
  for (const CacheStep& c : sweep) points.push_back({c.k, c.bytes});
  return points;
}

std::string tune_csv(const std::vector<Point>& points) {
  std::string csv = "cache_bytes,on_mem_edges,harmonic_mean_TEPS,bytes_read,dram_peak_bytes,dram_bytes,validated\n";
  for (const Point& p : points)
    csv += fmt::format("{},{},{:.6g},{},{},{},{}\n", p.cache_bytes, p.k, p.teps, p.bytes_read, p.peak, p.dram_bytes,
                       p.valid ? "yes" : "no");
  return csv;
}

// The smallest cache within 5% of the best TEPS, said with what it saves.
void print_recommendation(const std::vector<Point>& points) {
  const Point& best = *std::max_element(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.teps < b.teps; });
  const Point& pick = *std::find_if(points.begin(), points.end(), [&](const Point& p) { return p.teps >= 0.95 * best.teps; });
  std::printf("recommended: --on-mem-edges %llu (edge cache %s, DRAM peak %s): the smallest cache within 5%% of the "
              "best TEPS (%.4g at --on-mem-edges %llu, cache %s); it runs at %.4g TEPS (%.1f%% of the best)%s\n",
              (unsigned long long)pick.k, human_bytes(double(pick.cache_bytes)).c_str(), human_bytes(double(pick.peak)).c_str(),
              best.teps, (unsigned long long)best.k, human_bytes(double(best.cache_bytes)).c_str(), pick.teps,
              100 * pick.teps / best.teps,
              pick.cache_bytes < best.cache_bytes
                  ? fmt::format(" and saves {} of DRAM", human_bytes(double(best.cache_bytes - pick.cache_bytes))).c_str()
                  : "");
}

void plot_tune(const std::string& path, const std::vector<Point>& points, const RunConfig& run) {
  std::string data;
  for (const Point& p : points) data += fmt::format("{:.6g} {:.6g} {}\n", double(p.peak) / (1 << 20), p.teps / 1e9, p.k);
  const std::string script = fmt::format(
      "set terminal pngcairo size 900,550 font \",11\"\nset output $png\n"
      "set title \"{} {}: harmonic-mean TEPS against DRAM ({} roots; labels: on-mem-edges K)\"\n"
      "set xlabel \"DRAM peak (MiB)\"\nset ylabel \"GTEPS\"\nset yrange [0:*]\nset grid\nunset key\n"
      "plot $data using 1:2 with linespoints lw 2 pt 7 lc rgb \"#3b75af\", '' using 1:2:(sprintf(\"K=%d\", $3)) "
      "with labels offset 0,1\n",
      run.place.tier->name, run.kernels.first().title, run.roots);
  plot_png(path, script, data);
}

}  // namespace

int run_tune(const TuneConfig& cfg) {
  RunConfig run = cfg.run;
  const bool dax = run.place.tier->in_place;
  const int threads = run.threads > 0 ? run.threads : omp_get_max_threads();
  const uint64_t io = dax ? 0 : io_buffer_bytes(threads, run.place.io);
  if (run.place.dram_budget <= io)
    throw Error(fmt::format("--dram-budget {} leaves nothing for the edge cache after {} of I/O buffers",
                            human_bytes(double(run.place.dram_budget)), human_bytes(double(io))));
  const int parts = run.numa_parts > 0 ? run.numa_parts : Topology::detect().nodes();

  // The first point, K = 0, also builds the on-disk CSR if needed; its degrees then place the others.
  auto measure = [&](Point& p) {
    run.place.on_mem_edges = int64_t(p.k);
    reset_peak_rss();
    const RunResult r = run_graph500(run);
    p.peak = peak_rss();
    if (!r.ok()) throw Error(fmt::format("tune: the run with --on-mem-edges {} failed validation: {}", p.k, r.failure));
    const KernelRun& tuned = r.runs.front();  // tune runs one kernel
    p.teps = r.statistic(std::string(tuned.kernel->name) + "_harmonic_mean_TEPS");
    p.cache_bytes = r.dram.edge_cache;
    p.dram_bytes = r.dram_bytes;
    p.valid = true;
    // DAX: the bytes loaded from the mapping (kernel 2's entries of the graph's id width; kernel 3's are read in
    // place and not counted).
    const bool mapped = dax && tuned.kernel == &kBfsKernel;
    for (const SearchRecord& s : tuned.searches) p.bytes_read += mapped ? s.io.edges_storage * r.id_bytes : s.io.bytes_read;
  };
  Point first{0, 0};
  {
    Progress progress("tune: K = 0");
    progress.update(0, 1);
    measure(first);
  }
  std::vector<Point> points = plan(run, parts, run.place.dram_budget - io, cfg.steps);
  if (points.size() < 2) throw Error("--dram-budget is too small to sweep: not even K = 1 fits");
  points[0] = first;
  {
    Progress progress("tune");
    for (size_t i = 1; i < points.size(); ++i) {
      progress.update(i, points.size(), fmt::format("K = {} ({})", points[i].k, human_bytes(double(points[i].cache_bytes))));
      measure(points[i]);
    }
  }
  const std::string csv = tune_csv(points);
  std::fputs(csv.c_str(), stdout);
  if (!cfg.csv_path.empty()) write_output_file(cfg.csv_path, csv);
  print_recommendation(points);
  if (!cfg.plot_path.empty()) plot_tune(cfg.plot_path, points, run);
  return 0;
}

}  // namespace strata
