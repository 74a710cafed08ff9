// Graph500 statistics (GRAPH500.md section 4): order statistics, mean, sample standard deviation, and the
// TEPS figures computed on time/nedge so that the mean becomes the harmonic mean of TEPS.
#pragma once
#include <vector>

namespace strata {

struct Summary {
  double min, firstquartile, median, thirdquartile, max, mean, stddev;
};

Summary summarize(std::vector<double> x);

struct TepsSummary {
  double min, firstquartile, median, thirdquartile, max, harmonic_mean, harmonic_stddev;
};

TepsSummary summarize_teps(const std::vector<double>& time, const std::vector<double>& nedge);

}  // namespace strata
