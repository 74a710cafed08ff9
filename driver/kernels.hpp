// The Graph500 kernels one process runs, by registration: each is a type with its KernelInfo (kInfo), a check
// of the run's options made before any work (check), and its run over the prepared graph (run: its search made,
// its searches timed by time_searches and validated, what it held returned). graph500.cpp runs those asked, in
// this order (the reference's: BFS, then SSSP), on one graph and the same roots. Adding a kernel here registers
// it with the one-process loop.
#pragma once
#include <utility>

#include "driver/bfs_searches.hpp"
#include "driver/kernel_loop.hpp"
#include "driver/run_result.hpp"
#include "driver/sssp_searches.hpp"

namespace strata {

using Graph500Kernels = KernelList<BfsSearches, SsspSearches>;
static_assert(lists_every_kernel(Graph500Kernels{}), "driver/kernels.hpp lists every kernel of kKernels, in its order");

template <class Fn>
void for_each_kernel(const KernelSet& asked, Fn&& fn) {
  for_each_kernel_in(Graph500Kernels{}, asked, std::forward<Fn>(fn));
}

}  // namespace strata
