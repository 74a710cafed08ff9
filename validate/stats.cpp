#include "validate/stats.hpp"

#include <algorithm>
#include <cmath>

namespace strata {

Summary summarize(std::vector<double> x) {
  const size_t n = x.size();
  Summary s{};
  if (n == 0) return s;
  double sum = 0;
  for (double v : x) sum += v;
  s.mean = sum / double(n);
  double sq = 0;
  for (double v : x) sq += (v - s.mean) * (v - s.mean);
  s.stddev = n > 1 ? std::sqrt(sq / double(n - 1)) : 0.0;
  std::sort(x.begin(), x.end());
  s.min = x[0];
  s.firstquartile = (x[(n - 1) / 4] + x[n / 4]) / 2;
  s.median = (x[(n - 1) / 2] + x[n / 2]) / 2;
  s.thirdquartile = (x[n - 1 - (n - 1) / 4] + x[n - 1 - n / 4]) / 2;
  s.max = x[n - 1];
  return s;
}

TepsSummary summarize_teps(const std::vector<double>& time, const std::vector<double>& nedge) {
  std::vector<double> k(time.size());
  for (size_t i = 0; i < k.size(); ++i) k[i] = time[i] / nedge[i];
  const Summary s = summarize(k);
  const double n = double(k.size());
  TepsSummary t;
  t.min = 1 / s.max;
  t.firstquartile = 1 / s.thirdquartile;
  t.median = 1 / s.median;
  t.thirdquartile = 1 / s.firstquartile;
  t.max = 1 / s.min;
  t.harmonic_mean = 1 / s.mean;
  t.harmonic_stddev = n > 1 ? s.stddev / (s.mean * s.mean * std::sqrt(n - 1)) : 0.0;
  return t;
}

}  // namespace strata
