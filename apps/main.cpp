// strata: Graph500 BFS and SSSP across the memory hierarchy. Subcommands: generate, info, run, compare, tune.
#include <fmt/format.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>
#include <sstream>
#include <span>
#include <vector>

#include "apps/progress.hpp"
#include "apps/report.hpp"
#include "apps/tools.hpp"
#include "apps/version.hpp"
#include "generators/edge_digest.hpp"
#include "generators/kronecker.hpp"
#include "storage/atomic_dir.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "tiers/tier_ops.hpp"
#include "storage/graph_dir.hpp"
#include "storage/uring_reader.hpp"
#if STRATA_WITH_MPI
#include "cluster/run_mpi.hpp"
#endif

namespace strata {
namespace {

// What an exception that is not an Error says to the user: the standard library's own words name no cause.
std::string words_of(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of memory (the machine's memory, a cgroup limit, or this process's ulimit -v or -d)";
  if (const auto* s = dynamic_cast<const std::system_error*>(&e); s && s->code() == std::errc::resource_unavailable_try_again)
    return std::string("cannot start a thread: ") + s->code().message() +
           " (a limit on processes or memory: ulimit -u, ulimit -v, a cgroup, or the machine's memory)";
  return e.what();
}

// An output file (--json, --csv, --plot) checked before any work: writable, and not a file of a graph or CSR
// directory (`--json DIR/graph.hdr` replaced the graph's header with the results, and the graph was lost).
void check_result_file(const std::string& path, const std::string& flag) {
  check_output_file(path, flag);
  const std::filesystem::path target(follow_links(path));
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".", name = target.filename().string();
  if ((GraphDir::is_own_file(name) && path_exists(dir + "/" + GraphDir::kHeaderFile)) ||
      (CsrFiles::is_own_file(name) && path_exists(dir + "/" + CsrFiles::kHeaderFile)))
    throw Error(fmt::format("{} {}: a file of the Strata directory {}, not replaced; choose another path", flag, path, dir));
}

#if STRATA_WITH_MPI
// Started by mpirun: the world's communicator, and whether every rank has agreed that its command line is
// good. Before that agreement a refusal is said as one process says it (by the lowest rank that refuses, without
// its rank when that is rank 0); after it, an error on one rank ends them all, naming the rank (Comm::fail).
const Comm* mpi_comm = nullptr;
bool mpi_agreed = false;
void mpi_agree(const std::string& error) {
  mpi_comm->agree(error, /*name_rank=*/false);
  mpi_agreed = true;
}
#endif

// The testing flags (--debug-*), left out of --help. CLI11 hides an option whose group is empty, but then also
// leaves its name out of its errors ("Could not convert:  = x"), so they form a named group that help skips.
constexpr const char* kTestingGroup = "Testing";
class HelpWithoutTesting : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    return group == kTestingGroup ? std::string() : CLI::Formatter::make_group(group, is_positional, opts);
  }
};

// This process's rank under mpirun; -1 otherwise.
int mpi_rank() {
#if STRATA_WITH_MPI
  if (mpi_comm) return mpi_comm->rank();
#endif
  return -1;
}

// Flag checks with one-line messages (CLI11's own print the double range, 309 digits, and accept nan).
const CLI::Validator kPositive(
    [](std::string& text) -> std::string {
      char* end = nullptr;
      const double x = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !std::isfinite(x) || x <= 0) return "'" + text + "' is not a positive number";
      return "";
    },
    "POSITIVE");
bool all_digits(const std::string& text) { return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos; }
// Integers up to 2^63 - 1 (what every count option is stored in); a larger one was taken as the largest.
bool fits_int64(const std::string& digits) {
  const std::string max = "9223372036854775807";
  const std::string t = digits.substr(std::min(digits.find_first_not_of('0'), digits.size()));
  return t.size() < max.size() || (t.size() == max.size() && t <= max);
}
const CLI::Validator kUnsigned(
    [](std::string& text) -> std::string {
      if (!all_digits(text)) return "'" + text + "' is not a non-negative integer";
      if (!fits_int64(text)) return "'" + text + "' is too large (at most 9223372036854775807)";
      return "";
    },
    "UINT");
const CLI::Validator kPositiveInteger(
    [](std::string& text) -> std::string {
      if (!all_digits(text) || text.find_first_not_of('0') == std::string::npos) return "'" + text + "' is not a positive integer";
      return fits_int64(text) ? "" : "'" + text + "' is too large (at most 9223372036854775807)";
    },
    "N>0");

struct SpecFlags {
  int scale = 16;
  uint64_t edgefactor = 16;
  std::string seed = "2,3";
};

void add_spec_flags(CLI::App* cmd, SpecFlags& f, bool scale_required) {
  auto* s = cmd->add_option("--scale,-s", f.scale, "log2 of the vertex count (1..40)")->check(kUnsigned);
  if (scale_required) s->required();
  else s->capture_default_str();
  cmd->add_option("--edgefactor,-e", f.edgefactor, "edge tuples per vertex")->capture_default_str()->check(kUnsigned);
  cmd->add_option("--seed", f.seed, "the two 64-bit generator seeds, as A,B")->capture_default_str();
}

uint64_t parse_u64(const std::string& text, const std::string& what) {
  size_t used = 0;
  uint64_t x = 0;
  try {
    if (text.empty() || text[0] == '-') throw std::invalid_argument(text);
    x = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw Error(fmt::format("malformed {} '{}': expected an unsigned 64-bit integer", what, text));
  return x;
}

// "4G", "512M", "64k", "1.5G", "123456": binary multiples (K = 1024), an optional trailing "B"/"iB".
uint64_t parse_bytes(const std::string& text, const std::string& what) {
  std::string t = text;
  if (t.size() > 2 && (t.ends_with("iB") || t.ends_with("ib"))) t.resize(t.size() - 2);
  else if (t.size() > 1 && (t.back() == 'B' || t.back() == 'b')) t.pop_back();
  uint64_t mult = 1;
  if (!t.empty()) {
    switch (t.back()) {
      case 'k': case 'K': mult = uint64_t(1) << 10; break;
      case 'm': case 'M': mult = uint64_t(1) << 20; break;
      case 'g': case 'G': mult = uint64_t(1) << 30; break;
      case 't': case 'T': mult = uint64_t(1) << 40; break;
    }
    if (mult != 1) t.pop_back();
  }
  size_t used = 0;
  double x = -1;
  try {
    if (!t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.')) x = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != t.size() || x < 0 || x * double(mult) >= 1.8e19)
    throw Error(fmt::format("malformed {} '{}': expected a byte count such as 512M, 4G or 1073741824", what, text));
  return uint64_t(x * double(mult));
}

// "a,b,c" -> {"a", "b", "c"}; "" -> {}.
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    items.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return items;
}

// "2", "2,3", "1-3,5": NUMA node ids.
std::vector<int> parse_node_list(const std::string& text) {
  std::vector<int> nodes;
  for (const std::string& item : split_commas(text)) {
    const size_t dash = item.find('-');
    const uint64_t lo = parse_u64(item.substr(0, dash), "--mem-nodes");
    const uint64_t hi = dash == std::string::npos ? lo : parse_u64(item.substr(dash + 1), "--mem-nodes");
    if (hi < lo || hi > 4095) throw Error("malformed --mem-nodes '" + text + "'");
    for (uint64_t n = lo; n <= hi; ++n) nodes.push_back(int(n));
  }
  return nodes;
}

KroneckerSpec make_spec(const SpecFlags& f) {
  const size_t comma = f.seed.find(',');
  if (comma == std::string::npos || f.seed.find(',', comma + 1) != std::string::npos)
    throw Error(fmt::format("malformed --seed '{}': expected two integers A,B", f.seed));
  KroneckerSpec spec{f.scale, f.edgefactor, parse_u64(f.seed.substr(0, comma), "seed"),
                     parse_u64(f.seed.substr(comma + 1), "seed")};
  if (std::string why = spec.check(); !why.empty()) throw Error(why);
  return spec;
}

int cmd_generate(const SpecFlags& flags, const std::string& out, bool checksum, bool force, bool no_tuples) {
  const KroneckerSpec spec = make_spec(flags);
  if (out.empty() && !checksum) throw Error("generate needs --out DIR or --checksum");
  if (no_tuples && out.empty()) throw Error("--no-tuples describes a graph directory: it needs --out DIR");
  if (force && out.empty()) throw Error("--force replaces the directory --out names: it needs --out DIR");
  Kronecker gen(spec);
  if (checksum) {
    Progress progress("generating");
    const EdgeListDigest d = digest_edge_list(gen, [&](uint64_t done, uint64_t total) { progress.update(done, total); });
    std::printf("edges: %llu\nself_loops: %llu\nfnv1a64: 0x%016llx\n", (unsigned long long)d.edges,
                (unsigned long long)d.self_loops, (unsigned long long)d.fnv1a64);
  }
  if (!out.empty()) {
    const std::string target = follow_links(out);  // a link to a graph directory: the directory is replaced
    if (const int removed = remove_unfinished_builds(target))
      std::fprintf(stderr, "strata: note: cleared %d unfinished write(s) of %s left by an interrupted generate\n",
                   removed, out.c_str());
    const double t0 = omp_get_wtime();
    {
      Progress progress("writing " + out);
      write_graph_dir(gen, target, force, [&](uint64_t done, uint64_t total) { progress.update(done, total); }, !no_tuples);
    }
    if (no_tuples)
      std::fprintf(stderr, "wrote %s: SCALE %d, the spec alone (its %llu tuples are regenerated by every pass)\n",
                   out.c_str(), spec.scale, (unsigned long long)spec.edge_count());
    else
      std::fprintf(stderr, "wrote %s: SCALE %d, %llu edges in %.2f s\n", out.c_str(), spec.scale,
                   (unsigned long long)spec.edge_count(), omp_get_wtime() - t0);
  }
  return 0;
}

// One line for each CSR built in the graph directory (kernel 1's for the tiers on storage, a rank's rows under
// mpirun), after reading it whole against its checksums; a damaged one ends the listing with its error.
void info_csrs(const GraphDir& g) {
  const std::vector<std::string> found = CsrFiles::find_in(g.path());
  if (found.empty()) std::printf("csr: none built (a run with --placement out-of-core or dax builds one)\n");
  for (const std::string& name : found) {
    const std::string path = g.path() + "/" + name;
    try {
      const CsrFiles files = CsrFiles::open(path, g.header_hash(), g.spec().scale);
      {
        Progress progress("checking " + name);
        files.verify([&](uint64_t done, uint64_t total) { progress.update(done, total); });
      }
      const CsrLayout& L = files.layout();
      uint64_t bytes = L.meta_bytes();
      for (int p = 0; p < L.parts(); ++p) bytes += L.adj_file_bytes(p);
      const std::string entries = L.weighted ? fmt::format("kernel 3's ({}-byte id, float weight) pairs", L.id_bytes)
                                             : fmt::format("kernel 2's {}-byte ids", L.id_bytes);
      std::printf("csr %s: %s, %d partition%s, %llu vertices, %llu entries, %llu bytes, built in %.2f s, checksums: ok\n",
                  name.c_str(), entries.c_str(), L.parts(), L.parts() == 1 ? "" : "s", (unsigned long long)L.n,
                  (unsigned long long)L.entries, (unsigned long long)bytes, L.build_seconds);
    } catch (const Error& e) {
      throw with_rebuild_hint(e, path);
    }
  }
}

int cmd_info(const std::string& dir) {
  const GraphDir g = GraphDir::open(dir);
  const KroneckerSpec& s = g.spec();
  std::printf("graph: %s\nformat: strata edge list, version 1\nSCALE: %d\nedgefactor: %llu\nseed: %llu,%llu\n"
              "vertices: %llu\nedges: %llu\nid_bytes: %d\ntuples: %s\ndata_bytes: %llu\nblocks: %llu\n",
              dir.c_str(), s.scale, (unsigned long long)s.edgefactor, (unsigned long long)s.seed1,
              (unsigned long long)s.seed2, (unsigned long long)s.vertex_count(), (unsigned long long)g.edge_count(),
              g.id_bytes(), g.stores_tuples() ? "stored" : "regenerated (the spec alone)", (unsigned long long)g.data_bytes(),
              (unsigned long long)(g.stores_tuples() ? g.block_count() : 0));
  if (!g.stores_tuples()) {
    std::printf("checksums: ok (header; no tuples stored)\n");
  } else {
    {
      Progress progress("checking");
      g.verify([&](uint64_t done, uint64_t total) { progress.update(done, total); });
    }
    std::printf("checksums: ok\n");
  }
  info_csrs(g);
  return 0;
}

#if STRATA_WITH_MPI
// `mpirun -np P strata run`: every rank runs the distributed driver once all have accepted their command line;
// from then on an error on any rank ends them all, in one agreed ending (Comm::fail).
RunResult run_mpi(const RunConfig& cfg, const RunHooks& hooks, const Comm& comm) {
  check_mpi_config(cfg, hooks.plant, comm.size());
  mpi_agree({});
  try {
    return run_graph500_mpi(cfg, hooks, comm);
  } catch (const std::exception& e) {
    comm.fail(words_of(e));
  }
}
#endif

// `strata run`: the driver with progress and traces on the terminal, then the JSON, the block and the summary
// (under mpirun, rank 0 alone prints them).
int cmd_run(const RunConfig& cfg, const PlantedFaults& plant, const std::string& json_path) {
  std::optional<RunResult> result;
  bool prints = true;
  {
    Progress progress("kernel 1");
    RunHooks hooks;
    hooks.plant = plant;
    hooks.progress = [&](const std::string& phase, uint64_t done, uint64_t total, const std::string& detail) {
      progress.set_label(phase);
      progress.update(done, total, detail);
    };
    hooks.trace = [](const std::string& lines) { std::fputs(lines.c_str(), stderr); };
#if STRATA_WITH_MPI
    if (mpi_comm) {
      prints = mpi_comm->root();
      result = run_mpi(cfg, hooks, *mpi_comm);
    } else
#endif
      result = run_graph500(cfg, hooks);
  }
  if (!prints) return result->ok() ? 0 : 1;
  const RunResult& r = *result;
  if (!json_path.empty()) write_json_file(json_path, to_json(r));  // before the block: a failed write is no result
  std::fputs(format_run(r, json_path).c_str(), stdout);
  if (r.ok()) return 0;
  std::fprintf(stderr, "strata: error: %s\n", r.failure.c_str());
  return 1;
}

// Each subcommand: the flags CLI11 fills, the function that declares them, and the one that checks them into
// a config and runs it.
struct GenerateFlags {
  SpecFlags spec;
  std::string out;
  bool checksum = false, force = false, no_tuples = false;
};

CLI::App* add_generate(CLI::App& app, GenerateFlags& f) {
  auto* gen = app.add_subcommand("generate", "generate a Kronecker edge list (Graph500 kernel 0)");
  add_spec_flags(gen, f.spec, true);
  gen->add_option("--out,-o", f.out, "write a graph directory here");
  gen->add_flag("--checksum", f.checksum, "store nothing; print edges, self_loops and fnv1a64 of the list");
  gen->add_flag("--force", f.force, "replace an existing graph directory");
  gen->add_flag("--no-tuples", f.no_tuples,
                "store the spec alone, not the tuple file: every pass regenerates the tuples (CPU instead of disk)");
  return gen;
}

// --kernel of compare and tune (run words its help its own way), and its check for all three.
void add_kernel_flag(CLI::App* cmd, std::string& kernel) {
  cmd->add_option("--kernel", kernel, "bfs (kernel 2), sssp (kernel 3) or both")->capture_default_str();
}
KernelSet kernel_set(const std::string& name) {
  const auto kernels = KernelSet::from_name(name);
  if (!kernels) throw Error(fmt::format("unknown --kernel '{}': expected bfs, sssp or both", name));
  return *kernels;
}

struct RunFlags {
  SpecFlags spec;
  RunConfig cfg;
  PlantedFaults plant;  // --debug-corrupt-*
  std::string numa = "auto", validate_against = "auto", json_path, fault_plan, kernel = "bfs";
  std::string placement = "in-core", dram_budget, io_request = "128K", io_merge_gap = "16K", mem_nodes;
  bool no_validate = false, td_only = false, bu_only = false;
};

// What the run does: the graph, the roots, the search, its validation, the output.
CLI::App* add_run(CLI::App& app, RunFlags& f) {
  auto* run = app.add_subcommand("run", "a Graph500 run (BFS, SSSP or both): construction, searches, validation, statistics");
  add_spec_flags(run, f.spec, false);
  run->add_option("--kernel", f.kernel,
                  "bfs (kernel 2), sssp (kernel 3: float32 shortest paths) or both, on one graph and the same roots")
      ->capture_default_str();
  run->add_option("--delta", f.cfg.delta, "kernel 3's delta-stepping bucket width (the distances do not depend on it)")
      ->capture_default_str()->check(kPositive)  // nan passes CLI11's range: it ran the search and failed validation
      ->check(CLI::Range(1e-5, 1e9));  // narrower: a bucket a 1e-5 of distance, too many
  auto* graph_opt = run->add_option("--graph,-g", f.cfg.graph_dir, "run on a graph directory instead of generating");
  for (const char* spec_flag : {"--scale", "--edgefactor", "--seed"}) graph_opt->excludes(run->get_option(spec_flag));
  run->add_option("--roots", f.cfg.roots, "number of search roots (each kernel searches from the same roots)")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  run->add_option("--threads,-t", f.cfg.threads, "OpenMP threads (default: all; under mpirun, the node's cores shared by its ranks)")
      ->check(CLI::Range(1, 4096));
  run->add_option("--alpha", f.cfg.bfs.alpha, "top-down to bottom-up when frontier edges > unexplored edges / alpha")
      ->capture_default_str()->check(kPositive);
  run->add_option("--beta", f.cfg.bfs.beta, "bottom-up to top-down when the frontier < vertices / beta")
      ->capture_default_str()->check(kPositive);
  run->add_option("--numa-nodes", f.numa, "vertex partitions: auto (one per NUMA node) or K")->capture_default_str();
  run->add_flag("--no-validate", f.no_validate, "skip validation (results are then not submittable)");
  run->add_option("--validate-batch", f.cfg.validate_batch,
                  "searches checked per validation pass (default: what fits in kernel 1's peak memory, or in a tiered "
                  "run's budget)")
      ->check(CLI::Range(1, 1 << 20));
  run->add_option("--validate-against", f.validate_against,
                  "csr: kernel 1's CSR (in-core: certified equal to the tuples in one pass; out-of-core and dax: the "
                  "on-disk CSR, not certified, a sequential pass per batch of spilled searches); tuples: a pass over "
                  "the tuples per batch; auto: csr in-core, else whichever takes fewer passes (tuples when equal)")
      ->capture_default_str();
  run->add_flag("--top-down-only", f.td_only, "never switch to bottom-up (for experiments)");
  run->add_flag("--bottom-up-only", f.bu_only, "always bottom-up (for experiments)");
  run->add_flag("--trace", f.cfg.bfs.trace,
                "print per BFS level: direction, frontier size, edges examined, time; per SSSP search: buckets, "
                "relaxations, vertices reached, time");
  run->add_option("--json", f.json_path, "also write the results as JSON to this file");
  return run;
}

// Where the graph lives: the tier and its DRAM, storage and memory-node settings.
void add_placement_flags(CLI::App* run, RunFlags& f) {
  run->add_option("--placement", f.placement, "where the adjacency lives: in-core, out-of-core or dax (the last two need --graph)")
      ->capture_default_str();
  run->add_option("--dram-budget", f.dram_budget,
                  "out-of-core, dax: DRAM for the edge cache and I/O buffers, e.g. 512M, 4G (default out-of-core: half of what is free; dax: no cache)");
  run->add_option("--on-mem-edges", f.cfg.place.on_mem_edges,
                  "out-of-core, dax: keep the first K entries of every list in DRAM (default: the largest K the budget holds)")
      ->check(kUnsigned);
  run->add_option("--hub-degree", f.cfg.place.hub_degree, "out-of-core, dax: lists at least this long stay whole in DRAM (default: none)")
      ->check(kPositiveInteger);
  run->add_option("--io-depth", f.cfg.place.io.depth, "out-of-core: reads in flight per thread")
      ->capture_default_str()->check(CLI::Range(1, 4096));
  run->add_option("--io-request", f.io_request, "out-of-core: largest read, a multiple of 4K (e.g. 64K, 1M)")
      ->capture_default_str();
  run->add_option("--io-merge-gap", f.io_merge_gap,
                  "out-of-core: tails this close are read in one request, the gap with them (e.g. 0, 4K, 64K)")
      ->capture_default_str();
  run->add_option("--rank-dir", f.cfg.rank_dir,
                  "under mpirun, out-of-core: where each rank keeps its rows, as DIR/mpi-p<P>/rank-<r> (node-local "
                  "storage; default: the graph directory); reused by later runs of the same graph and rank count");
  run->add_option("--mem-nodes", f.mem_nodes,
                  "in-core: put the adjacency on these NUMA nodes (e.g. 2 or 2,3 or 2-3: expanded memory), hot "
                  "state stays on the CPUs' nodes");
  run->add_flag("--interleave", f.cfg.place.memory.interleave,
                "in-core: interleave pages (the adjacency over --mem-nodes, else the graph over every node)");
}

// Testing only, left out of --help (kTestingGroup).
void add_debug_flags(CLI::App* run, RunFlags& f) {
  run->add_option("--debug-io-faults", f.fault_plan, "testing: short:N (every Nth read short) and/or eio:M (Mth read fails); under mpirun, rank:R for rank R alone")
      ->group(kTestingGroup);
  for (size_t k = 0; k < kKernelCount; ++k)
    run->add_option(kKernels[k]->fault_flag, f.plant.corrupt_search[k], kKernels[k]->fault_help)->group(kTestingGroup);
  run->add_flag("--debug-corrupt-csr", f.plant.corrupt_csr,
                "testing: damage kernel 1's graph (two labels swapped): the CSR certificate must fail the run")
      ->group(kTestingGroup);
  run->add_flag("--debug-corrupt-rows", f.plant.corrupt_rows,
                "testing, mpirun in-core: the first root's list names a vertex no rank holds (its claim must be refused)")
      ->group(kTestingGroup);
  run->add_option("--debug-id-bytes", f.cfg.id_bytes, "testing: 8 forces 64-bit vertex ids at any SCALE")
      ->check(CLI::IsMember({4, 8}))->group(kTestingGroup);
}

bool given(const CLI::App* cmd, const char* flag) { return cmd->get_option(flag)->count() > 0; }

// --graph given as "": refused, not read as not given (`run --graph ""` ran a generated SCALE 16).
void check_graph_flag(const CLI::App* cmd, const std::string& dir) {
  if (given(cmd, "--graph") && dir.empty()) throw Error("--graph needs a directory");
}

// --placement and its settings, checked against each other.
void check_placement(const CLI::App* run, RunFlags& f) {
  PlacementSpec& place = f.cfg.place;
  place.tier = find_tier(f.placement);
  if (!place.tier) throw Error(fmt::format("unknown --placement '{}': expected {}", f.placement, tier_names()));
  if (!given(run, "--on-mem-edges")) place.on_mem_edges = -1;
  if (given(run, "--dram-budget")) {  // given, even as '': parsed (refused)
    place.dram_budget = parse_bytes(f.dram_budget, "--dram-budget");
    if (place.dram_budget == 0) throw Error("--dram-budget must be positive");
  }
  const uint64_t request = parse_bytes(f.io_request, "--io-request");
  if (request == 0 || request % 4096 != 0 || request > (uint64_t(64) << 20))
    throw Error(fmt::format("--io-request {} must be a multiple of 4K between 4K and 64M", f.io_request));
  place.io.request_bytes = uint32_t(request);
  place.io.merge_gap = parse_bytes(f.io_merge_gap, "--io-merge-gap");
  if (place.io.merge_gap > (uint64_t(64) << 20)) throw Error(fmt::format("--io-merge-gap {} is above 64M", f.io_merge_gap));
  if (!place.tier->on_storage && (given(run, "--dram-budget") || given(run, "--on-mem-edges") || given(run, "--hub-degree")))
    throw Error("--dram-budget, --on-mem-edges and --hub-degree apply to --placement out-of-core and dax");
  place.memory.mem_nodes = parse_node_list(f.mem_nodes);
  if (given(run, "--mem-nodes") && place.memory.mem_nodes.empty()) throw Error("--mem-nodes needs node ids, e.g. 2, 2,3 or 2-3");
  if (given(run, "--rank-dir") && f.cfg.rank_dir.empty()) throw Error("--rank-dir needs a directory");
  if (given(run, "--rank-dir") && mpi_rank() < 0)
    throw Error("--rank-dir places each MPI rank's rows: it applies under mpirun (a single process keeps its on-disk "
                "CSR in the graph directory)");
}

// --debug-io-faults: armed on this process, or under mpirun on rank R alone (rank:R).
void arm_io_faults(const std::string& plan) {
  std::optional<uint64_t> fault_rank;
  for (const std::string& item : split_commas(plan)) {
    if (item.rfind("short:", 0) == 0) io_faults().short_every = parse_u64(item.substr(6), "--debug-io-faults");
    else if (item.rfind("eio:", 0) == 0) io_faults().error_at = parse_u64(item.substr(4), "--debug-io-faults");
    else if (item.rfind("rank:", 0) == 0) fault_rank = parse_u64(item.substr(5), "--debug-io-faults");
    else throw Error("malformed --debug-io-faults '" + plan + "'");
  }
  if (fault_rank && (mpi_rank() < 0 || *fault_rank != uint64_t(mpi_rank()))) {
    io_faults().short_every = 0;
    io_faults().error_at = 0;
  }
}

// The one check of `run`'s flags into its RunConfig, then the run.
int check_and_run(const CLI::App* run, RunFlags& f) {
  RunConfig& cfg = f.cfg;
  check_graph_flag(run, cfg.graph_dir);
  if (cfg.graph_dir.empty()) cfg.spec = make_spec(f.spec);
  if (given(run, "--json")) check_result_file(f.json_path, "--json");
  cfg.validate = !f.no_validate;
  const auto method = validation_method_from_name(f.validate_against);
  if (!method) throw Error(fmt::format("unknown --validate-against '{}': expected auto, csr or tuples", f.validate_against));
  cfg.validate_against = *method;
  if (f.td_only && f.bu_only) throw Error("--top-down-only and --bottom-up-only exclude each other");
  cfg.bfs.direction = f.td_only ? Direction::kTopDown : f.bu_only ? Direction::kBottomUp : Direction::kHybrid;
  cfg.kernels = kernel_set(f.kernel);
  if (given(run, "--delta") && !cfg.kernels.has(kSsspKernel)) throw Error("--delta is kernel 3's: it applies to --kernel sssp or both");
  check_placement(run, f);
  for (size_t i = 0; i < kKernelCount; ++i) {
    const char* flag = kKernels[i]->fault_flag;
    const int k = f.plant.corrupt_search[i];
    if (k >= 0 && !cfg.kernels.has(*kKernels[i]))
      throw Error(fmt::format("{} plants a fault in a kernel this run does not run (--kernel {})", flag, f.kernel));
    if (k >= cfg.roots)
      throw Error(fmt::format("{} {}: the run has {} searches (0 to {})", flag, k, cfg.roots, cfg.roots - 1));
  }
  arm_io_faults(f.fault_plan);
  if (f.numa != "auto") {
    const uint64_t k = parse_u64(f.numa, "--numa-nodes");
    if (k < 1 || k > 1024) throw Error(fmt::format("--numa-nodes must be auto or 1..1024 (got {})", f.numa));
    cfg.numa_parts = int(k);
  }
  return cmd_run(cfg, f.plant, f.json_path);
}

struct CompareFlags {
  CompareConfig cmp;
  std::string placements = "in-core,out-of-core,dax", budget, kernel = "bfs";
};


CLI::App* add_compare(CLI::App& app, CompareFlags& f) {
  auto* compare = app.add_subcommand("compare", "the same graph and roots under each placement: one table, JSON, a chart");
  compare->add_option("--graph,-g", f.cmp.run.graph_dir, "graph directory")->required();
  compare->add_option("--placements", f.placements, "comma-separated: in-core, out-of-core, dax")->capture_default_str();
  compare->add_option("--dram-budget", f.budget, "the out-of-core run's budget (default: half of what is free)");
  compare->add_option("--roots", f.cmp.run.roots, "search roots per placement (each kernel searches from each)")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  compare->add_option("--threads,-t", f.cmp.run.threads, "OpenMP threads (default: all)")->check(CLI::Range(1, 4096));
  compare->add_option("--json", f.cmp.json_path, "write every placement's full results here");
  compare->add_option("--plot", f.cmp.plot_path, "write a bar chart of TEPS by placement (PNG, needs gnuplot)");
  add_kernel_flag(compare, f.kernel);
  return compare;
}

int check_and_compare(const CLI::App* compare, CompareFlags& f) {
  CompareConfig& cmp = f.cmp;
  if (given(compare, "--json")) check_result_file(cmp.json_path, "--json");
  if (given(compare, "--plot")) check_result_file(cmp.plot_path, "--plot");
  if (cmp.run.threads > 0) omp_set_num_threads(cmp.run.threads);
  cmp.run.kernels = kernel_set(f.kernel);
  const std::string all_names = tier_names(", ");
  for (const std::string& name : split_commas(f.placements)) {
    const Tier* tier = find_tier(name);
    if (!tier) throw Error(fmt::format("unknown placement '{}' in --placements: expected {}", name, all_names));
    if (std::find(cmp.placements.begin(), cmp.placements.end(), tier) != cmp.placements.end())
      throw Error(fmt::format("--placements names {} twice", name));
    cmp.placements.push_back(tier);
  }
  if (cmp.placements.empty()) throw Error("unknown placement '' in --placements: expected " + all_names);
  if (given(compare, "--dram-budget")) cmp.run.place.dram_budget = parse_bytes(f.budget, "--dram-budget");
  check_graph_flag(compare, cmp.run.graph_dir);
  GraphDir::open(cmp.run.graph_dir);  // a missing or damaged directory refused once, not once a placement
  return run_compare(cmp);
}

struct TuneFlags {
  TuneConfig tune;
  std::string budget, placement = "out-of-core", kernel = "bfs";
};

CLI::App* add_tune(CLI::App& app, TuneFlags& f) {
  TuneConfig& tune = f.tune;
  tune.run.roots = 16;
  auto* tune_cmd = app.add_subcommand("tune", "sweep the edge-cache size up to a DRAM budget: CSV, plot, recommendation");
  tune_cmd->add_option("--graph,-g", tune.run.graph_dir, "graph directory")->required();
  tune_cmd->add_option("--dram-budget", f.budget, "the largest DRAM to try (edge cache + I/O buffers), e.g. 2G")->required();
  tune_cmd->add_option("--placement", f.placement, "out-of-core or dax")->capture_default_str();
  tune_cmd->add_option("--steps", tune.steps, "budget fractions to try besides K = 0, 1, 2, 4, 8, 16")
      ->capture_default_str()->check(CLI::Range(1, 64));
  tune_cmd->add_option("--roots", tune.run.roots, "search roots per point")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  tune_cmd->add_option("--threads,-t", tune.run.threads, "OpenMP threads (default: all)")->check(CLI::Range(1, 4096));
  tune_cmd->add_option("--csv", tune.csv_path, "also write the CSV here");
  tune_cmd->add_option("--plot", tune.plot_path, "write a line plot of TEPS against DRAM (PNG, needs gnuplot)");
  add_kernel_flag(tune_cmd, f.kernel);
  tune_cmd->add_option("--debug-id-bytes", tune.run.id_bytes, "testing: 8 forces 64-bit vertex ids at any SCALE")
      ->check(CLI::IsMember({4, 8}))->group(kTestingGroup);
  return tune_cmd;
}

int check_and_tune(const CLI::App* tune_cmd, TuneFlags& f) {
  TuneConfig& tune = f.tune;
  check_graph_flag(tune_cmd, tune.run.graph_dir);
  if (given(tune_cmd, "--csv")) check_result_file(tune.csv_path, "--csv");
  if (given(tune_cmd, "--plot")) check_result_file(tune.plot_path, "--plot");
  if (tune.run.threads > 0) omp_set_num_threads(tune.run.threads);
  const Tier* tier = find_tier(f.placement);
  if (!tier || !tier->on_storage)  // a tier without an edge cache has nothing to tune
    throw Error(fmt::format("tune sweeps --placement out-of-core or dax, not '{}'", f.placement));
  tune.run.place.tier = tier;
  tune.run.kernels = kernel_set(f.kernel);
  if (tune.run.kernels.several())
    throw Error("tune --kernel both: tune sweeps one kernel's edge cache; tune --kernel bfs and --kernel sssp one after "
                "the other");
  tune.run.place.dram_budget = parse_bytes(f.budget, "--dram-budget");
  GraphDir::open(tune.run.graph_dir);  // refused before the sweep plans a point
  return run_tune(tune);
}

// The command line parsed: a CLI11 refusal printed as strata's (under mpirun, thrown for the ranks to agree),
// --help and --version answered. Returns whether a subcommand is to run; else `rc` is the exit status.
bool parse_command_line(CLI::App& app, int argc, char** argv, int& rc) {
  const std::vector<std::string> commands = {"generate", "info", "run", "compare", "tune"};
  if (argc > 1 && argv[1][0] != '-' && std::find(commands.begin(), commands.end(), argv[1]) == commands.end())
    throw Error(fmt::format("unknown command '{}': expected generate, info, run, compare or tune (strata --help)", argv[1]));
  rc = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
#if STRATA_WITH_MPI
    if (mpi_comm) {  // a refusal is agreed by the ranks and said once (main_mpi); --help is rank 0's to print
      std::ostringstream out, err;
      if (app.exit(e, out, err) != 0) throw Error(e.what());
      std::fputs(out.str().c_str(), stdout);
      return false;
    }
#endif
    rc = app.exit(e);
    return false;
  }
  if (app.get_option("--version")->count() > 0) {
    std::fputs(version_text().c_str(), stdout);
    return false;
  }
  if (app.get_subcommands().empty()) {  // `strata` alone: what it can do
    std::fputs(app.help().c_str(), stdout);
    return false;
  }
  return true;
}

int main_checked(int argc, char** argv) {
  CLI::App app{"strata: Graph500 BFS and SSSP on Kronecker graphs, in DRAM and beyond"};
  app.formatter(std::make_shared<HelpWithoutTesting>());  // before the subcommands: they take the parent's
  app.require_subcommand(0, 1);
  app.add_flag("--version")->description("print the version, commit, build type and the parts compiled in");
  app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string("strata: error: ") + e.what() + "\n"; });
  GenerateFlags gen_flags;
  RunFlags run_flags;
  CompareFlags compare_flags;
  TuneFlags tune_flags;
  std::string info_dir;
  CLI::App* gen = add_generate(app, gen_flags);
  CLI::App* info = app.add_subcommand("info", "describe a graph directory and check its checksums");
  CLI::Option* info_positional = info->add_option("DIR", info_dir, "graph directory");
  info->add_option("-g,--graph", info_dir, "the same, as a flag (as run, compare and tune take it)")->excludes(info_positional);
  CLI::App* run = add_run(app, run_flags);
  add_placement_flags(run, run_flags);
  add_debug_flags(run, run_flags);
  CLI::App* compare = add_compare(app, compare_flags);
  CLI::App* tune = add_tune(app, tune_flags);

  int rc = 0;
  if (!parse_command_line(app, argc, argv, rc)) return rc;
#if STRATA_WITH_MPI
  if (mpi_comm && mpi_comm->size() > 1 && !*run)
    throw Error(fmt::format("strata {} runs in one process: start it without mpirun (only `run` runs across ranks)",
                            app.get_subcommands().front()->get_name()));
#endif
  if (*gen) {
    const GenerateFlags& g = gen_flags;
    return cmd_generate(g.spec, g.out, g.checksum, g.force, g.no_tuples);
  }
  if (*info) {
    if (info_dir.empty()) throw Error("info needs a graph directory: strata info DIR (or --graph DIR)");
    return cmd_info(info_dir);
  }
  if (*compare) return check_and_compare(compare, compare_flags);
  if (*tune) return check_and_tune(tune, tune_flags);
  return check_and_run(run, run_flags);
}

#if STRATA_WITH_MPI
// Under mpirun: MPI for the whole process; rank 0 alone prints (other ranks' stdout is discarded). Every way
// out is agreed: a refusal of the command line (every rank checks its own), an error after it (Comm::fail),
// or the run's end, where all ranks wait until rank 0 has printed and flushed, then exit with one status.
int main_mpi(int argc, char** argv) {
  MpiSession session(argc, argv);
  const Comm comm;
  mpi_comm = &comm;
  if (!comm.root() && !std::freopen("/dev/null", "w", stdout)) return 1;
  int rc = 1;
  std::string error;
  try {
    rc = main_checked(argc, argv);
  } catch (const std::exception& e) {
    error = words_of(e);
  }
  if (!mpi_agreed) mpi_agree(error);  // ends the run if any rank refused
  else if (!error.empty()) comm.fail(error);
  return comm.finish(rc);
}
#endif

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  // A file-size limit should fail a write with EFBIG (reported and cleaned up), not kill the process.
  std::signal(SIGXFSZ, SIG_IGN);
  strata::remove_unfinished_on_interrupt();
#if STRATA_WITH_MPI
  if (strata::launched_by_mpirun()) return strata::main_mpi(argc, argv);
#endif
  try {
    return strata::main_checked(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata: error: %s\n", strata::words_of(e).c_str());
  }
  return 1;
}
