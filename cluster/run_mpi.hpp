// The Graph500 driver across MPI ranks (`mpirun -np P strata run ...`): kernel 0 and kernel 1 on each rank's
// share, the reference's roots, each search timed alone across all ranks (the slowest rank's time), every
// search validated across the ranks, and the statistics with num_mpi_processes = P. Every rank returns the
// same RunResult (its `ranks` filled on rank 0); an error on any rank throws there (the caller ends the run).
#pragma once
#include "cluster/comm.hpp"
#include "driver/graph500.hpp"

namespace strata {

// Refuses, before any work, what the distributed run does not do yet (named in the message).
void check_mpi_config(const RunConfig& config, const PlantedFaults& plant, int processes);

RunResult run_graph500_mpi(const RunConfig& config, const RunHooks& hooks, const Comm& comm);

}  // namespace strata
