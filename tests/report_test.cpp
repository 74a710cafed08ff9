// The people-facing parts of a run's report: measurement warnings (disturbed timings are flagged, quiet
// ones are not) and the summary line.
#include <gtest/gtest.h>

#include "apps/report.hpp"

namespace strata {
namespace {

std::vector<SearchRecord> searches(std::initializer_list<std::pair<uint64_t, double>> nedge_time) {
  std::vector<SearchRecord> r;
  for (auto [nedge, time] : nedge_time) r.push_back({1, time, nedge, 0.0, true});
  return r;
}

TEST(MeasurementWarnings, QuietRunHasNone) {
  EXPECT_TRUE(measurement_warnings(searches({{100, 1.0}, {100, 1.5}, {7, 0.001}}), 0.5, 2).empty());
}

TEST(MeasurementWarnings, SpreadOfEqualNedgeSearchesIsFlagged) {
  const auto w = measurement_warnings(searches({{100, 0.01}, {100, 0.3}, {100, 0.02}}), 0.5, 2);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("30x spread"), std::string::npos) << w[0];
  // Different components (different nedge) may legitimately differ by far more.
  EXPECT_TRUE(measurement_warnings(searches({{100, 1.0}, {3, 0.0001}}), 0.5, 2).empty());
}

TEST(MeasurementWarnings, LoadAboveThreadsIsFlagged) {
  const auto w = measurement_warnings(searches({{100, 1.0}}), 3.5, 2);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("load average was 3.50"), std::string::npos) << w[0];
}

TEST(SummaryLine, NamesScalePlacementValidationTepsSpreadAndJson) {
  nlohmann::json run = {{"nbfs", 2},
                        {"scale", 20},
                        {"placement", "out-of-core"},
                        {"validated", true},
                        {"bfs_harmonic_mean_TEPS", 1.234e9},
                        {"bfs_min_TEPS", 0.9e9},
                        {"bfs_max_TEPS", 2.0e9},
                        {"searches", {{{"valid", true}}, {{"valid", true}}}}};
  EXPECT_EQ(summary_line(run, {}, "r.json"),
            "summary: SCALE 20, out-of-core, 2 of 2 searches validated, 1.23 GTEPS harmonic mean (min 0.9, max 2), "
            "JSON in r.json");
  EXPECT_NE(summary_line(run, {"busy"}, "").find("no JSON (--json FILE); warning: busy"), std::string::npos);
}

}  // namespace
}  // namespace strata
