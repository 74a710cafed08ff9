// The people-facing parts of a run's report: progress ETAs, measurement warnings (disturbed timings are
// flagged, quiet ones are not; a busy CPU is seen), the summary line and a kernel's searches in the JSON.
#include <gtest/gtest.h>
#include <atomic>
#include <chrono>
#include <thread>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apps/progress.hpp"
#include "apps/report.hpp"
#include "core/units.hpp"

namespace strata {
namespace {

std::vector<SearchRecord> searches(std::initializer_list<std::pair<uint64_t, double>> nedge_time) {
  std::vector<SearchRecord> r;
  for (auto [nedge, time] : nedge_time) r.push_back({1, time, nedge, 0.0, true});
  return r;
}

TEST(MeasurementWarnings, QuietRunHasNone) {
  EXPECT_TRUE(measurement_warnings(searches({{100, 1.0}, {100, 1.5}, {7, 0.001}}), 0.1, 2).empty());
}

TEST(MeasurementWarnings, SpreadOfEqualNedgeSearchesIsFlagged) {
  const auto w = measurement_warnings(searches({{100, 0.01}, {100, 0.3}, {100, 0.02}}), 0.1, 2);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("30x spread"), std::string::npos) << w[0];
  // Different components (different nedge) may legitimately differ by far more.
  EXPECT_TRUE(measurement_warnings(searches({{100, 1.0}, {3, 0.0001}}), 0.1, 2).empty());
}

TEST(MeasurementWarnings, MoreThreadsThanCpusAreFlagged) {
  EXPECT_EQ(oversubscribed_warning(2, 2), "");
  EXPECT_EQ(oversubscribed_warning(1, 4), "");
  EXPECT_NE(oversubscribed_warning(8, 2).find("8 threads on this machine's 2 CPUs"), std::string::npos);
}

TEST(MeasurementWarnings, BusyCpusAtStartAreFlagged) {
  const auto w = measurement_warnings(searches({{100, 1.0}}), 1.5, 2);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("other processes kept 1.5 CPUs busy"), std::string::npos) << w[0];
  EXPECT_TRUE(measurement_warnings(searches({{100, 1.0}}), 0.2, 2).empty());
}

TEST(MeasurementWarnings, FewerRootsThanAskedAreFlagged) {
  EXPECT_EQ(fewer_roots_warning(64, 64), "");
  EXPECT_EQ(fewer_roots_warning(64, 8), "");
  const std::string w = fewer_roots_warning(80, 1000);
  EXPECT_EQ(w.rfind("80 searches, not the 1000 asked: ", 0), 0u) << w;
  // A run's warnings: the measurement's, then this one.
  EXPECT_TRUE(run_warnings(searches({{100, 1.0}}), 0.1, 2, 1).empty());
  const std::vector<SearchRecord> eighty(80, SearchRecord{1, 1.0, 100, 0.0, true});  // 80 roots found
  const auto all = run_warnings(eighty, 1.5, 2, 1000);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_NE(all[0].find("other processes kept 1.5 CPUs busy"), std::string::npos) << all[0];
  EXPECT_EQ(all[1], w);
}

// A real busy process is seen; a quiet machine is not flagged (skipped where the machine is not quiet).
TEST(MeasurementWarnings, BusyCpusSeesASpinningChild) {
  const double before = busy_cpus(0.2);
  if (before < 0 || before > 0.3) GTEST_SKIP() << "the machine is busy (" << before << " CPUs): nothing to compare";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    for (std::atomic<uint64_t> spins{0};;) spins.fetch_add(1, std::memory_order_relaxed);  // until killed
  const double during = busy_cpus(0.3);
  BusyCpuSampler sampler(0.3);  // as a run samples: on its own thread, asked after its window
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const double sampled = sampler.value();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_GT(during, 0.6) << "a spinning process keeps a CPU busy";
  EXPECT_GT(sampled, 0.6) << "the sampler: a spinning process keeps a CPU busy";
}

// A run that ends before the sampler's window does not wait it out, and a window too short to tell says so.
TEST(MeasurementWarnings, TheSamplerEndsItsWindowWhenAsked) {
  const auto start = std::chrono::steady_clock::now();
  BusyCpuSampler at_once(30.0);
  EXPECT_EQ(at_once.value(), -1) << "a window under a twentieth of a second tells nothing";
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0)
      << "the 30 s window was waited out";
  BusyCpuSampler whole(0.1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_GE(whole.value(), 0) << "a whole window gives a figure";
}

// This process's own threads are not "other processes": the run samples beside its own work.
TEST(MeasurementWarnings, BusyCpusLeavesOutThisProcess) {
  const double before = busy_cpus(0.2);
  if (before < 0 || before > 0.3) GTEST_SKIP() << "the machine is busy (" << before << " CPUs): nothing to compare";
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  const double during = busy_cpus(0.3);
  stop = true;
  spinner.join();
  EXPECT_LT(during, 0.4) << "this process's own spinning thread was counted";
}

TEST(SummaryLine, NamesScalePlacementValidationTepsSpreadAndJson) {
  RunResult r;
  r.spec.scale = 20;
  r.placement.tier = &kOutOfCore;
  r.runs = {{&kBfsKernel, {{1, 0.1, 10, 0.0, true}, {2, 0.1, 10, 0.0, true}}}};
  r.statistics = {{"bfs_min_TEPS", 0.9e9}, {"bfs_max_TEPS", 2.0e9}, {"bfs_harmonic_mean_TEPS", 1.234e9}};
  EXPECT_EQ(summary_line(r, "r.json"),
            "summary: SCALE 20, out-of-core, 2 of 2 searches validated, 1.23 GTEPS harmonic mean (min 0.9, max 2), "
            "JSON in r.json");
  r.measurement_warnings = {"busy"};
  EXPECT_NE(summary_line(r, "").find("no JSON (--json FILE); warning: busy"), std::string::npos);
  r.validate = false;
  EXPECT_NE(summary_line(r, "").find("2 searches NOT validated"), std::string::npos);
}

// A kernel the report has never heard of: its searches go under its JSON name with its figures as they are, its
// settings at the top, and the summary line names it -- no formatting code knows a kernel.
TEST(Json, AnyKernelsSearchesFiguresAndSettings) {
  static constexpr KernelInfo kTestKernel{"test", "Test", "kernel 9", "test search", "test_searches", false, "--debug-corrupt-test", "testing"};
  RunResult r;
  r.spec.scale = 10;
  r.placement.tier = &kInCore;
  r.kernels = KernelSet{0};  // none of the registered kernels
  SearchRecord s{3, 0.5, 100, 0.1, true};
  s.facts.add("widgets", uint64_t(7));
  s.facts.add("mean", 0.25);
  s.facts.add("hash", Hash64{0xab});
  r.runs = {{&kTestKernel, {s}}};
  r.runs[0].settings.add("test_knob", 2.0);
  r.statistics = {{"test_harmonic_mean_TEPS", 2e8}, {"test_min_TEPS", 2e8}, {"test_max_TEPS", 2e8}};
  const nlohmann::json j = to_json(r);
  ASSERT_EQ(j["test_searches"].size(), 1u);
  EXPECT_EQ(j["test_searches"][0]["root"], 3);
  EXPECT_EQ(j["test_searches"][0]["nedge"], 100);
  EXPECT_EQ(j["test_searches"][0]["widgets"], 7);
  EXPECT_EQ(j["test_searches"][0]["mean"], 0.25);
  EXPECT_EQ(j["test_searches"][0]["hash"], "0x00000000000000ab");
  EXPECT_EQ(j["test_knob"], 2.0);
  EXPECT_EQ(j["searches"], nlohmann::json::array()) << "kernel 2's list is there, empty, when it did not run";
  EXPECT_NE(summary_line(r, "").find("1 of 1 searches validated, Test 0.2 GTEPS"), std::string::npos)
      << summary_line(r, "");
}

// Counts in messages and the validation line: "es" after a sibilant ("2 passes", "3 searches"), else "s".
TEST(Units, CountOfPluralNouns) {
  EXPECT_EQ(count_of(1, "pass"), "1 pass");
  EXPECT_EQ(count_of(2, "pass"), "2 passes");
  EXPECT_EQ(count_of(3, "search"), "3 searches");
  EXPECT_EQ(count_of(0, "byte"), "0 bytes");
  EXPECT_EQ(count_of(2, "deep tree"), "2 deep trees");
  EXPECT_EQ(plural_of("SSSP search"), "SSSP searches");
}

TEST(Progress, EtaFromTheRateSoFar) {
  EXPECT_EQ(eta_text(10, 100, 1.0), "");   // too early to say
  EXPECT_EQ(eta_text(0, 100, 60.0), "");   // no rate yet
  EXPECT_EQ(eta_text(25, 100, 30.0), "30s, ETA 1m30s");
  EXPECT_EQ(eta_text(1, 4, 1200.0), "20m00s, ETA 1h00m");
  EXPECT_EQ(eta_text(100, 100, 75.0), "1m15s");
}

}  // namespace
}  // namespace strata
