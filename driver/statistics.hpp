// The official statistics block's values (GRAPH500.md section 4) and the signs that a run's timings were
// disturbed.
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "driver/run_result.hpp"

namespace strata {

// Every key of GRAPH500.md section 4, in the reference's order (SSSP.md section 6), by spec name, for the
// kernels timed (RunResult::timed()): each group of keys (times, TEPS, validation) kernel by kernel, each key
// prefixed with the kernel's name. The bfs_ keys are always there: 0 when only kernel 3 ran, as the
// specification asks of the kernel not run. The nedge keys (one set, the same per root for every kernel)
// come from the first kernel timed.
using TimedKernels = std::vector<std::pair<const KernelInfo*, const std::vector<SearchRecord>*>>;
std::vector<std::pair<std::string, double>> graph500_statistics(int scale, uint64_t edgefactor, double generation,
                                                                double construction, const TimedKernels& timed,
                                                                int processes = 1);

// CPUs that other processes keep busy now: /proc/stat sampled over `seconds`, less this process's own CPU
// time, so that it can be sampled beside the work (negative if unknown). Unlike the load average, it does not
// remember a build that just finished.
double busy_cpus(double seconds = 0.1);

// busy_cpus sampled on its own thread beside a run's start, over `seconds` or until the run asks for the value,
// whichever comes first: a run that ends sooner does not wait out the window (every small run waited 0.1 s, most
// of its time). A window shorter than kShortest (/proc/stat counts 10 ms ticks) tells nothing: -1.
class BusyCpuSampler {
 public:
  static constexpr double kShortest = 0.05;
  explicit BusyCpuSampler(double seconds = 0.1);
  ~BusyCpuSampler();
  BusyCpuSampler(const BusyCpuSampler&) = delete;
  BusyCpuSampler& operator=(const BusyCpuSampler&) = delete;
  double value();  // ends the window and returns its figure

 private:
  std::mutex mutex_;
  std::condition_variable asked_;
  bool stop_ = false;
  double value_ = -1;
  std::thread thread_;
};

// Signs that a run's timings were disturbed, each a sentence (none: an empty list); they change no
// statistic. Searches of equal nedge (one component) whose times spread more than 20x, or other processes
// keeping half a CPU or more busy when the run started.
std::vector<std::string> measurement_warnings(const std::vector<SearchRecord>& searches, double busy_at_start,
                                              int threads);

// The sentence for a run that searched fewer roots than asked (found < asked), else "": the reference's root
// draws stop after 2N, so a small graph may not give them all.
std::string fewer_roots_warning(size_t found, int asked);

// The sentence for a run of more threads than the machine has CPUs (threads > cpus), else "": its threads took
// turns on the cores, so its TEPS are not the machine's. (Counted online, not by this process's affinity: by the
// time a run ends its threads are pinned, one CPU each.)
std::string oversubscribed_warning(int threads, int cpus);

// A finished run's warnings, both backends: measurement_warnings', then fewer_roots_warning's and
// oversubscribed_warning's (against the CPUs online) where they have one (searches: the first
// kernel's, one a root found; asked: --roots).
std::vector<std::string> run_warnings(const std::vector<SearchRecord>& searches, double busy_at_start, int threads,
                                      int asked);

}  // namespace strata
