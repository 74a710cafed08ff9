// PNG plots drawn by gnuplot (Debian's gnuplot-nox), driven by a generated script: strata writes the data
// and the script, gnuplot renders. Without gnuplot a plot is skipped with a warning; data files still exist.
#pragma once
#include <string>

namespace strata {

// Renders `script` (gnuplot commands; "$data" names the data file, "$png" the output) with `data` as the
// data file. Returns false, after a one-line warning, when gnuplot is missing or fails; throws Error when
// gnuplot ran but wrote no PNG.
bool plot_png(const std::string& png, const std::string& script, const std::string& data);

}  // namespace strata
