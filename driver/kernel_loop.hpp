// The Graph500 timing loop, written once for every kernel (GAPBS's BenchmarkKernel is the idea): an untimed
// warm-up from the first root, then each root's search timed alone, recorded with its nedge, and handed back
// to the kernel to check as it ends. A kernel has
//   search(i)          the timed part: root i's search, its output in memory
//   nedge(i)           untimed: the reference's count for the search just run
//   searched(i, more)  untimed: whatever follows a search (traces, validation); more: another search follows
// and, across processes (cluster/run_mpi.cpp), align() before a search starts and slowest(seconds), the time
// every process agrees on. BFS (kernel 2) is bfs_searches.hpp's BfsKernel, SSSP (kernel 3) sssp_searches.hpp's
// SsspKernel; under mpirun both are cluster/dist_searches.hpp's DistKernel over their result type.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/timer.hpp"
#include "driver/run_result.hpp"
#include "engine/prepare.hpp"
#include "validate/csr_validator.hpp"

namespace strata {

// What a kernel's run in one process is given (driver/kernels.hpp): the result to fill, the run's options, the
// tuples (its validation's input), the prepared graph, the roots (input labels) and their internal ids, kernel
// 1's CSR where the run validates against it in DRAM (certified once for every kernel), and the hooks.
template <class Id, class Source>
struct KernelContext {
  RunResult& r;
  const RunConfig& cfg;
  const Source& source;
  PlacedGraph<Id>& pg;
  const std::vector<uint64_t>& roots;
  const std::vector<Id>& internal;
  const std::optional<CsrValidator<Id>>& csr;
  const RunHooks& hooks;
};

// What a kernel's searches held, for the run's DRAM account (graph500.cpp's describe): its arrays and what it
// kept beside them (on storage the run counts the larger kernel's: each gives its pages back before the next
// starts), its term of the run's dram_bytes, and its I/O buffers.
struct KernelFootprint {
  uint64_t state = 0;
  uint64_t accounted = 0;
  uint64_t io_buffers = 0;
  bool registered_buffers = false;
};

// A list of kernels in the order a run takes them (driver/kernels.hpp's for one process, cluster/run_mpi.cpp's
// across ranks): fn(K{}) for each kernel K of the list that `asked` holds.
template <class... K>
struct KernelList {};
template <class Fn, class... K>
void for_each_kernel_in(KernelList<K...>, const KernelSet& asked, Fn&& fn) {
  ((asked.has(K::kInfo) ? fn(K{}) : void()), ...);
}
// Whether a driver's list holds every kernel of kKernels, in its order: a kernel `--kernel` accepts but a driver
// does not list would be asked and never run (each driver static_asserts it).
template <class... K>
constexpr bool lists_every_kernel(KernelList<K...>) {
  size_t i = 0;
  return sizeof...(K) == kKernelCount && ((&K::kInfo == kKernels[i++]) && ...);
}

template <class Kernel>
void time_searches(Kernel& kernel, const std::vector<uint64_t>& roots, KernelRun& run, const RunHooks& hooks) {
  std::vector<SearchRecord>& records = run.searches;
  const char* phase = run.kernel->phase;
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
