// Wall-clock seconds for timings (OpenMP's clock: the one the Graph500 reference uses).
#pragma once
#include <omp.h>

namespace strata {

inline double now() { return omp_get_wtime(); }

}  // namespace strata
