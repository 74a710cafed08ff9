// Where a validation against the on-disk CSR spends its time (JSON validation_csr_phase_seconds), kept apart
// from the validator so that the run's result can carry it without the validator's headers.
#pragma once

namespace strata {

// Seconds: spilling each search (the translation check, its parents and levels written), rule 1's tree walk,
// loading a pass's level rows (nedge and the tail's rule 5 counted as they go), waiting for a pass's reads
// (adjacency and parents), checking a pass's entries and blocks (rules 3-5).
struct CsrPassPhases {
  double spill = 0, tree = 0, rows = 0, read_wait = 0, check = 0;
};

}  // namespace strata
