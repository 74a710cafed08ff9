// The Graph500 timing loop, written once for every kernel (GAPBS's BenchmarkKernel is the idea): an untimed
// warm-up from the first root, then each root's search timed alone, recorded with its nedge, and handed back
// to the kernel to check as it ends. A kernel has
//   search(i)          the timed part: root i's search, its output in memory
//   nedge(i)           untimed: the reference's count for the search just run
//   searched(i, more)  untimed: whatever follows a search (traces, validation); more: another search follows
// and, across processes (cluster/run_mpi.cpp), align() before a search starts and slowest(seconds), the time
// every process agrees on. BFS (kernel 2) is graph500.cpp's BfsKernel and run_mpi.cpp's DistBfsKernel; SSSP
// (kernel 3) sssp_searches.hpp's SsspKernel and run_mpi.cpp's DistSsspKernel.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "core/timer.hpp"
#include "driver/run_result.hpp"

namespace strata {

template <class Kernel>
void time_searches(Kernel& kernel, const std::vector<uint64_t>& roots, std::vector<SearchRecord>& records,
                   const RunHooks& hooks, const char* phase) {
  kernel.search(0);  // warm-up, untimed and not reported
  for (size_t i = 0; i < roots.size(); ++i) {
    if constexpr (requires { kernel.align(); }) kernel.align();
    const double s0 = now();
    kernel.search(i);
    double time = now() - s0;
    if constexpr (requires { kernel.slowest(time); }) time = kernel.slowest(time);
    const uint64_t nedge = kernel.nedge(i);
    records.push_back({roots[i], time, nedge, 0.0, false});
    kernel.searched(i, i + 1 < roots.size());
    hooks.report(phase, i + 1, roots.size(), fmt::format("search {} root {}: {:.3g} TEPS", i, roots[i], double(nedge) / time));
  }
}

}  // namespace strata
