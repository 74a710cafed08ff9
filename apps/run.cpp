// `strata run`: kernel 0 (or a graph directory), kernel 1 (timed), 64 roots, kernel 2 (each search timed
// alone), validation of every search (untimed, batched), the Graph500 block and JSON.
//
// Kernel 1 depends on the placement -- in-core builds the CSR in DRAM; out-of-core builds (or reuses) the
// on-disk CSR in the graph directory and loads its O(N) part and the edge cache -- and hands a ready
// search to the one stage that picks roots, searches, validates and reports.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/ids.hpp"
#include "apps/progress.hpp"
#include "apps/report.hpp"
#include "apps/run_config.hpp"
#include "bfs/searches.hpp"
#include "engine/build_csr.hpp"
#include "engine/build_csr_files.hpp"
#include "engine/edge_cache.hpp"
#include "engine/memory.hpp"
#include "engine/placement.hpp"
#include "generators/edge_stream.hpp"
#include "storage/atomic_dir.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"
#include "storage/pmem_map.hpp"
#include "validate/validator.hpp"

namespace strata {

const char* placement_name(Placement p) {
  switch (p) {
    case Placement::kInCore: return "in-core";
    case Placement::kOutOfCore: return "out-of-core";
    case Placement::kDax: return "dax";
  }
  return "?";
}

std::optional<Placement> placement_from_name(const std::string& name) {
  for (Placement p : {Placement::kInCore, Placement::kOutOfCore, Placement::kDax})
    if (name == placement_name(p)) return p;
  return std::nullopt;
}

namespace {

double now() { return omp_get_wtime(); }

// A graph ready to search: what kernel 1 produced, in whichever placement. The search refers to the other
// members, so a Prepared is filled in place and never moved; members are destroyed in reverse order, so
// the search goes before the files and cache it reads.
template <class Id>
struct Prepared {
  Prepared() = default;
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;

  Csr<Id> g;
  Partitioning partitioning;
  double construction_time = 0;
  std::optional<CsrFiles> files;
  std::vector<PmemMapping> mappings;  // DAX: the partition files, mapped
  EdgeCache<Id> cache;
  std::unique_ptr<GraphSearch<Id>> bfs;
  nlohmann::json placement;  // placement-specific JSON keys
  bool out_of_core = false;  // out-of-core or DAX: the searches report storage edges
  bool dax = false;
};

// How many searches one validation pass checks. Each kept result costs a parent array and a level array
// (the first search's levels live in the search's idle parent array). By default validation only uses what
// kernel 1's peak already proved available -- the pre-dedup adjacency that deduplication gave back -- so a
// run's peak is its construction's; --validate-batch trades memory for fewer passes over the tuples.
// Out-of-core, kernel 1's peak was the budget: one search per pass unless asked.
template <class Id>
int validation_batch(const Prepared<Id>& prep, int requested, int roots) {
  if (requested > 0) return std::min(requested, roots);
  if (prep.out_of_core) return 1;
  const Csr<Id>& g = prep.g;
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
void prepare_in_core(Prepared<Id>& prep, const RunConfig& cfg, const Source& source, const Topology& topo, int parts) {
  const double t0 = now();
  {
    Progress progress("kernel 1");
    prep.g = build_csr<Id>(source, [&](const char* phase, uint64_t done, uint64_t total) {
      progress.set_label(std::string("kernel 1: ") + phase);
      progress.update(done, total);
    });
  }
  prep.partitioning = partition_by_work(prep.g, parts, topo);
  place_graph(prep.g, prep.partitioning, cfg.memory, topo);
  prep.construction_time = now() - t0;
  prep.bfs = in_core_search(prep.g, prep.partitioning, cfg.bfs);
  prep.placement = {{"placement", "in-core"},
                    {"csr_bytes", prep.g.bytes()},
                    {"mem_nodes", cfg.memory.mem_nodes},
                    {"interleave", cfg.memory.interleave},
                    {"memory_placement", describe_placement(cfg.memory, prep.partitioning, topo)}};
}

// O(N) DRAM of an out-of-core run besides the budget: offsets, labels, duplicate counts, cache offsets, two
// parent arrays, queues, bitmaps, the output parent array and validation's levels. Construction's O(N)
// (raw and final offsets, labels) is of the same size.
uint64_t out_of_core_state_bytes(uint64_t n, int id_bytes) {
  const uint64_t id = uint64_t(id_bytes);
  return n * (4 + id + 1 + 4 + 2 * id + 2 * id + id + 4) + n / 2;
}

// Out-of-core and DAX share kernel 1: the on-disk CSR in the graph directory (built, or reused when it
// matches this graph), its O(N) arrays, and the edge cache. Out-of-core reads the tails with io_uring; DAX
// maps the partition files with libpmem and reads them in place (by default with no cache at all).
template <class Id>
void prepare_tiered(Prepared<Id>& prep, const RunConfig& cfg, const GraphDir& dir, const Topology& topo, int parts) {
  const bool dax = cfg.placement == Placement::kDax;
  prep.out_of_core = true;
  prep.dax = dax;
  const KroneckerSpec& spec = dir.spec();
  const int threads = omp_get_max_threads();
  const uint64_t io_bytes = dax ? 0 : uint64_t(threads) * cfg.io.depth * cfg.io.request_bytes;
  const uint64_t state = out_of_core_state_bytes(spec.vertex_count(), sizeof(Id));
  const uint64_t available = available_memory_bytes();
  uint64_t budget = cfg.dram_budget;
  if (budget == 0 && !dax) budget = available > state ? (available - state) / 2 : 0;
  if (!dax && budget < io_bytes)
    throw Error(fmt::format("--dram-budget {} is below the minimum {} for out-of-core: the I/O buffers alone take {} "
                            "({} threads x depth {} x {}); raise it, or lower --io-depth or --threads",
                            human_bytes(double(budget)), human_bytes(double(io_bytes)), human_bytes(double(io_bytes)),
                            threads, cfg.io.depth, human_bytes(double(cfg.io.request_bytes))));
  if (state + budget > available)
    throw Error(fmt::format("{} SCALE {} needs {} of O(N) state plus the {} budget; {} available",
                            placement_name(cfg.placement), spec.scale, human_bytes(double(state)),
                            human_bytes(double(budget)), human_bytes(double(available))));

  const double t0 = now();
  const std::string path = CsrFiles::path_for(dir.path(), parts);
  // One build of a CSR at a time: a second run waits for the first and then reuses what it built.
  DirLock build_lock;
  if (!path_exists(path)) {
    build_lock = DirLock::wait_file(dir.path() + "/" + GraphDir::kHeaderFile);
    if (const int removed = remove_unfinished_builds(path))
      std::fprintf(stderr, "strata: note: removed %d unfinished CSR build(s) of %s (an interrupted run); rebuilding\n",
                   removed, path.c_str());
  }
  const bool reused = path_exists(path);
  ExternalBuildStats build{};
  if (!reused) {
    const uint64_t need = dir.data_bytes() + spec.vertex_count() * 16;
    if (free_bytes_at(dir.path()) < need)
      throw Error(fmt::format("not enough space in {} for the on-disk CSR: needs about {}, {} free", dir.path(),
                              human_bytes(double(need)), human_bytes(double(free_bytes_at(dir.path())))));
    // The build's scratch: the budget, or (DAX without one) a quarter of what is free beyond the O(N) state.
    const uint64_t scratch = budget > 0 ? budget : (available > state ? (available - state) / 4 : 0);
    Progress progress("kernel 1: building " + path);
    build_csr_files<Id>(dir, path, parts, topo, scratch,
                        [&](const char* phase, uint64_t done, uint64_t total) {
                          progress.set_label(std::string("kernel 1: on-disk CSR, ") + phase);
                          progress.update(done, total);
                        },
                        &build, dax);
  }
  const double built = now();
  // Every refusal of the stored CSR says how to get a good one.
  auto rebuild_hint = [&](const Error& e) {
    const std::string why = e.what();
    return why.find("remove ") != std::string::npos ? e : Error(why + "; remove " + path + " and run again to rebuild it");
  };
  try {
    prep.files.emplace(CsrFiles::open(path, dir.header_hash(), spec.scale));
    if (prep.files->layout().parts() != parts) throw Error(path + " has the wrong partition count");
    prep.g = load_csr_meta<Id>(*prep.files);
  } catch (const Error& e) {
    throw rebuild_hint(e);
  }
  const CsrFiles& files = *prep.files;
  const Csr<Id>& g = prep.g;

  const uint64_t room = budget - io_bytes;  // for the cache's entries
  uint64_t k = 0;
  if (cfg.on_mem_edges >= 0) {
    k = uint64_t(cfg.on_mem_edges);
    const uint64_t need = cache_entries(g, k, cfg.hub_degree) * sizeof(Id);
    if (need > room && cfg.dram_budget > 0)
      throw Error(fmt::format("--on-mem-edges {} needs a {} edge cache plus {} of I/O buffers, more than --dram-budget {}",
                              k, human_bytes(double(need)), human_bytes(double(io_bytes)), human_bytes(double(budget))));
    if (need + io_bytes + state > available)
      throw Error(fmt::format("--on-mem-edges {} needs a {} edge cache plus {} of O(N) state; {} available", k,
                              human_bytes(double(need)), human_bytes(double(state)), human_bytes(double(available))));
  } else if (dax && cfg.dram_budget == 0) {
    k = 0;  // DAX reads every list in place unless given DRAM for a cache
  } else if (!k_for_budget(g, room, cfg.hub_degree, k)) {
    throw Error(fmt::format("--dram-budget {} cannot hold the hubs' lists (--hub-degree {}): they need {} plus {} of "
                            "I/O buffers",
                            human_bytes(double(budget)), cfg.hub_degree,
                            human_bytes(double(cache_entries(g, 0, cfg.hub_degree) * sizeof(Id))),
                            human_bytes(double(io_bytes))));
  }
  prep.partitioning = Partitioning::with_bounds(files.layout().bounds, topo);
  bool is_pmem = true;
  if (dax) {
    std::vector<const char*> bases;
    std::vector<const Id*> lists;
    for (int p = 0; p < parts; ++p) {
      prep.mappings.push_back(PmemMapping::open_read(path + "/" + CsrFiles::adj_name(p)));
      const PmemMapping& m = prep.mappings.back();
      is_pmem = is_pmem && m.is_pmem();
      bases.push_back(m.data());
      lists.push_back(reinterpret_cast<const Id*>(m.data()));
    }
    if (!is_pmem)
      std::fprintf(stderr, "strata: warning: %s is not on persistent memory (no DAX mapping): the search reads it "
                           "through the page cache\n", path.c_str());
    prep.cache = load_edge_cache_mapped(g, files, bases, k, cfg.hub_degree);
    prep.bfs = dax_search(g, prep.cache, lists, files.layout(), prep.partitioning, cfg.bfs);
  } else {
    Progress progress("kernel 1: loading the edge cache");
    try {
      prep.cache = load_edge_cache(g, files, k, cfg.hub_degree, [&](uint64_t d, uint64_t t) { progress.update(d, t); });
    } catch (const Error& e) {
      throw rebuild_hint(e);
    }
    prep.bfs = out_of_core_search(g, prep.cache, files, cfg.io, prep.partitioning, cfg.bfs);
  }
  const double loaded = now();
  // A reused CSR counts the build it took, so that construction_time always covers building the graph.
  const double build_time = reused ? files.layout().build_seconds : built - t0;
  prep.construction_time = build_time + (loaded - built);

  const uint64_t max_degree = g.n ? g.degree(0) : 0;
  prep.placement = {{"placement", placement_name(cfg.placement)},
                    {"dram_budget", budget},
                    {"on_mem_edges", k},
                    {"on_mem_edges_all", k >= max_degree},
                    {"hub_degree", cfg.hub_degree == kNoHubs ? nlohmann::json(nullptr) : nlohmann::json(cfg.hub_degree)},
                    {"edge_cache_bytes", prep.cache.entries_bytes()},
                    {"state_bytes", state},
                    {"adjacency_bytes", g.directed_edges() * sizeof(Id)},
                    {"csr_dir", path},
                    {"csr_reused", reused},
                    {"csr_build_time", build_time},
                    {"csr_build_passes", reused ? nlohmann::json(nullptr) : nlohmann::json(build.passes)},
                    {"cache_load_time", loaded - built},
                    {"csr_bytes", g.bytes() + prep.cache.entries_bytes() + prep.cache.offsets.bytes()}};
  std::vector<int> cpu_nodes;
  for (int n : prep.partitioning.node)
    if (std::find(cpu_nodes.begin(), cpu_nodes.end(), n) == cpu_nodes.end()) cpu_nodes.push_back(n);
  const std::string local = fmt::format("DRAM, partitioned over CPU nodes {}", fmt::join(cpu_nodes, ","));
  prep.placement["memory_placement"] = {
      {"adjacency", dax ? fmt::format("mapped in place from {} ({})", path, is_pmem ? "pmem" : "page cache")
                        : fmt::format("on storage in {}, read with io_uring", path)},
      {"edge_cache", local}, {"offsets", local}, {"labels", local}, {"duplicates", local},
      {"parents", local},    {"frontiers", local}};
  if (dax) {
    prep.placement["is_pmem"] = is_pmem;
    prep.placement["mapped_bytes"] = [&] {
      uint64_t sum = 0;
      for (const auto& m : prep.mappings) sum += m.size();
      return sum;
    }();
  } else {
    prep.placement["io_buffer_bytes"] = prep.bfs->io_buffer_bytes();
    prep.placement["io_depth"] = cfg.io.depth;
    prep.placement["io_request_bytes"] = cfg.io.request_bytes;
    const std::vector<const DirectFile*> adj_files = files.adj_files();
    prep.placement["direct_io"] = std::all_of(adj_files.begin(), adj_files.end(), [](const DirectFile* f) { return f->direct; });
    prep.placement["registered_buffers"] = prep.bfs->registered_buffers();
  }
}

template <class Id, class Source>
int search_and_report(const RunConfig& cfg, const Source& source, double generation_time, Prepared<Id>& prep,
                      const Topology& topo, int parts, nlohmann::json* result) {
  const KroneckerSpec& spec = source.spec();
  const int threads = omp_get_max_threads();
  const Csr<Id>& g = prep.g;
  GraphSearch<Id>& bfs = *prep.bfs;
  pin_threads(prep.partitioning, topo, threads);

  // Roots exactly as the reference chooses them: vertices with an edge other than self-loops.
  std::vector<uint64_t> has_edge_words((g.n + 63) / 64, 0);
  for (uint64_t v = 0; v < g.n; ++v)
    if (g.degree(v) > 0) has_edge_words[g.to_input[v] >> 6] |= uint64_t(1) << (g.to_input[v] & 63);
  const std::vector<uint64_t> roots = search_roots(spec, cfg.roots, [&](uint64_t v) { return (has_edge_words[v >> 6] >> (v & 63)) & 1; });
  std::vector<uint64_t>().swap(has_edge_words);
  if (roots.empty()) throw Error(fmt::format("SCALE {} graph has no vertex with an edge: nothing to search", spec.scale));
  const std::vector<Id> internal = internal_ids(g, roots);

  const int batch = cfg.validate ? validation_batch(prep, cfg.validate_batch, int(roots.size())) : 1;
  std::vector<std::vector<Id>> kept(batch);  // built one by one: copying a prototype would hold two at once
  for (auto& k : kept) k.resize(g.n);
  std::vector<SearchRecord> records;
  std::vector<SearchStats> search_stats;
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
    search_stats.push_back(stats);
    search_stats.back().levels.clear();
    if (cfg.corrupt_search == int(i)) {  // a planted error, after timing: proves the run catches it
      for (uint64_t v = 0; v < g.n; ++v)
        if (parent[v] != kNoVertex<Id> && v != roots[i]) {
          parent[v] = Id(v);
          break;
        }
    }
    if (cfg.bfs.trace) {
      for (size_t l = 0; l < stats.levels.size(); ++l) {
        const LevelTrace& lt = stats.levels[l];
        std::string io;
        if (prep.out_of_core && !prep.dax)
          io = fmt::format(" storage_edges {} bytes_read {} io_requests {}", lt.io.edges_storage, lt.io.bytes_read,
                           lt.io.requests);
        std::fprintf(stderr, "trace: search %zu root %llu level %zu %s frontier %llu edges %llu time %.6f%s\n", i,
                     (unsigned long long)roots[i], l, lt.bottom_up ? "bottom-up" : "top-down",
                     (unsigned long long)lt.frontier, (unsigned long long)lt.edges_examined, lt.seconds, io.c_str());
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

  const auto stats = graph500_statistics(spec.scale, spec.edgefactor, generation_time, prep.construction_time, records);
  nlohmann::json j;
  j["scale"] = spec.scale;
  j["edgefactor"] = spec.edgefactor;
  j["seed"] = {spec.seed1, spec.seed2};
  j["nbfs"] = records.size();
  j["threads"] = threads;
  j["graph"] = cfg.graph_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(cfg.graph_dir);
  j["numa_parts"] = parts;
  j["partitions"] = prep.partitioning.describe();
  j["numa_nodes"] = topo.nodes();
  j["alpha"] = cfg.bfs.alpha;
  j["beta"] = cfg.bfs.beta;
  j["validated"] = cfg.validate;
  j["validate_batch"] = batch;
  j["directed_edges"] = g.directed_edges();
  j.update(prep.placement);
  uint64_t bytes_read = 0, io_requests = 0;
  for (const SearchStats& s : search_stats) bytes_read += s.io.bytes_read, io_requests += s.io.requests;
  if (prep.out_of_core && !prep.dax) {
    j["bytes_read"] = bytes_read;
    j["io_requests"] = io_requests;
  }
  for (const auto& [key, value] : stats) j[key] = value;
  j["searches"] = nlohmann::json::array();
  for (size_t i = 0; i < records.size(); ++i) {
    const SearchRecord& r = records[i];
    nlohmann::json s = {{"root", r.root},
                        {"time", r.time},
                        {"nedge", r.nedge},
                        {"teps", double(r.nedge) / r.time},
                        {"validate_time", r.validate_time},
                        {"valid", cfg.validate ? nlohmann::json(r.valid) : nlohmann::json(nullptr)},
                        {"edges_examined", search_stats[i].edges_examined}};
    if (prep.out_of_core) {
      s["edges_dram"] = search_stats[i].edges_examined - search_stats[i].io.edges_storage;
      s["edges_storage"] = search_stats[i].io.edges_storage;  // DAX: read in place from the mapping
      if (!prep.dax) {
        s["bytes_read"] = search_stats[i].io.bytes_read;
        s["io_requests"] = search_stats[i].io.requests;
      }
    }
    j["searches"].push_back(s);
  }
  // DRAM the run's structures take: the graph's (what kernel 1 left in DRAM, cache included), the search's
  // state, the kept results, I/O buffers.
  const uint64_t id = sizeof(Id), n = g.n;
  const uint64_t search_state = 2 * n * id + 2 * n * id + 3 * (n / 8) + uint64_t(batch) * n * id;
  j["dram_bytes"] = j["csr_bytes"].get<uint64_t>() + search_state + (j.contains("io_buffer_bytes") ? j["io_buffer_bytes"].get<uint64_t>() : 0);
  if (!failure.empty()) {  // no statistics from a failed run, in the JSON either
    for (const auto& [key, value] : stats) j.erase(key);
    j["validated"] = false;
    j["error"] = failure;
    if (result) *result = j;
    if (!cfg.json_path.empty()) write_json_file(cfg.json_path, j);
    std::fprintf(stdout, "%s\nNo statistics: a run with a failed validation has no results.\n", failure.c_str());
    std::fprintf(stderr, "strata: error: %s\n", failure.c_str());
    return 1;
  }
  const std::vector<std::string> warnings = measurement_warnings(records, cfg.load_at_start, threads);
  j["measurement_warnings"] = warnings;
  if (result) *result = j;
  if (!cfg.json_path.empty()) write_json_file(cfg.json_path, j);  // before the block: a failed write is no result
  if (cfg.quiet) return 0;
  std::fputs(format_block(stats).c_str(), stdout);
  if (prep.dax) {
    std::printf("placement: dax\nis_pmem: %s\non_mem_edges: %s\nedge_cache_bytes: %s\n",
                j["is_pmem"].get<bool>() ? "true" : "false",
                j["on_mem_edges_all"].get<bool>() ? "all" : std::to_string(j["on_mem_edges"].get<uint64_t>()).c_str(),
                human_bytes(double(j["edge_cache_bytes"].get<uint64_t>())).c_str());
  } else if (prep.out_of_core) {
    std::printf("placement: out-of-core\ndram_budget: %s\non_mem_edges: %s\nedge_cache_bytes: %s\nbytes_read: %s\n"
                "io_requests: %llu\n",
                human_bytes(double(j["dram_budget"].get<uint64_t>())).c_str(),
                j["on_mem_edges_all"].get<bool>() ? "all" : std::to_string(j["on_mem_edges"].get<uint64_t>()).c_str(),
                human_bytes(double(j["edge_cache_bytes"].get<uint64_t>())).c_str(),
                human_bytes(double(bytes_read)).c_str(), (unsigned long long)io_requests);
  }
  if (!cfg.validate) std::fputs("validation: skipped (--no-validate): these results cannot be submitted\n", stdout);
  std::puts(summary_line(j, warnings, cfg.json_path).c_str());
  return 0;
}

template <class Id>
void check_memory(const KroneckerSpec& spec, int validate_batch) {
  const uint64_t need = in_core_bytes(spec, sizeof(Id), std::max(validate_batch, 1));
  const uint64_t have = available_memory_bytes();
  if (need > have)
    throw Error(fmt::format("SCALE {} needs about {} of memory for an in-core run; {} available (an out-of-core run, "
                            "--placement out-of-core, needs far less)",
                            spec.scale, human_bytes(double(need)), human_bytes(double(have))));
}

template <class Id>
int run_typed(const RunConfig& cfg, nlohmann::json* result) {
  const Topology topo = Topology::detect();
  const int parts = cfg.numa_parts > 0 ? cfg.numa_parts : topo.nodes();
  check_memory_nodes(cfg.memory.mem_nodes, topo);
  if (cfg.memory.any() && cfg.placement != Placement::kInCore)
    throw Error("--mem-nodes and --interleave place the in-core adjacency; they do not apply to --placement " +
                std::string(placement_name(cfg.placement)));
  if (!cfg.graph_dir.empty()) {
    const GraphDir dir = GraphDir::open(cfg.graph_dir);
    if (cfg.placement == Placement::kInCore) check_memory<Id>(dir.spec(), cfg.validate_batch);
    // With a stored graph, "generation" is producing a verified edge list: reading it and checking every block.
    const double t0 = now();
    {
      Progress progress("verifying " + cfg.graph_dir);
      dir.verify([&](uint64_t done, uint64_t total) { progress.update(done, total); });
    }
    const double generation = now() - t0;
    Prepared<Id> prep;
    if (cfg.placement != Placement::kInCore) prepare_tiered<Id>(prep, cfg, dir, topo, parts);
    else prepare_in_core<Id>(prep, cfg, dir, topo, parts);
    return search_and_report<Id>(cfg, dir, generation, prep, topo, parts, result);
  }
  if (cfg.placement != Placement::kInCore)
    throw Error(fmt::format("--placement {} needs a graph directory (--graph DIR; make one with `strata generate "
                            "--scale {} --out DIR`)",
                            placement_name(cfg.placement), cfg.spec.scale));
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
  const double generation = now() - t0;
  Prepared<Id> prep;
  prepare_in_core<Id>(prep, cfg, source, topo, parts);
  return search_and_report<Id>(cfg, source, generation, prep, topo, parts, result);
}

}  // namespace

int run_graph500(const RunConfig& given, nlohmann::json* result) {
  RunConfig config = given;
  config.load_at_start = load_average();
  if (config.threads > 0) omp_set_num_threads(config.threads);
  // Held for the whole run: `generate --force` cannot replace the directory under it (nor its CSR).
  // A lock held only for a moment (a --force that is refused, a probe) is waited out for up to 2 s.
  DirLock graph_lock;
  bool locked = config.graph_dir.empty() || !path_exists(config.graph_dir);
  for (int attempt = 0; !locked && attempt < 20; ++attempt) {
    locked = DirLock::try_lock(config.graph_dir, DirLock::kShared, graph_lock);
    if (!locked) ::usleep(100000);
  }
  if (!locked)
    throw Error(config.graph_dir + " is being replaced by another strata process (generate --force); run again when it "
                                   "has finished");
  const int scale = config.graph_dir.empty() ? config.spec.scale : GraphDir::open(config.graph_dir).spec().scale;
  return scale <= 31 ? run_typed<uint32_t>(config, result) : run_typed<uint64_t>(config, result);
}

}  // namespace strata
