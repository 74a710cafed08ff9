// `strata run`: kernel 0 (or a graph directory), kernel 1 (timed), 64 roots, kernel 2 (each search timed
// alone), validation of every search (untimed, batched), the Graph500 block and JSON.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "apps/progress.hpp"
#include "apps/report.hpp"
#include "apps/run_config.hpp"
#include "bfs/hybrid_bfs.hpp"
#include "engine/build_csr.hpp"
#include "engine/memory.hpp"
#include "engine/placement.hpp"
#include "generators/edge_stream.hpp"
#include "storage/error.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"
#include "validate/validator.hpp"

namespace strata {

namespace {

double now() { return omp_get_wtime(); }

// How many searches one validation pass checks. Each kept result costs a parent array and a level array
// (the first search's levels live in the search's idle parent array). By default validation only uses what
// kernel 1's peak already proved available -- the pre-dedup adjacency that deduplication gave back -- so a
// run's peak is its construction's; --validate-batch trades memory for fewer passes over the tuples.
template <class Id>
int validation_batch(const Csr<Id>& g, int requested, int roots) {
  if (requested > 0) return std::min(requested, roots);
  uint64_t raw_entries = 0;
#pragma omp parallel for reduction(+ : raw_entries)
  for (uint64_t v = 0; v < g.n; ++v) raw_entries += g.raw_degree(v);
  const uint64_t n = g.n, id = sizeof(Id);
  const uint64_t build_peak = raw_entries * id + n * (8 + id);  // pre-dedup adjacency, offsets, relabel map
  const uint64_t in_use = g.bytes() + 2 * n * id + n / 4;               // graph, two parent arrays, bitmaps
  const uint64_t per_search = n * (id + 4) + n / 8;
  const uint64_t extra = build_peak > in_use ? (build_peak - in_use) / per_search : 0;
  return int(std::clamp<uint64_t>(1 + extra, 1, uint64_t(roots)));
}

template <class Id, class Source>
int run_with(const RunConfig& cfg, const Source& source, double generation_time) {
  const KroneckerSpec& spec = source.spec();
  const Topology topo = Topology::detect();
  const int threads = omp_get_max_threads();
  const int parts = cfg.numa_parts > 0 ? cfg.numa_parts : topo.nodes();

  // Kernel 1, timed: CSR build, partitioning, placement on the nodes.
  double t0 = now();
  Csr<Id> g;
  {
    Progress progress("kernel 1");
    g = build_csr<Id>(source, [&](const char* phase, uint64_t done, uint64_t total) {
      progress.set_label(std::string("kernel 1: ") + phase);
      progress.update(done, total);
    });
  }
  const Partitioning partitioning = partition_by_work(g, parts, topo);
  place_on_nodes(g, partitioning);
  const double construction_time = now() - t0;
  pin_threads(partitioning, topo, threads);

  // Roots exactly as the reference chooses them: vertices with an edge other than self-loops.
  std::vector<uint64_t> has_edge_words((g.n + 63) / 64, 0);
  for (uint64_t v = 0; v < g.n; ++v)
    if (g.degree(v) > 0) has_edge_words[g.to_input[v] >> 6] |= uint64_t(1) << (g.to_input[v] & 63);
  const std::vector<uint64_t> roots = search_roots(spec, cfg.roots, [&](uint64_t v) { return (has_edge_words[v >> 6] >> (v & 63)) & 1; });
  std::vector<uint64_t>().swap(has_edge_words);
  if (roots.empty()) throw Error(fmt::format("SCALE {} graph has no vertex with an edge: nothing to search", spec.scale));
  const std::vector<Id> internal = internal_ids(g, roots);

  HybridBfs<Id> bfs(g, partitioning, cfg.bfs);
  const int batch = cfg.validate ? validation_batch(g, cfg.validate_batch, int(roots.size())) : 1;
  std::vector<std::vector<Id>> kept(batch);  // built one by one: copying a prototype would hold two at once
  for (auto& k : kept) k.resize(g.n);
  std::vector<SearchRecord> records;
  std::vector<SearchToCheck<Id>> pending;
  std::string failure;

  bfs.search(internal[0], kept[0].data());  // warm-up search, untimed and not reported
  auto validate_pending = [&] {
    if (pending.empty()) return;
    const double v0 = now();
    std::vector<Verdict> verdicts = validate_searches<Id>(source, pending, bfs.idle_memory());
    const double each = (now() - v0) / double(pending.size());
    const size_t first = records.size() - pending.size();
    for (size_t i = 0; i < pending.size(); ++i) {
      SearchRecord& r = records[first + i];
      r.validate_time = each;
      r.valid = verdicts[i].valid;
      if (!r.valid && failure.empty())
        failure = fmt::format("validation failed for search {} (root {}): {}", first + i, r.root, verdicts[i].message);
    }
    pending.clear();
  };

  Progress progress("kernel 2");
  for (size_t i = 0; i < roots.size(); ++i) {
    Id* parent = kept[pending.size()].data();
    const double s0 = now();
    const SearchStats stats = bfs.search(internal[i], parent);
    const double time = now() - s0;
    const uint64_t nedge = bfs.reached_raw_degree_sum() / 2;
    records.push_back({roots[i], time, nedge, 0.0, false});
    if (cfg.corrupt_search == int(i)) {  // a planted error, after timing: proves the run catches it
      for (uint64_t v = 0; v < g.n; ++v)
        if (parent[v] != Csr<Id>::kNone && v != roots[i]) {
          parent[v] = Id(v);
          break;
        }
    }
    if (cfg.bfs.trace) {
      for (size_t l = 0; l < stats.levels.size(); ++l) {
        const LevelTrace& lt = stats.levels[l];
        std::fprintf(stderr, "trace: search %zu root %llu level %zu %s frontier %llu edges %llu time %.6f\n", i,
                     (unsigned long long)roots[i], l, lt.bottom_up ? "bottom-up" : "top-down",
                     (unsigned long long)lt.frontier, (unsigned long long)lt.edges_examined, lt.seconds);
      }
    }
    if (cfg.validate) {
      pending.push_back({roots[i], parent, nedge});
      if (int(pending.size()) == batch || i + 1 == roots.size()) {
        progress.update(i + 1, roots.size(), "validating");
        validate_pending();
      }
    }
    progress.update(i + 1, roots.size(), fmt::format("search {} root {}: {:.3g} TEPS", i, roots[i], double(nedge) / time));
  }

  const auto stats = graph500_statistics(spec.scale, spec.edgefactor, generation_time, construction_time, records);
  nlohmann::json j;
  j["scale"] = spec.scale;
  j["edgefactor"] = spec.edgefactor;
  j["seed"] = {spec.seed1, spec.seed2};
  j["nbfs"] = records.size();
  j["placement"] = "in-core";
  j["threads"] = threads;
  j["graph"] = cfg.graph_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(cfg.graph_dir);
  j["numa_parts"] = parts;
  j["partitions"] = partitioning.describe();
  j["numa_nodes"] = topo.nodes();
  j["alpha"] = cfg.bfs.alpha;
  j["beta"] = cfg.bfs.beta;
  j["validated"] = cfg.validate;
  j["validate_batch"] = batch;
  j["csr_bytes"] = g.bytes();
  j["directed_edges"] = g.directed_edges();
  for (const auto& [key, value] : stats) j[key] = value;
  j["searches"] = nlohmann::json::array();
  for (const SearchRecord& r : records)
    j["searches"].push_back({{"root", r.root},
                             {"time", r.time},
                             {"nedge", r.nedge},
                             {"teps", double(r.nedge) / r.time},
                             {"validate_time", r.validate_time},
                             {"valid", cfg.validate ? nlohmann::json(r.valid) : nlohmann::json(nullptr)}});
  if (!failure.empty()) {
    j["error"] = failure;
    if (!cfg.json_path.empty()) write_json_file(cfg.json_path, j);
    std::fprintf(stdout, "%s\nNo statistics: a run with a failed validation has no results.\n", failure.c_str());
    std::fprintf(stderr, "strata: error: %s\n", failure.c_str());
    return 1;
  }
  std::fputs(format_block(stats).c_str(), stdout);
  if (!cfg.validate) std::fputs("validation: skipped (--no-validate): these results cannot be submitted\n", stdout);
  if (!cfg.json_path.empty()) write_json_file(cfg.json_path, j);
  return 0;
}

template <class Id>
void check_memory(const KroneckerSpec& spec, int validate_batch) {
  const uint64_t need = in_core_bytes(spec, sizeof(Id), std::max(validate_batch, 1));
  const uint64_t have = available_memory_bytes();
  if (need > have)
    throw Error(fmt::format("SCALE {} needs about {} of memory for an in-core run; {} available", spec.scale,
                            human_bytes(double(need)), human_bytes(double(have))));
}

template <class Id>
int run_typed(const RunConfig& cfg) {
  if (!cfg.graph_dir.empty()) {
    const GraphDir dir = GraphDir::open(cfg.graph_dir);
    check_memory<Id>(dir.spec(), cfg.validate_batch);
    // With a stored graph, "generation" is producing a verified edge list: reading it and checking every block.
    const double t0 = now();
    {
      Progress progress("verifying " + cfg.graph_dir);
      dir.verify([&](uint64_t done, uint64_t total) { progress.update(done, total); });
    }
    return run_with<Id>(cfg, dir, now() - t0);
  }
  check_memory<Id>(cfg.spec, cfg.validate_batch);
  GeneratedEdges source{Kronecker(cfg.spec)};
  // Kernel 0 is timed as one pass generating every tuple; kernel 1 regenerates them as it needs them.
  const double t0 = now();
  {
    Progress progress("kernel 0");
    std::atomic<uint64_t> done{0};
    source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
      const uint64_t d = done += edges.size();
      if (omp_get_thread_num() == 0) progress.update(d, cfg.spec.edge_count());
    });
  }
  return run_with<Id>(cfg, source, now() - t0);
}

}  // namespace

int run_graph500(const RunConfig& config) {
  if (config.threads > 0) omp_set_num_threads(config.threads);
  const int scale = config.graph_dir.empty() ? config.spec.scale : GraphDir::open(config.graph_dir).spec().scale;
  return scale <= 31 ? run_typed<uint32_t>(config) : run_typed<uint64_t>(config);
}

}  // namespace strata
