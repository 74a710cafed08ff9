#include "driver/statistics.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

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

namespace {

// /proc/stat's busy and total clock ticks over all CPUs, and this process's own CPU time (all its threads, which
// run while a sample is taken) in ticks.
struct CpuTicks {
  bool ok = false;
  uint64_t busy = 0, total = 0;
  double own = 0;
};
CpuTicks cpu_ticks() {
  CpuTicks t;
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  t.own = (double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec)) *
          double(::sysconf(_SC_CLK_TCK));
  // The first line: user nice system idle iowait irq softirq steal ...
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return t;
  unsigned long long v[8] = {};
  t.ok = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                     &v[7]) == 8;
  std::fclose(f);
  for (unsigned long long x : v) t.total += x;
  t.busy = t.total - v[3] - v[4];
  return t;
}

double others_between(const CpuTicks& a, const CpuTicks& b) {
  if (!a.ok || !b.ok || b.total <= a.total) return -1;
  const double others = std::max(0.0, double(b.busy - a.busy) - (b.own - a.own));
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  return others / double(b.total - a.total) * double(cpus > 0 ? cpus : 1);
}

}  // namespace

double busy_cpus(double seconds) {
  const CpuTicks a = cpu_ticks();
  ::usleep(useconds_t(seconds * 1e6));
  return others_between(a, cpu_ticks());
}

BusyCpuSampler::BusyCpuSampler(double seconds) {
  thread_ = std::thread([this, seconds] {
    const CpuTicks a = cpu_ticks();
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    asked_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stop_; });
    const double window = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    value_ = window >= kShortest ? others_between(a, cpu_ticks()) : -1;
  });
}

double BusyCpuSampler::value() {
  if (thread_.joinable()) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    asked_.notify_one();
    thread_.join();
  }
  return value_;
}

BusyCpuSampler::~BusyCpuSampler() { value(); }

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

std::string fewer_roots_warning(size_t found, int asked) {
  if (found >= size_t(std::max(asked, 0))) return "";
  return fmt::format("{} searches, not the {} asked: the reference's 2N root draws found no more vertices with an "
                     "edge",
                     found, asked);
}

std::string oversubscribed_warning(int threads, int cpus) {
  if (threads <= cpus) return "";
  return fmt::format("{} threads on this machine's {} CPU{}: they took turns on the cores, so the TEPS are not the "
                     "machine's",
                     threads, cpus, cpus == 1 ? "" : "s");
}

std::vector<std::string> run_warnings(const std::vector<SearchRecord>& searches, double busy_at_start, int threads,
                                      int asked) {
  std::vector<std::string> w = measurement_warnings(searches, busy_at_start, threads);
  if (std::string few = fewer_roots_warning(searches.size(), asked); !few.empty()) w.push_back(std::move(few));
  if (std::string over = oversubscribed_warning(threads, int(::sysconf(_SC_NPROCESSORS_ONLN))); !over.empty()) w.push_back(std::move(over));
  return w;
}

}  // namespace strata
