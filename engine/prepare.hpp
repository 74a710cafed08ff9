// Kernel 1 for every placement: from an edge source, a placement spec and the topology, a graph ready to
// search (PlacedGraph) with a typed account of its DRAM and of how it was placed. In-core builds the CSR in
// DRAM (on chosen memory nodes, or interleaved); out-of-core and DAX build (or reuse) the on-disk CSR in
// the graph directory, load its O(N) arrays and the edge cache, and DAX maps the partition files.
// Each tier (tiers/) calls the one it needs.
#pragma once
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "core/units.hpp"
#include "engine/build_csr.hpp"
#include "engine/build_csr_files.hpp"
#include "engine/edge_cache.hpp"
#include "engine/memory.hpp"
#include "engine/placement.hpp"
#include "engine/tier.hpp"
#include "storage/atomic_dir.hpp"
#include "storage/csr_files.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"
#include "storage/pmem_map.hpp"

namespace strata {

// Where and how the graph should live (the run's placement flags).
struct PlacementSpec {
  const Tier* tier = &kInCore;      // where the adjacency lives (--placement)
  int parts = 1;                    // vertex partitions (one per NUMA node by default)
  MemoryPlacement memory;           // in-core: --mem-nodes / --interleave
  uint64_t dram_budget = 0;         // tiered: bytes for the edge cache and I/O buffers; 0 = the default
  int64_t on_mem_edges = -1;        // tiered: K; -1 = the largest K the budget holds
  uint64_t hub_degree = kNoHubs;    // tiered: lists at least this long stay whole in DRAM
  IoOptions io;                     // out-of-core reads
  int threads = 1;                  // for the I/O buffers
  bool weighted = false;            // kernel 3 runs: the adjacency keeps its weights (on storage: the weighted
                                    // CSR, csr-w-p<K>, lists by weight)
  bool ids = true;                  // kernel 2 runs: on storage, it reads the unweighted CSR (csr-p<K>)
  CountedDegrees* counted = nullptr;  // kernel 0's degree count, which the first build takes (the driver's)
};

// How the graph was placed, for the report (JSON keys by the same names).
struct PlacementReport {
  const Tier* tier = &kInCore;
  double degree_count_in_kernel0_time = 0;  // of construction_time: kernel 1's degree count, made in kernel 0's pass
  std::map<std::string, std::string> memory_placement;  // where each structure lives
  // tiered
  uint64_t on_mem_edges = 0;
  bool on_mem_edges_all = false;
  uint64_t hub_degree = kNoHubs;
  uint64_t adjacency_bytes = 0;
  uint64_t csr_disk_bytes = 0;    // tiered: the on-disk CSR's files
  uint64_t tuple_file_bytes = 0;  // tiered: the graph directory's tuple file (0: the spec alone, regenerated)
  std::string csr_dir;
  bool csr_reused = false;
  double csr_build_time = 0;
  std::optional<uint64_t> csr_build_passes;  // none when reused
  uint64_t csr_build_renumbered_bytes = 0;    // the build's tuple buckets on disk, written and read once (0: none, or reused)
  std::optional<uint64_t> csr_build_tuple_passes;  // passes over the tuples after the degree pass (none when reused)
  std::optional<ExternalBuildStats> csr_build;     // the on-disk build's figures by phase (none when reused)
  double cache_load_time = 0;
  // Where the edge cache came from: "csr" (the on-disk CSR read whole, every block checked), "build" (the
  // prefixes this run's kernel 1 kept as it wrote the CSR), "mapping" (DAX: copied out of the mapped files).
  std::string cache_source;
  bool is_pmem = false;         // DAX
  uint64_t mapped_bytes = 0;    // DAX
  bool direct_io = false;       // out-of-core
};

// A graph ready to search. Searches refer to its members, so it is filled in place and never moved;
// members die in reverse order, the mappings and files after the cache that was loaded from them. On storage,
// `files` is the CSR of the first kernel run (kernel 2's, or kernel 3's when it runs alone); with both kernels,
// kernel 3's weighted CSR is `weighted_files`, its cache loaded when kernel 3 starts (ready_kernel3_lists).
template <class Id>
struct PlacedGraph {
  PlacedGraph() = default;
  PlacedGraph(const PlacedGraph&) = delete;
  PlacedGraph& operator=(const PlacedGraph&) = delete;

  Csr<Id> g;  // in-core: the whole CSR; tiered: its O(N) arrays (offsets, labels, duplicates)
  NumaArray<float> weights;  // kernel 3's, one per entry of g.adj (weighted in-core runs; else empty)
  bool by_weight = false;    // in-core: g's lists ordered by weight for kernel 3 (ready_kernel3_lists), no longer by id
  Partitioning partitioning;
  std::optional<CsrFiles> files;      // tiered
  std::vector<PmemMapping> mappings;  // DAX: the partition files, mapped
  std::optional<CsrFiles> weighted_files;      // tiered, both kernels: kernel 3's
  std::vector<PmemMapping> weighted_mappings;  // DAX, both kernels: kernel 3's, mapped
  EdgeCache<Id> cache;                // tiered
  EdgeCache<NodeWeight<Id>> weighted_cache;  // tiered kernel 3: prefixes of the weighted CSR's lists
  PlacementSpec spec;                 // as it was prepared
  double construction_time = 0;
  DramAccount dram;
  PlacementReport report;

  // DAX: each partition file's mapping as T pointers, kernel 2's files or (weighted) kernel 3's (kernel 3 alone
  // maps its files as `mappings`).
  template <class T>
  std::vector<const T*> mapped(bool weighted) const {
    std::vector<const T*> bases;
    for (const PmemMapping& m : weighted && !weighted_mappings.empty() ? weighted_mappings : mappings)
      bases.push_back(reinterpret_cast<const T*>(m.data()));
    return bases;
  }
  // Partition p's lists in place (DAX): kernel 2's, or with Entry = NodeWeight<Id> kernel 3's.
  template <class Entry = Id>
  std::vector<const Entry*> mapped_lists() const {
    return mapped<Entry>(!std::is_same_v<Entry, Id>);
  }
  const CsrFiles& kernel3_files() const { return weighted_files ? *weighted_files : *files; }
  uint64_t cache_bytes() const { return cache.entries_bytes() + weighted_cache.entries_bytes(); }
  const PrefixIndex& cache_index() const { return weighted_cache.index.bytes() ? weighted_cache.index : cache.index; }
};

// Called as kernel 1 goes: the phase's label, its progress.
using PhaseProgress = std::function<void(const std::string& phase, uint64_t done, uint64_t total)>;

template <class Id, class Source>
void prepare_in_core(PlacedGraph<Id>& out, const Source& source, const PlacementSpec& spec, const Topology& topo,
                     const PhaseProgress& progress) {
  const double t0 = now();
  out.spec = spec;
  auto phase = [&](const char* name, uint64_t done, uint64_t total) {
    if (progress) progress(std::string("kernel 1: ") + name, done, total);
  };
  if (spec.weighted) {  // one graph for both kernels: the ids as BFS reads them, the weights beside
    Csr<Id, float> weighted = build_csr<Id, float>(source, phase, spec.counted);
    out.weights = std::move(weighted.weights);
    out.g = std::move(static_cast<Csr<Id>&>(weighted));
  } else {
    out.g = build_csr<Id>(source, phase, spec.counted);
  }
  out.partitioning = partition_by_work(out.g, spec.parts, topo);
  place_graph(out.g, out.partitioning, spec.memory, topo, spec.weighted ? &out.weights : nullptr);
  out.report.degree_count_in_kernel0_time = taken_seconds(spec.counted);
  out.construction_time = now() - t0 + out.report.degree_count_in_kernel0_time;
  out.dram.available = available_memory_bytes();
  out.dram.graph = out.g.bytes() + out.weights.bytes();
  out.report.tier = spec.tier;
  out.report.memory_placement = describe_placement(spec.memory, out.partitioning, topo);
  if (spec.weighted) out.report.memory_placement["weights"] = out.report.memory_placement["adjacency"];
}

namespace prepare_detail {

// The disk an on-disk CSR to build takes at most (its lists, at most the tuples', twice with a weight each, and
// metadata) and what its directory's disk has free: refused where it cannot hold it.
struct CsrRoom {
  uint64_t need, free;
};
inline CsrRoom check_csr_room(const GraphDir& dir, bool weighted) {
  const CsrRoom room{dir.list_bytes() * (weighted ? 2 : 1) + dir.spec().vertex_count() * 16, free_bytes_at(dir.path())};
  if (room.free < room.need)
    throw Error(fmt::format("not enough space in {} for the on-disk CSR: needs about {}, {} free", dir.path(),
                            human_bytes(double(room.need)), human_bytes(double(room.free))));
  return room;
}

// The on-disk CSR for `parts` partitions: reused when present (a concurrent run's build is waited for), else
// built under the build lock with `scratch` bytes, the cache's prefixes kept in *staged where staging asks and
// the disk has room for them. Returns whether it was reused.
template <class Id>
bool build_or_reuse_csr(const GraphDir& dir, const std::string& path, int parts, const Topology& topo,
                        uint64_t scratch, bool dax, bool weighted, ExternalBuildStats& build,
                        const PhaseProgress& progress, CountedDegrees* counted, PrefixStaging staging = {},
                        std::optional<PrefixStage>* staged = nullptr) {
  DirLock build_lock;  // one build of a CSR at a time: a second run waits, then reuses what the first built
  if (!path_exists(path)) {
    build_lock = DirLock::wait_file(dir.path() + "/" + GraphDir::kHeaderFile);
    if (const int removed = remove_unfinished_builds(path))
      std::fprintf(stderr, "strata: note: removed %d unfinished CSR build(s) of %s (an interrupted run); rebuilding\n",
                   removed, path.c_str());
  }
  if (path_exists(path)) return true;
  const auto [need, free] = check_csr_room(dir, weighted);
  // The tuple buckets (a scratch file while the build runs, if it takes two ranges or more) where the disk holds
  // them beside the CSR (each bucket's space is handed back once read); else each range reads the tuples again,
  // which grows with graph / DRAM but needs no room.
  const uint64_t renumbered = weighted ? EdgeBuckets<Id, NodeWeight<Id>>::reserve_bytes(dir.edge_count())
                                      : EdgeBuckets<Id>::reserve_bytes(dir.edge_count());
  // A bucket's space goes back as its range is built, so buckets and CSR share the disk: the larger of the two,
  // and a quarter of the CSR for the lists' bytes that outgrow their buckets' (4 bytes an entry against ~3).
  const bool renumber = free >= std::max(need, renumbered) + need / 4;
  if (free < std::max(need, renumbered) + need / 4 + 2 * staging.cache_bytes) staging.dir.clear();  // at most twice the cache
  // Said on a terminal before the first byte is written, so the disk a run takes is no surprise (the tuples are
  // stored already, or regenerated by every pass; the build's scratch is DRAM). Quiet otherwise: errors stay
  // one line, and the JSON has csr_disk_bytes.
  if (::isatty(STDERR_FILENO))
    std::fprintf(stderr, "strata: kernel 1 writes the on-disk CSR to %s: at most %s of disk and %s, %s free (tuples: "
                 "%s)\n",
                 path.c_str(), human_bytes(double(need)).c_str(),
                 renumber ? ("up to " + human_bytes(double(renumbered)) + " of scratch while it builds").c_str()
                          : "no scratch (no room for the tuple buckets: each range reads the tuples)",
                 human_bytes(double(free)).c_str(),
                 dir.stores_tuples() ? (human_bytes(double(dir.data_bytes())) + " stored").c_str() : "regenerated, no disk");
  const BuildProgress report = [&](const char* phase, uint64_t done, uint64_t total) {
    if (progress) progress(std::string(weighted ? "kernel 1: weighted on-disk CSR, " : "kernel 1: on-disk CSR, ") + phase,
                           done, total);
  };
  if (!weighted) {
    build_csr_files<Id>(dir, path, parts, topo, scratch, report, &build, dax,
                        renumber ? Renumbering::for_source(dir, dir.path()) : Renumbering{}, counted, staging, staged);
  } else if constexpr (sizeof(Id) == 4) {
    build_csr_files<Id, NodeWeight<Id>>(dir, path, parts, topo, scratch, report, &build, dax,
                                        renumber ? Renumbering::for_source(dir, dir.path()) : Renumbering{}, counted,
                                        staging, staged);
  } else {
    throw Error("kernel 3 needs 32-bit vertex ids");
  }
  return false;
}

// K for the edge cache: the one asked for (checked against the budget), none for DAX without a budget, or
// the largest the budget holds.
template <class Id>
uint64_t choose_k(const Csr<Id>& g, const PlacementSpec& spec, const DramAccount& d, uint64_t entry) {
  if (spec.on_mem_edges >= 0) {
    const uint64_t k = uint64_t(spec.on_mem_edges);
    check_cache_fits(k, cache_entries(g, k, spec.hub_degree) * entry, d.io_buffers, d.budget, spec.dram_budget > 0,
                     d.state + d.stream_buffers, d.available);
    return k;
  }
  if (spec.tier->in_place && spec.dram_budget == 0) return 0;  // DAX reads every list in place
  return k_for_budget_or_refuse(g, d.budget, d.io_buffers, spec.hub_degree, "the", entry);
}

// DAX: the partition files of `files` mapped into `maps`; report.is_pmem stays true only while every mapping is.
template <class Id>
void map_partitions(PlacedGraph<Id>& out, const CsrFiles& files, std::vector<PmemMapping>& maps) {
  for (int p = 0; p < files.layout().parts(); ++p) {
    maps.push_back(PmemMapping::open_read(files.path() + "/" + CsrFiles::adj_name(p)));
    out.report.is_pmem = out.report.is_pmem && maps.back().is_pmem();
    out.report.mapped_bytes += maps.back().size();
  }
  if (!out.report.is_pmem)
    std::fprintf(stderr, "strata: warning: %s is not on persistent memory (no DAX mapping): the search reads it "
                         "through the page cache\n", files.path().c_str());
}

// The edge cache of K for kernel 2 (ids) or kernel 3 (weighted): from the prefixes this run's build kept where
// they hold K, else read from the files, or copied out of the mapping (DAX).
template <class Id>
void load_cache(PlacedGraph<Id>& out, bool weighted, uint64_t k, const PhaseProgress& progress,
                const std::optional<PrefixStage>& staged = std::nullopt) {
  const bool dax = out.spec.tier->in_place;
  const CsrFiles& files = weighted ? out.kernel3_files() : *out.files;
  const auto loading = [&](uint64_t done, uint64_t total) {
    if (progress) progress("kernel 1: loading the edge cache", done, total);
  };
  if (staged && staged->holds(k, out.spec.hub_degree)) {
    if (!weighted) out.cache = staged->load<Id, Id>(out.g, k, loading);
    else if constexpr (sizeof(Id) == 4) out.weighted_cache = staged->load<Id, NodeWeight<Id>>(out.g, k, loading);
    out.report.cache_source = "build";
    return;
  }
  out.report.cache_source = dax ? "mapping" : "csr";
  if (!weighted) {
    out.cache = dax ? load_edge_cache_mapped(out.g, files, out.template mapped<char>(false), k, out.spec.hub_degree)
                    : load_edge_cache(out.g, files, k, out.spec.hub_degree, loading);
  } else if constexpr (sizeof(Id) == 4) {
    out.weighted_cache = dax ? load_edge_cache_mapped<Id, NodeWeight<Id>>(out.g, files, out.template mapped<char>(true), k,
                                                                          out.spec.hub_degree)
                             : load_edge_cache<Id, NodeWeight<Id>>(out.g, files, k, out.spec.hub_degree, loading);
  }
}

// Opens a built CSR: checked against the graph, its partitions and whether it holds weights.
inline CsrFiles open_csr(const GraphDir& dir, const std::string& path, int parts, bool weighted) {
  CsrFiles files = CsrFiles::open(path, dir.header_hash(), dir.spec().scale);
  if (files.layout().parts() != parts) throw Error(path + " has the wrong partition count");
  if (files.layout().weighted != weighted)
    throw Error(path + (weighted ? " holds no weights" : " holds weights where ids alone belong"));
  return files;
}

// The DRAM account before kernel 1: the O(N) state, the I/O and stream buffers, the budget and the build's
// scratch (the budget, or, DAX without one, a quarter of what is free beyond the state, plus the part of the
// state the build does not use: the search's arrays come after it, so fewer passes).
template <class Id>
void plan_dram(DramAccount& d, const GraphDir& dir, const PlacementSpec& spec) {
  const bool dax = spec.tier->in_place;
  // Kernel 0's degree count, still held, becomes the build's label array: DRAM this run has, not a neighbour's.
  d.available = available_memory_bytes() + (spec.counted ? spec.counted->held_bytes() : 0);
  d.state = tiered_state_bytes(dir.spec().vertex_count(), sizeof(Id), spec.weighted);
  d.io_buffers = dax ? 0 : io_buffer_bytes(spec.threads, spec.io);
  d.stream_buffers = dir.stream_buffer_bytes(spec.threads);  // validation's, counted with the state
  const uint64_t fixed = d.state + d.stream_buffers;
  d.budget = tiered_budget(spec.dram_budget, dax, d.state, d.io_buffers, d.available, spec.threads, spec.io,
                           std::string(spec.tier->name).c_str(), dir.spec().scale, d.stream_buffers);
  const uint64_t build_state = tiered_build_state_bytes(dir.spec().vertex_count(), sizeof(Id));
  d.build_scratch = (d.budget > 0 ? d.budget : (d.available > fixed ? (d.available - fixed) / 4 : 0)) +
                    (d.state > build_state ? d.state - build_state : 0);
}

// The run's CSR paths: the first kernel's (kernel 2's unweighted one, or kernel 3's alone), and kernel 3's beside
// kernel 2's when both run.
struct CsrPaths {
  bool first_weighted, both;
  std::string first, weighted;
  std::vector<std::string> all() const { return both ? std::vector<std::string>{first, weighted} : std::vector<std::string>{first}; }
};

inline CsrPaths csr_paths(const GraphDir& dir, const PlacementSpec& spec) {
  const bool first_weighted = spec.weighted && !spec.ids;
  return {first_weighted, spec.weighted && spec.ids, CsrFiles::path_for(dir.path(), spec.parts, first_weighted),
          CsrFiles::path_for(dir.path(), spec.parts, true)};
}

// Kernel 1 on storage: each CSR the run needs, built or reused. Returns whether all were reused.
template <class Id>
bool build_or_reuse_csrs(const GraphDir& dir, const CsrPaths& at, const PlacementSpec& spec, const Topology& topo,
                         uint64_t scratch, ExternalBuildStats& build, const PhaseProgress& progress,
                         const PrefixStaging& staging = {}, std::optional<PrefixStage>* staged = nullptr) {
  const bool dax = spec.tier->in_place;
  bool reused = build_or_reuse_csr<Id>(dir, at.first, spec.parts, topo, scratch, dax, at.first_weighted, build, progress,
                                       spec.counted, staging, staged);
  if (at.both) {
    ExternalBuildStats second{};
    const bool second_reused =
        build_or_reuse_csr<Id>(dir, at.weighted, spec.parts, topo, scratch, dax, true, second, progress, spec.counted);
    if (!second_reused) build.passes += second.passes;
    reused = reused && second_reused;
  }
  return reused;
}

// What a stored CSR refuses says how to get a good one.
template <class Fn>
void read_csr(Fn&& read, const std::string& at) {
  try {
    read();
  } catch (const Error& e) {
    throw with_rebuild_hint(e, at);
  }
}

// The built CSRs opened and their metadata loaded; kernel 3's, beside kernel 2's, must describe the same graph
// (its lists are kernel 2's by weight: the same offsets, labels and duplicates).
template <class Id>
void open_csrs(PlacedGraph<Id>& out, const GraphDir& dir, const CsrPaths& at, int parts) {
  read_csr([&] {
    out.files.emplace(open_csr(dir, at.first, parts, at.first_weighted));
    out.g = load_csr_meta<Id>(*out.files);
  }, at.first);
  if (!at.both) return;
  read_csr([&] {
    out.weighted_files.emplace(open_csr(dir, at.weighted, parts, true));
    const CsrLayout& a = out.files->layout();
    const CsrLayout& b = out.weighted_files->layout();
    if (b.n != a.n || b.entries != a.entries || b.bounds != a.bounds || out.weighted_files->meta_hash() != out.files->meta_hash())
      throw Error(fmt::format("{} does not describe the graph {} does (another build's metadata)", at.weighted, at.first));
  }, at.weighted);
}

// The tiered placement's report: the CSR on disk, its build, the cache, and where each array lives.
template <class Id>
void report_tiered(PlacedGraph<Id>& out, const GraphDir& dir, const CsrPaths& at, const ExternalBuildStats& build,
                   bool reused, double build_time, double cache_load_time) {
  const bool dax = out.spec.tier->in_place;
  PlacementReport& r = out.report;
  r.tier = out.spec.tier;
  r.on_mem_edges_all = r.on_mem_edges >= max_degree(out.g);
  r.hub_degree = out.spec.hub_degree;
  r.adjacency_bytes = out.g.directed_edges() * out.files->layout().entry_bytes();
  r.csr_dir = at.first;
  r.csr_disk_bytes = 0;
  for (const std::string& dir_path : at.all())
    for (const auto& file : std::filesystem::directory_iterator(dir_path))
      if (file.is_regular_file()) r.csr_disk_bytes += file.file_size();
  r.tuple_file_bytes = dir.data_bytes();
  r.csr_reused = reused;
  r.csr_build_time = build_time;
  if (!reused) r.csr_build_passes = build.passes, r.csr_build_tuple_passes = build.tuple_passes, r.csr_build = build;
  r.csr_build_renumbered_bytes = build.renumbered_bytes;
  r.cache_load_time = cache_load_time;
  const std::vector<const DirectFile*> adj = out.files->adj_files();
  r.direct_io = !dax && std::all_of(adj.begin(), adj.end(), [](const DirectFile* f) { return f->direct; });
  out.dram.edge_cache = out.cache_bytes();
  out.dram.graph = out.g.bytes() + out.cache_bytes() + out.cache_index().bytes();
  std::vector<int> cpu_nodes;
  for (int n : out.partitioning.node)
    if (std::find(cpu_nodes.begin(), cpu_nodes.end(), n) == cpu_nodes.end()) cpu_nodes.push_back(n);
  const std::string local = fmt::format("DRAM, partitioned over CPU nodes {}", fmt::join(cpu_nodes, ","));
  r.memory_placement = {{"adjacency", dax ? fmt::format("mapped in place from {} ({})", at.first, r.is_pmem ? "pmem" : "page cache")
                                          : fmt::format("on storage in {}, read with io_uring", at.first)},
                        {"edge_cache", local}, {"offsets", local}, {"labels", local}, {"duplicates", local},
                        {"parents", local},    {"frontiers", local}};
}

}  // namespace prepare_detail

// What a tiered run can know before any work, refused then: its DRAM account (the O(N) state comes from the spec)
// and the disk of each CSR it must build. prepare_tiered makes the same checks after kernel 0; before, they came
// only then (SCALE 29 under a 7 GiB cap: 2.5 minutes of kernel 0, then "needs 7.9 GiB of O(N) state").
template <class Id>
void check_tiered_resources(const GraphDir& dir, const PlacementSpec& spec) {
  using namespace prepare_detail;
  DramAccount d;
  plan_dram<Id>(d, dir, spec);
  const CsrPaths at = csr_paths(dir, spec);
  if (!path_exists(at.first)) check_csr_room(dir, at.first_weighted);
  if (at.both && !path_exists(at.weighted)) check_csr_room(dir, true);
}

// Out-of-core and DAX: the DRAM planned, kernel 1 on storage (or its CSR reused), the CSR opened, K chosen in the
// budget, the edge cache loaded (DAX: the partitions mapped), and the report.
template <class Id>
void prepare_tiered(PlacedGraph<Id>& out, const GraphDir& dir, const PlacementSpec& spec, const Topology& topo,
                    const PhaseProgress& progress) {
  using namespace prepare_detail;
  const bool dax = spec.tier->in_place;
  DramAccount& d = out.dram;
  plan_dram<Id>(d, dir, spec);
  const double t0 = now();
  out.spec = spec;
  const CsrPaths at = csr_paths(dir, spec);
  ExternalBuildStats build{};
  // A build keeps the first CSR's cache prefixes for the read-back it saves.
  const PrefixStaging staging =
      PrefixStaging::for_cache(dir.path(), dax, spec.hub_degree, d.budget, d.io_buffers, spec.on_mem_edges);
  std::optional<PrefixStage> staged;
  const bool reused = build_or_reuse_csrs<Id>(dir, at, spec, topo, d.build_scratch, build, progress, staging, &staged);
  if (reused) d.build_scratch = 0;
  const double built = now();
  open_csrs(out, dir, at, spec.parts);
  // The budget's refusals are about the budget: the CSR is good and stays.
  d.state = out.g.bytes() + PrefixIndex::bytes_for(out.g.n) + tiered_search_bytes(out.g.n, sizeof(Id), spec.weighted);
  d.budget = tiered_budget(spec.dram_budget, dax, d.state, d.io_buffers, d.available, spec.threads, spec.io,
                           std::string(spec.tier->name).c_str(), dir.spec().scale, d.stream_buffers);
  const uint64_t k = choose_k(out.g, spec, d, out.files->layout().entry_bytes());
  out.partitioning = Partitioning::with_bounds(out.files->layout().bounds, topo);
  out.report.is_pmem = dax;
  read_csr([&] {
    if (dax) map_partitions(out, *out.files, out.mappings);
    load_cache(out, at.first_weighted, k, progress, staged);
  }, at.first);
  staged.reset();  // its scratch file's space back
  if (at.both && dax) read_csr([&] { map_partitions(out, *out.weighted_files, out.weighted_mappings); }, at.weighted);
  out.report.on_mem_edges = k;
  const double loaded = now();
  // A reused CSR counts the build it took, so that construction_time always covers building the graph.
  out.report.degree_count_in_kernel0_time = taken_seconds(spec.counted);
  const double build_time = reused ? out.files->layout().build_seconds : built - t0 + out.report.degree_count_in_kernel0_time;
  out.construction_time = build_time + (loaded - built);
  report_tiered(out, dir, at, build, reused, build_time, loaded - built);
}

// A validation pass's borrowed edge cache loaded again, kernel 2's or (weighted) kernel 3's, with the same K and
// index: the searches refer to pg.cache / pg.weighted_cache, which stay the same objects.
template <class Id>
void reload_edge_cache(PlacedGraph<Id>& pg, bool weighted, const PhaseProgress& progress = {}) {
  const uint64_t k = weighted ? pg.weighted_cache.k : pg.cache.k;
  prepare_detail::load_cache(pg, weighted, k, [&](const std::string&, uint64_t d, uint64_t t) {
    if (progress) progress("validation: reloading the edge cache", d, t);
  });
}

// Kernel 3's lists made ready once kernel 2 and the certificate are done, the time counted with kernel 1's:
// in-core, ordered by weight where they lie (order_lists_by_weight); where kernel 2 ran first on storage (--kernel
// both), kernel 2's cache given back and the weighted CSR's loaded with the K the same budget holds (8-byte
// entries). Nothing to do on storage where kernel 3 runs alone (its cache was loaded with the graph).
template <class Id>
void ready_kernel3_lists(PlacedGraph<Id>& pg, const PhaseProgress& progress = {}) {
  if (pg.weights.size() > 0 && !pg.by_weight) {
    const double t0 = now();
    if (progress) progress("kernel 1: kernel 3's lists by weight", 0, 1);
    order_lists_by_weight(pg.g.adj.data(), pg.weights.data(), pg.g.offsets, pg.g.n);
    pg.by_weight = true;
    pg.construction_time += now() - t0;
    return;
  }
  if (!pg.weighted_files || pg.weighted_cache.index.bytes() > 0) return;
  const double t0 = now();
  const uint64_t kernel2_cache = pg.cache.entries_bytes();
  pg.cache.adj = NumaArray<Id>();
  const uint64_t k = prepare_detail::choose_k(pg.g, pg.spec, pg.dram, sizeof(NodeWeight<Id>));
  try {
    prepare_detail::load_cache(pg, true, k, progress);
  } catch (const Error& e) {
    throw with_rebuild_hint(e, pg.weighted_files->path());
  }
  pg.dram.edge_cache = std::max(kernel2_cache, pg.weighted_cache.entries_bytes());
  pg.report.cache_load_time += now() - t0;
  pg.construction_time += now() - t0;
}

}  // namespace strata
