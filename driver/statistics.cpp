#include "driver/statistics.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "validate/stats.hpp"

namespace strata {

namespace {

struct Columns {
  std::vector<double> time, nedge, validate;
};
Columns columns(const std::vector<SearchRecord>& searches) {
  Columns c;
  for (const auto& s : searches) {
    c.time.push_back(s.time);
    c.nedge.push_back(double(s.nedge));
    c.validate.push_back(s.validate_time);
  }
  return c;
}

}  // namespace

std::vector<std::pair<std::string, double>> graph500_statistics(int scale, uint64_t edgefactor, double generation,
                                                                double construction, const TimedKernels& timed,
                                                                int processes) {
  std::vector<std::pair<const KernelInfo*, Columns>> kernels;
  for (const auto& [kernel, searches] : timed) kernels.push_back({kernel, columns(*searches)});
  const Columns first = kernels.empty() ? Columns{} : kernels.front().second;  // NBFS and nedge
  if (kernels.empty() || kernels.front().first != &kBfsKernel) kernels.insert(kernels.begin(), {&kBfsKernel, Columns{}});
  std::vector<std::pair<std::string, double>> r = {{"SCALE", scale},
                                                   {"edgefactor", double(edgefactor)},
                                                   {"NBFS", double(first.time.size())},
                                                   {"graph_generation", generation},
                                                   {"num_mpi_processes", double(processes)},
                                                   {"construction_time", construction}};
  auto add = [&](const std::string& prefix, const std::string& suffix, const std::vector<double>& x) {
    const Summary m = x.empty() ? Summary{} : summarize(x);
    const std::pair<const char*, double> keys[] = {{"min", m.min},     {"firstquartile", m.firstquartile},
                                                   {"median", m.median}, {"thirdquartile", m.thirdquartile},
                                                   {"max", m.max},     {"mean", m.mean},
                                                   {"stddev", m.stddev}};
    for (const auto& [name, value] : keys) r.push_back({prefix + name + suffix, value});
  };
  auto add_teps = [&](const std::string& prefix, const Columns& c) {
    const TepsSummary t = c.time.empty() ? TepsSummary{} : summarize_teps(c.time, c.nedge);
    const std::pair<const char*, double> keys[] = {{"min", t.min},
                                                   {"firstquartile", t.firstquartile},
                                                   {"median", t.median},
                                                   {"thirdquartile", t.thirdquartile},
                                                   {"max", t.max},
                                                   {"harmonic_mean", t.harmonic_mean},
                                                   {"harmonic_stddev", t.harmonic_stddev}};
    for (const auto& [name, value] : keys) r.push_back({prefix + name + "_TEPS", value});
  };
  for (const auto& [kernel, c] : kernels) add(std::string(kernel->name) + "_", "_time", c.time);
  add("", "_nedge", first.nedge);
  for (const auto& [kernel, c] : kernels) add_teps(std::string(kernel->name) + "_", c);
  for (const auto& [kernel, c] : kernels) add(std::string(kernel->name) + "_", "_validate", c.validate);
  return r;
}

double busy_cpus(double seconds) {
  // /proc/stat's first line: user nice system idle iowait irq softirq steal ... (clock ticks over all CPUs).
  auto sample = [](uint64_t& busy, uint64_t& total) {
    std::FILE* f = std::fopen("/proc/stat", "r");
    if (!f) return false;
    unsigned long long v[8] = {};
    const bool ok = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                                &v[5], &v[6], &v[7]) == 8;
    std::fclose(f);
    total = 0;
    for (unsigned long long x : v) total += x;
    busy = total - v[3] - v[4];
    return ok;
  };
  // This process's own CPU time (all its threads), in clock ticks: it runs while the sample is taken.
  auto own_ticks = [] {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    const double s = double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
    return s * double(::sysconf(_SC_CLK_TCK));
  };
  uint64_t b0, t0, b1, t1;
  const double own0 = own_ticks();
  if (!sample(b0, t0)) return -1;
  ::usleep(useconds_t(seconds * 1e6));
  if (!sample(b1, t1) || t1 <= t0) return -1;
  const double others = std::max(0.0, double(b1 - b0) - (own_ticks() - own0));
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  return others / double(t1 - t0) * double(cpus > 0 ? cpus : 1);
}

std::vector<std::string> measurement_warnings(const std::vector<SearchRecord>& searches, double busy_at_start,
                                              int threads) {
  constexpr double kSpread = 20, kBusy = 0.5;
  std::vector<std::string> w;
  if (busy_at_start >= kBusy)
    w.push_back(fmt::format("other processes kept {:.1f} CPUs busy when the run started (it used {} thread{}): they "
                            "competed for the CPUs",
                            busy_at_start, threads, threads == 1 ? "" : "s"));
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

}  // namespace strata
