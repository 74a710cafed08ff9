// DRAM accounting, one model for every figure a run reports or refuses by: what this process may use
// (MemAvailable, capped by every cgroup limit above it and by its own ulimits), what an in-core run peaks at, an
// out-of-core or DAX run's O(N) state, I/O buffers and edge-cache budget, and the search state of the driver.
#pragma once
#include <cstdint>
#include <string>

#include "generators/kronecker.hpp"
#include "storage/uring_reader.hpp"

namespace strata {

// What this process may still take: MemAvailable, capped by the room under every cgroup limit above it and under
// its own address-space and data limits (ulimit -v, -d).
uint64_t available_memory_bytes();
// What the node's processes may still take together: the same without this process's own limits (the ranks of a
// node share its memory, each under its own ulimit).
uint64_t node_memory_bytes();
// "<bytes> available", naming the limit that binds where one binds below the machine's memory: every refusal
// for memory says it this way.
std::string available_words(uint64_t bytes);

// Kernel 1's in-core list bounds, bytes a vertex: 32-bit while the pre-dedup entries fit them (build_csr).
inline uint64_t build_bound_bytes(uint64_t raw_entries) { return raw_entries <= UINT32_MAX ? 4 : 8; }

// Peak of kernel 1 (pre-dedup adjacency, list bounds, relabel map) or of the search with its validation (a batch
// of kept results, or the CSR validator), whichever is larger.
uint64_t in_core_bytes(const KroneckerSpec& spec, int id_bytes, int validate_batch, bool against_csr = false,
                       bool weighted = false);

// Validation against the CSR of n vertices and `entries` adjacency entries: the inverse label map and, while
// certifying, a count per vertex and a bit per entry, or, while checking a search, levels by internal id.
uint64_t csr_validation_bytes(uint64_t n, uint64_t entries, int id_bytes);

// O(N) DRAM of an out-of-core or DAX run besides its budget, before its graph is loaded: offsets, labels,
// duplicate counts, the edge cache's index (a base per 64 vertices), and tiered_search_bytes. A lower bound
// (offsets at their 2 bytes a vertex; the hubs' take 4): a run that cannot fit it is refused before its CSR
// is built, and checked again with the exact figure once the CSR's metadata is loaded.
uint64_t tiered_state_bytes(uint64_t n, int id_bytes, bool sssp = false);
// The search's part: the internal and the output parent arrays (validation's levels reuse the internal one
// between searches), and four bitmaps: frontier, next frontier, tails to read, tree edges seen (validation).
// Kernel 3 (sssp): its search's state and output, its bitmaps (tails to read and done, far vertices, a round's
// order), validation's confirmed bits.
uint64_t tiered_search_bytes(uint64_t n, int id_bytes, bool sssp = false);

// The on-disk CSR build's O(N) besides its scratch (engine/build_csr_files.hpp): labels, 64-bit raw offsets and
// duplicate counts while it scatters, labels both ways and duplicate counts at the end (13 bytes a vertex with
// 32-bit ids, below the search's state: the rest of the state's allowance becomes build scratch).
uint64_t tiered_build_state_bytes(uint64_t n, int id_bytes);

// The out-of-core reads' buffers: threads x depth x request size.
uint64_t io_buffer_bytes(int threads, const IoOptions& io);

// The search's own arrays (the internal parent array, three bitmaps) and `kept` results (output parent
// arrays: at least the one being written), besides the graph.
uint64_t search_state_bytes(uint64_t n, int id_bytes, int kept);
// Beside kernel 3's search state: a float a vertex the driver lays the distances out in by input label (then
// the validator's levels), and validation's confirmed bits.
inline uint64_t sssp_beside_state_bytes(uint64_t n) { return n * 4 + (n + 63) / 64 * 8; }
// Kernel 3's search: a 64-bit (distance, parent) word a vertex, which is its result too, and what is beside it.
inline uint64_t sssp_search_bytes(uint64_t n) { return n * 8 + sssp_beside_state_bytes(n); }

// A packed validation batch of `slots` searches (validate/validator.hpp's BatchValidator::batch_bytes).
uint64_t validation_batch_bytes(uint64_t n, int id_bytes, int slots);

// Searches one validation pass can pack (each a parent array, byte levels and a bitmap) in the memory
// that kernel 1's peak -- the pre-dedup adjacency of raw_entries, offsets, relabel map -- proved available
// beyond the graph (graph_bytes) and the search: at least 1 (checked in place), at most roots.
int validation_batch_within_build_peak(uint64_t n, int id_bytes, uint64_t raw_entries, uint64_t graph_bytes, int roots);
// The largest packed batch (at least 1, at most roots) whose validation_batch_bytes fit in `room`.
int validation_slots_within(uint64_t n, int id_bytes, uint64_t room, int roots);

// Every DRAM figure of a prepared graph (bytes).
struct DramAccount {
  uint64_t available = 0;      // what the process could use when the run started
  uint64_t graph = 0;          // what kernel 1 left in DRAM: in-core the CSR; tiered the O(N) arrays + cache
  uint64_t edge_cache = 0;     // tiered: the cached prefixes
  uint64_t state = 0;          // tiered: the O(N) state (tiered_state_bytes; once loaded, what is allocated)
  uint64_t io_buffers = 0;     // out-of-core
  uint64_t stream_buffers = 0; // tiered: a pass over the tuples (validation), per thread
  uint64_t budget = 0;         // tiered: edge cache + I/O buffers allowed
  uint64_t build_scratch = 0;  // tiered: scratch of the on-disk CSR build (0 when reused)
  uint64_t validation_batch = 0;  // a packed batch of searches checked in one pass over the tuples
};

// The budget of a tiered run (out-of-core: default half of what is free beyond the state; DAX: none unless
// asked), refused with the numbers when it is below the I/O buffers or with the state exceeds what is
// available. `placement` names the run in messages; `stream`, the tuple stream's buffers, is held like the state.
uint64_t tiered_budget(uint64_t requested, bool dax, uint64_t state, uint64_t io, uint64_t available, int threads,
                       const IoOptions& opt, const char* placement, int scale, uint64_t stream = 0);

// Refuses an explicit --on-mem-edges K whose cache (`cache` bytes) exceeds the budget, or with the state and
// buffers what is available.
void check_cache_fits(uint64_t k, uint64_t cache, uint64_t io, uint64_t budget, bool budget_given, uint64_t state,
                      uint64_t available);

}  // namespace strata
