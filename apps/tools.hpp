// `strata compare` and `strata tune`: runs of one graph under several settings, one table or CSV, a plot.
#pragma once
#include <string>
#include <vector>

#include "driver/graph500.hpp"

namespace strata {

struct CompareConfig {
  RunConfig run;                       // graph, roots, threads, ... (placement and budget set per placement)
  std::vector<const Tier*> placements;  // --placements, by name
  std::string json_path, plot_path;
};
int run_compare(const CompareConfig& cfg);

struct TuneConfig {
  RunConfig run;       // graph, roots, placement (out-of-core or dax), dram_budget = the sweep's maximum
  int steps = 5;       // budget fractions 1/steps .. 1, besides K = 0, 1, 2, 4, 8, 16
  std::string csv_path, plot_path;
};
int run_tune(const TuneConfig& cfg);

}  // namespace strata
