// What a Graph500 run is asked (RunConfig) and what it returns (RunResult: the searches, their validation, the
// statistics, the placement and DRAM accounts) -- the typed contract between the drivers (driver/, cluster/)
// and the front end that formats it (apps/).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bfs/graph_search.hpp"
#include "core/search_facts.hpp"
#include "engine/memory.hpp"
#include "engine/prepare.hpp"
#include "generators/kronecker.hpp"
#include "sssp/delta_stepping.hpp"
#include "validate/pass_phases.hpp"

namespace strata {

struct Verdict;  // validate/validator.hpp

// What validation checks the searches against: the input tuples (one pass per batch of searches), or kernel
// 1's CSR: in-core certified equal to the tuples in one pass (validate/csr_validator.hpp); out-of-core and DAX
// the on-disk CSR, one sequential pass per spilled batch, not certified (validate/csr_pass_validator.hpp).
enum class ValidationMethod { kAuto, kTuples, kCsr };
const char* validation_method_name(ValidationMethod m);
std::optional<ValidationMethod> validation_method_from_name(const std::string& name);  // nullopt if unknown

struct ValidationReport {
  ValidationMethod method = ValidationMethod::kTuples;
  int tuple_passes = 0;         // passes over the tuples (the certificate is one)
  double certificate_time = 0;  // seconds certifying the CSR (kCsr in-core)
  double time = 0;              // seconds checking searches, the certificate excluded
  // kCsr tiered: passes over the on-disk CSR (not certified against the tuples), the scratch disk the spilled
  // searches took, whether the edge cache's DRAM was lent to the passes and how long reloading it took.
  int csr_passes = 0;
  uint64_t spill_bytes = 0;
  bool lent_cache = false;
  double cache_reload_time = 0;
  CsrPassPhases csr_phases;  // kernel 2's passes
};

struct RunConfig;

// A Graph500 kernel as its results are reported.
struct KernelInfo {
  const char* name;    // --kernel, the statistics' prefix (bfs_...), the JSON's "kernel"
  const char* title;   // for people: the summary line
  const char* phase;   // its progress label: the Graph500 spec's name for it
  const char* search;  // one of its searches in a message ("validation failed for SSSP search 3")
  const char* json;    // the JSON's array of its searches
  bool weighted;       // its lists carry kernel 3's float32 weights (kernel 1 builds them for it)
  // Testing: the flag that plants the kernel's own fault in one search's result after it is timed (its
  // validation must then fail the run), and its help.
  const char* fault_flag;
  const char* fault_help;
  // Its settings from the run's options, as JSON keys at the top of the result (null: none).
  SearchFacts (*settings)(const RunConfig&) = nullptr;
};
SearchFacts sssp_settings(const RunConfig& cfg);  // sssp_delta
inline constexpr KernelInfo
    kBfsKernel{"bfs", "BFS", "kernel 2", "search", "searches", false, "--debug-corrupt-search",
               "testing: corrupt search K's result after timing it (the run must then fail validation)"},
    kSsspKernel{"sssp", "SSSP", "kernel 3", "SSSP search", "sssp_searches", true, "--debug-corrupt-sssp",
                "testing: lengthen one distance in SSSP search K's result after timing it (validation must fail)",
                sssp_settings};
// The Graph500 kernels, in the order the reference runs them (BFS first).
inline constexpr const KernelInfo* kKernels[] = {&kBfsKernel, &kSsspKernel};
inline constexpr size_t kKernelCount = std::size(kKernels);
size_t kernel_index(const KernelInfo& k);  // its place in kKernels

// The Graph500 kernels a run times (--kernel: one kernel's name, or "both", every kernel), in kKernels' order, on
// one graph and the same roots.
struct KernelSet {
  uint32_t bits = 1;  // bit i: kKernels[i] (kernel 2 alone by default)

  bool has(const KernelInfo& k) const;
  const KernelInfo& first() const;  // the first kernel asked
  bool several() const { return (bits & (bits - 1)) != 0; }
  // The lists kernel 1 builds for them: by id (kernel 2's), and with weights (kernel 3's).
  bool id_lists() const;
  bool weighted_lists() const;
  const char* name() const;
  static std::optional<KernelSet> from_name(const std::string& name);  // nullopt if unknown
};

// Kernel 3's bucket width: measured best on this kind of machine at SCALE 22 (bench/README, sssp_delta), 2.4-3x
// faster than the reference's 0.1; any width gives the same distances.
inline constexpr float kDefaultDelta = 0.002f;

// What a run was asked to do.
struct RunConfig {
  KroneckerSpec spec;
  std::string graph_dir;  // empty: generate from spec
  std::string rank_dir;   // MPI out-of-core: where each rank keeps its rows (DIR/mpi-p<P>/rank-<r>); empty: graph_dir
  int roots = 64;
  int threads = 0;        // 0: OpenMP default
  int numa_parts = 0;     // 0: one per NUMA node
  BfsOptions bfs;
  bool validate = true;
  int validate_batch = 0;  // searches per validation pass; 0: as many as kernel 1's peak memory allows
  // kAuto: the CSR in-core; tiered, the on-disk CSR where it takes fewer passes than the tuples, else the tuples
  ValidationMethod validate_against = ValidationMethod::kAuto;
  int id_bytes = 0;         // testing: 8 forces 64-bit ids below SCALE 32; 0: 4 bytes up to SCALE 31, else 8
  KernelSet kernels;
  float delta = kDefaultDelta;  // kernel 3's bucket width

  PlacementSpec place;  // where the graph lives (parts and threads are filled in by the driver)
};

// One search of any kernel: root (input label), seconds, nedge by the reference rule, validation; what it read
// from storage; and the kernel's own figures (BFS: the entries examined; SSSP: the distances' facts), filled by
// the kernel's code as the search ends.
struct SearchRecord {
  uint64_t root;
  double time;
  uint64_t nedge;
  double validate_time;
  bool valid;
  LevelIo io{};
  SearchFacts facts{};
};

// How a kernel checked its searches where that is its own, beside kernel 2's method (ValidationReport): kernel
// 3's rules over its weighted CSR. Its driver fills it; the front end writes it as it is: the validation line's
// clause ("SSSP " + checked_by + ", " + passes) and the JSON keys.
struct KernelValidation {
  std::string checked_by{};  // "by rules R1-R7 and ... over kernel 1's weighted on-disk CSR"; empty: no clause
  std::string passes{};      // "2 passes of up to 3 searches, the edge cache lent to them"; empty: none of its own
  SearchFacts json{};        // e.g. sssp_validate_batch, sssp_validation_passes, sssp_validation_lent_cache
};

// One kernel's part of a run: its searches by root, its own settings as JSON keys (kernel 3's sssp_delta), and
// its own validation's account.
struct KernelRun {
  const KernelInfo* kernel;
  std::vector<SearchRecord> searches{};
  SearchFacts settings{};
  KernelValidation validation{};
};

// MPI: a rank's build of its rows by phase, in seconds (as csr_build_phase_seconds for one process's CSR).
struct RankBuildSeconds {
  double distribute = 0, fill = 0, sort = 0, write = 0;
};

// MPI: one rank's part of the graph and what it used.
struct RankReport {
  int rank = 0;
  std::string host;
  int threads = 0;
  uint64_t first_vertex = 0, end_vertex = 0;  // internal ids [first, end)
  uint64_t directed_edges = 0;                // its rows' entries after deduplication
  uint64_t dram_bytes = 0;                    // its graph, search state and validation arrays
  uint64_t build_bytes_sent = 0;              // kernel 1's tuples sent to other ranks
  uint64_t search_bytes_sent = 0;             // over all timed searches
  // out-of-core: its rows' directory, whether reused, its edge cache and budget, its disk
  std::string rows_dir;
  bool rows_reused = false;
  uint64_t on_mem_edges = 0, edge_cache_bytes = 0, dram_budget = 0, disk_bytes = 0, bytes_read = 0;
  int build_passes = 0;  // ranges built, each from its bucket of the received rows (0: reused)
  uint64_t build_bucket_bytes = 0;  // the received rows as written to its buckets (0: reused)
  RankBuildSeconds build_seconds;   // its build's phases (zeros: reused)
  std::string cache_source;         // its edge cache's: "csr", "build" (the prefixes kept as it wrote its rows), "mapping"
  uint64_t cache_prefixes_written = 0;  // those prefixes' bytes (0: none kept)
};

struct RunResult {
  KroneckerSpec spec;
  std::string graph_dir;
  int threads = 0;
  int parts = 0;
  std::string partitions;  // "[begin,end)@nodeN, ..."
  int numa_nodes = 0;
  BfsOptions bfs;
  bool validate = true;
  int validate_batch = 1;
  ValidationReport validation;
  uint64_t directed_edges = 0;
  int id_bytes = 4;  // vertex ids of this run: 4 up to SCALE 31, else 8
  double generation_time = 0, construction_time = 0;
  KernelSet kernels;
  std::vector<KernelRun> runs;  // each kernel as it ran, in the reference's order (BFS first)
  std::vector<std::pair<std::string, double>> statistics;    // GRAPH500.md section 4, by spec name; empty on failure
  std::string failure;                                        // why validation failed; empty if it did not
  std::vector<std::string> measurement_warnings;
  PlacementReport placement;
  DramAccount dram;
  uint64_t dram_bytes = 0;  // graph + search state + kept results + I/O buffers
  uint64_t io_buffer_bytes = 0;
  bool registered_buffers = false;
  PlacementSpec place;  // as asked (I/O options, memory nodes)
  int mpi_processes = 1;
  std::string mpi_partition;       // MPI: how the vertices were split
  std::vector<RankReport> ranks;   // MPI: by rank (empty in a single-process run)

  bool ok() const { return failure.empty(); }
  // Kernel k's part (result_for adds one for each kernel asked): found, nullptr where the run has none; run, an
  // internal error.
  KernelRun& run(const KernelInfo& k);
  const KernelRun* found(const KernelInfo& k) const;
  // Kernel k's search `index`: its verdict and the seconds it took to check; the first failure becomes the run's.
  void record_verdict(const KernelInfo& k, size_t index, const Verdict& v, double seconds);
  size_t roots() const;
  // Each kernel asked for with its searches (none if it did not get to run), in the reference's order.
  std::vector<std::pair<const KernelInfo*, const std::vector<SearchRecord>*>> timed() const;
  double statistic(const std::string& name) const;  // a statistics value by spec name (0 if absent)
  uint64_t bytes_read() const;
  uint64_t io_requests() const;
};

// A result for `cfg` before it runs: what it was asked (graph, options, placement) and a part for each kernel
// asked, in the reference's order, with the kernel's settings.
RunResult result_for(const RunConfig& cfg);

// Told as the run goes: progress of a phase (label, done, total, detail), and each search's levels (with
// --trace) right after it is timed; and the faults a test plants.
// Faults a test plants into a run to prove that validation catches them (each kernel's fault_flag,
// --debug-corrupt-csr): the run's own data, never its configuration.
struct PlantedFaults {
  // By kernel (kKernels' order): the search whose result gets the kernel's fault after it is timed (kernel 2: a
  // parent cycle; kernel 3: a wrong distance), -1 for none.
  std::array<int, kKernelCount> corrupt_search = [] {
    std::array<int, kKernelCount> none;
    none.fill(-1);
    return none;
  }();
  bool corrupt_csr = false;  // two vertices' labels swapped after kernel 1 (the CSR certificate must refuse)
  bool corrupt_rows = false; // under mpirun, in DRAM: the first root's list names a vertex no rank holds

  bool in(const KernelInfo& k, size_t search) const { return corrupt_search[kernel_index(k)] == int(search); }
};

struct RunHooks {
  std::function<void(const std::string& phase, uint64_t done, uint64_t total, const std::string& detail)> progress;
  std::function<void(const std::string& lines)> trace;  // --trace: a search's lines, as its kernel writes them
  PlantedFaults plant;

  void report(const std::string& phase, uint64_t done, uint64_t total, const std::string& detail = {}) const {
    if (progress) progress(phase, done, total, detail);
  }
};

}  // namespace strata
