#include "cluster/run_mpi.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>

#include "cluster/dist_bfs_searches.hpp"
#include "cluster/dist_graph.hpp"
#include "cluster/dist_searches.hpp"
#include "cluster/dist_sssp_searches.hpp"
#include "cluster/dist_validator.hpp"
#include "cluster/rank_rows.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "core/units.hpp"
#include "driver/kernel_loop.hpp"
#include "engine/adjacency.hpp"
#include "engine/memory.hpp"
#include "engine/placement.hpp"
#include "engine/topology.hpp"
#include "storage/atomic_dir.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"
#include "storage/tuple_source.hpp"
#include "tiers/builtin.hpp"

namespace strata {

void check_mpi_config(const RunConfig& cfg, const PlantedFaults& plant, int processes) {
  const std::string under = fmt::format("under mpirun ({} processes)", processes);
  const Tier& tier = *cfg.place.tier;
  if (!is_builtin_tier(tier))  // a tier registered at run time (a test's) has no rank search
    throw Error(fmt::format("--placement {} does not run {}: only the built-in tiers do (tiers/builtin.hpp)", tier.name,
                            under));
  if (tier.on_storage && cfg.graph_dir.empty())
    throw Error(fmt::format("--placement {} {} needs a graph directory (--graph DIR): the ranks' rows are bound to it",
                            tier.name, under));
  if (!cfg.rank_dir.empty() && !tier.on_storage)
    throw Error("--rank-dir holds each rank's rows for --placement out-of-core or dax; an in-core run keeps them in DRAM");
  if (cfg.validate_against == ValidationMethod::kCsr)
    throw Error("--validate-against csr is not available " + under + ": the ranks validate against the tuples");
  if (plant.corrupt_csr) throw Error("--debug-corrupt-csr tests the CSR certificate, which a run " + under + " does not use");
  if (plant.corrupt_rows && tier.on_storage)
    throw Error("--debug-corrupt-rows damages rows in DRAM: it tests --placement in-core");
  if (cfg.numa_parts > 0) throw Error("--numa-nodes: a run " + under + " partitions by rank (start one rank per NUMA node)");
}

namespace {

void report(const RunHooks& hooks, const Comm& comm, const std::string& phase, uint64_t done, uint64_t total,
            const std::string& detail = {}) {
  if (hooks.progress && comm.root()) hooks.progress(phase, done, total, detail);
}

// DRAM a rank needs at its peak (kernel 1): its share of the vertices' arrays (block degrees and degree ranks,
// the deal's buffers, labels, raw degrees, list bounds: 16 ids a vertex over P) and two bitmaps of the whole
// graph (has_edge, the search's frontier), a round's buffers (the tuples; their hops and pairs, each held by the
// threads, the send buffer and the receiver) and its rows: in-core two ids a tuple over P ranks (a tenth for
// imbalance; kernel 3's: an (id, weight) pair a tuple, and kernel 2's ids beside them when both run); tiered, what its
// budget allows them.
template <class Id>
uint64_t rank_peak_bytes(const KroneckerSpec& spec, int processes, bool tiered, uint64_t budget, const KernelSet& kernels) {
  const uint64_t n = spec.vertex_count(), m = spec.edge_count(), p = uint64_t(processes);
  const bool weighted = kernels.weighted_lists();
  const uint64_t entry = weighted ? sizeof(NodeWeight<Id>) + (kernels.id_lists() ? sizeof(Id) : 0) : sizeof(Id);
  const uint64_t rows = tiered ? budget : 2 * m / p * entry * 11 / 10;
  const uint64_t pair = weighted ? sizeof(WeightedPair<Id>) : sizeof(IdPair<Id>);
  const uint64_t round = (uint64_t(1) << 21) * (sizeof(Edge) + (weighted ? sizeof(float) : 0) + 9 * pair);
  return 16 * sizeof(Id) * ((n + p - 1) / p) + n / 4 + rows + round;
}

template <class Id>
void check_memory(const KroneckerSpec& spec, const Comm& comm, bool tiered, uint64_t budget, const KernelSet& kernels) {
  const uint64_t each = rank_peak_bytes<Id>(spec, comm.size(), tiered, budget, kernels);
  const uint64_t node = each * uint64_t(comm.ranks_on_this_node()), have = node_memory_bytes();
  if (node > have)
    throw Error(fmt::format("SCALE {} with {} ranks on this node needs about {} of memory ({} a rank{}); {}",
                            spec.scale, comm.ranks_on_this_node(), human_bytes(double(node)), human_bytes(double(each)),
                            tiered ? ", its budget included" : "", available_words(have)));
  if (const uint64_t mine = available_memory_bytes(); each > mine)  // this rank's own ulimits
    throw Error(fmt::format("SCALE {} with {} ranks needs about {} of memory a rank{}; {}", spec.scale, comm.size(),
                            human_bytes(double(each)), tiered ? ", its budget included" : "", available_words(mine)));
}

// A planted fault in kernel 1's rows (--debug-corrupt-rows): the first entry of the first root's list, on the rank
// holding it (both kernels' lists), becomes a hole of the id space -- a vertex no rank holds, as rows changed on
// storage could name -- whose claim or relaxation its owner must refuse, ending the run.
template <class Id>
void plant_hole(DistGraph<Id>& g, uint64_t root) {
  uint64_t hole = UINT64_MAX;
  for (int r = 0; r < g.part.ranks && hole == UINT64_MAX; ++r)
    if (g.part.count(r) < g.part.span) hole = g.part.end(r);
  if (hole == UINT64_MAX) throw Error("--debug-corrupt-rows: this rank count leaves no hole in the id space (try 3 ranks)");
  if (!g.owns(root) || g.local_entries == 0) return;
  const uint64_t first = g.rows.offsets[root - g.lo];
  if (g.rows.offsets[root - g.lo + 1] == first) return;
  if (g.rows.adj.size() > 0) g.rows.adj[first] = Id(hole);
  if (g.weighted.size() > 0) g.weighted[first].v = Id(hole);
}

// Searches one pass over the tuples checks: --validate-batch, else up to 16, as a quarter of what is available
// on this node allows (every rank of the node holds its batch; kernel 3's hold distances too).
template <class Id>
int validation_slots(const RunConfig& cfg, uint64_t n, int roots, const Comm& comm) {
  const uint64_t each =
      DistValidator<Id>::batch_bytes(n, comm.size(), 1, cfg.kernels.has(kSsspKernel)) * uint64_t(comm.ranks_on_this_node());
  const uint64_t have = node_memory_bytes();
  if (cfg.validate_batch > 0) {
    const int slots = std::min(cfg.validate_batch, roots);
    if (each * uint64_t(slots) > have)
      throw Error(fmt::format("--validate-batch {} needs {} on this node for its batch; {} (lower it)", slots,
                              human_bytes(double(each * uint64_t(slots))), available_words(have)));
    return slots;
  }
  // The same on every rank (the batch ends in a collective pass): the smallest any rank's memory allows.
  const uint64_t mine = std::clamp<uint64_t>(have / 4 / std::max<uint64_t>(each, 1), 1, uint64_t(std::min(roots, 16)));
  return int(~comm.max(~mine));
}

// Every rank's RankReport on rank 0, in rank order.
std::vector<RankReport> gather_ranks(const RankReport& mine, const Comm& comm) {
  struct Plain {
    char host[64], rows_dir[512], cache_source[16];
    int32_t rank, threads, rows_reused, passes;
    uint64_t first, end, edges, dram, build_sent, search_sent, k, cache, budget, disk, read, buckets, prefixes;
    RankBuildSeconds build_seconds;
  } p{};
  p = {{}, {}, {}, mine.rank, mine.threads, mine.rows_reused, mine.build_passes, mine.first_vertex, mine.end_vertex,
       mine.directed_edges, mine.dram_bytes, mine.build_bytes_sent, mine.search_bytes_sent, mine.on_mem_edges,
       mine.edge_cache_bytes, mine.dram_budget, mine.disk_bytes, mine.bytes_read, mine.build_bucket_bytes,
       mine.cache_prefixes_written, mine.build_seconds};
  std::strncpy(p.host, mine.host.c_str(), sizeof(p.host) - 1);
  std::strncpy(p.rows_dir, mine.rows_dir.c_str(), sizeof(p.rows_dir) - 1);
  std::strncpy(p.cache_source, mine.cache_source.c_str(), sizeof(p.cache_source) - 1);
  std::vector<std::vector<Plain>> send(comm.size());
  send[0].push_back(p);
  std::vector<RankReport> all;
  for (const Plain& q : comm.exchange(send))
    all.push_back({q.rank, q.host, q.threads, q.first, q.end, q.edges, q.dram, q.build_sent, q.search_sent, q.rows_dir,
                   q.rows_reused != 0, q.k, q.cache, q.budget, q.disk, q.read, q.passes, q.buckets, q.build_seconds,
                   q.cache_source, q.prefixes});
  return all;
}

// Every rank's build lock on its rows (DIR/mpi-p<P>/.rank-<r>.lock), so a second run started while a first one
// builds the rows waits, then reuses them, as one process does with its CSR. All ranks or none: a run holding
// some ranks' locks while another run holds the rest would wait forever, so both let go and try again. Rank 0's
// lock is taken first and the others only by the run that holds it, so two runs do not take the ranks' locks
// crosswise and both retry (three runs on one --rank-dir could collide round after round). Where
// the rows exist and their directory cannot be written (a read-only copy), nothing can build them: no lock.
// Also clears what a killed build left (rank-<r>.tmp-<pid> of a dead process).
DirLock lock_rows(const std::string& dir, const Comm& comm, const DistProgress& progress) {
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  const std::string lock_path = (parent / ("." + std::filesystem::path(dir).filename().string() + ".lock")).string();
  for (int attempt = 0;; ++attempt) {
    DirLock lock;
    bool got = false;
    std::error_code made;  // why the rows' directory cannot be made (a read-only file system)
    auto unwritable = [&] {
      return Error(fmt::format("cannot keep this rank's rows in {}: {} (--rank-dir names a writable directory "
                               "for them)", parent.string(), made.message()));
    };
    auto take = [&] {
      try {
        got = DirLock::try_file(lock_path, lock);
      } catch (const Error&) {
        if (path_exists(dir)) return (void)(got = true);  // stored rows on a read-only file system
        if (!made) throw;
        throw unwritable();
      }
    };
    comm.all_or_none([&] {
      std::filesystem::create_directories(parent, made);
      if (comm.root()) take();
      else if (made && !path_exists(dir)) throw unwritable();  // now, not once rank 0's lock is free
    });
    const bool first = comm.max(uint64_t(got ? 1 : 0)) == 1;  // rank 0's lock, or its stored rows read-only
    if (first) comm.all_or_none([&] {
      if (!comm.root()) take();
    });
    if (first && comm.sum(got ? 0 : 1) == 0) {
      if (lock.held()) remove_unfinished_builds(dir);
      return lock;
    }
    if (attempt == 0 && progress) progress("waiting for another run building these rows", 0, 1);
    lock = DirLock();
    ::usleep(useconds_t(50000 + (::getpid() % 97) * 2000));  // apart from the other run's retries
  }
}

// Where a tiered rank keeps its rows and what DRAM they may take.
struct RowsPlace {
  std::string base;  // --rank-dir, or the graph directory
  bool dax = false;
  uint64_t budget = 0, share_of_node = 0, io_buffers = 0;
};

RowsPlace rows_place(const RunConfig& cfg, const Comm& comm) {
  RowsPlace at;
  at.base = cfg.rank_dir.empty() ? cfg.graph_dir : cfg.rank_dir;
  at.dax = cfg.place.tier->in_place;
  // No --dram-budget: out-of-core, half of what is free on the node shared by its ranks; dax, no cache.
  at.share_of_node = std::min(node_memory_bytes() / 2 / uint64_t(comm.ranks_on_this_node()), available_memory_bytes() / 2);
  at.budget = cfg.place.dram_budget > 0 ? cfg.place.dram_budget : at.dax ? 0 : at.share_of_node;
  comm.all_or_none([&] { at.io_buffers = check_rank_budget(at.budget, at.dax, cfg.place.io, omp_get_max_threads()); });
  return at;
}

// A tiered run's rows: kernel 2's (ids by degree) and kernel 3's (pairs by weight), each loaded when its kernel
// runs, so that one kernel's edge cache has the budget to itself.
template <class Id>
struct TieredRows {
  RowsPlace at;
  std::optional<RankRows<Id>> bfs;
  std::optional<RankRows<Id, NodeWeight<Id>>> sssp;
  RankRowsReport sssp_built;  // kernel 3's rows as kernel 1 found or built them (loaded later)
  const RankRowsReport* report() const {  // the first kernel's, for the report
    return bfs ? &bfs->report() : sssp ? &sssp->report() : nullptr;
  }
};

// One kernel's rows (Entry) on every rank's storage, built where any rank lacks them (collective: every rank
// takes part in the scatter; ranks that have theirs keep them): the received rows spilled to the rank's storage,
// then built in passes that each hold at most the rank's budget of rows in DRAM. `lock` gets the rows' build
// lock (hold it until they are loaded); the report says whether they were reused and how they were built. With
// `staged` (rows loaded right after) the edge cache's prefixes are kept as the rows are written, where it pays
// (engine/prefix_stage.hpp, as one process keeps its CSR's), so that loading the cache reads them, not the rows.
template <class Id, class Entry, class Source>
RankRowsReport build_rows(DistGraph<Id>& g, LabelMap<Id>& label, const TupleShare<Source>& share, const RowsPlace& at,
                          uint64_t graph_hash, const RunConfig& cfg, const Comm& comm, DistBuildReport& build,
                          DirLock& lock, const DistProgress& progress, std::optional<PrefixStage>* staged) {
  using Rows = RankRows<Id, Entry>;
  const double t0 = now();
  RankRowsReport made;
  made.dir = rank_rows_dir(at.base, comm.size(), comm.rank(), Rows::kWeighted);
  lock = lock_rows(made.dir, comm, progress);
  made.reused = path_exists(made.dir);
  if (comm.sum(made.reused ? 0 : 1) == 0) return made;
  uint64_t raw_entries = 0;
  for (uint64_t d : g.raw_degree) raw_entries += d;
  // A range's rows: the budget less the I/O buffers and the buckets' read blocks, at least 1 MiB (a dax budget
  // of a few MiB built its rows one list a pass: hours for SCALE 17). The received rows are staged in half of it.
  const uint64_t reads = EdgeBuckets<Id, Entry>::read_bytes(omp_get_max_threads());
  uint64_t rows_bytes = at.budget == 0 ? at.share_of_node
                                       : std::max<uint64_t>(at.budget - at.io_buffers, reads + (1 << 20)) - reads;
  const std::string scratch = std::filesystem::path(made.dir).parent_path().string();
  if (staged && !made.reused) {
    const uint64_t longest = g.local_count() > 0 ? *std::max_element(g.raw_degree.begin(), g.raw_degree.end()) : 0;
    const PrefixStaging staging = PrefixStaging::for_cache(scratch, at.dax, cfg.place.hub_degree, at.budget,
                                                           at.io_buffers, cfg.place.on_mem_edges);
    rows_bytes -= open_prefix_stage(*staged, staging, g.local_count(), [&g](uint64_t i) { return g.raw_degree[i]; },
                                    raw_entries, longest, sizeof(Entry), rows_bytes);
  }
  std::optional<RowBuckets<Id, Entry>> spill;
  if (!made.reused) spill.emplace(scratch, g, rows_bytes, rows_bytes / 2);
  const double d0 = now();
  scatter_tuples<PairFor<Id, Entry>>(share, comm, label, build, progress, [&](auto&& got) {
    if (spill) spill->add(got, Id(comm.size()));
  });
  if (!spill) return made;
  spill->buckets.finish();
  made.build_seconds.distribute = now() - d0;
  made.bucket_bytes = spill->buckets.written_bytes();
  build.raw_entries = raw_entries;
  made.build_passes = Rows::write_from(made.dir, g, *spill, graph_hash, share.source.spec().scale, t0, at.dax, made,
                                       staged && *staged ? &**staged : nullptr);
  return made;
}

// This rank's rows of one kernel loaded from `made.dir` (collective: a refusal on any rank -- its budget, its
// damaged rows -- ends them all, named), the cache cut from the prefixes build_rows staged where they hold it
// (then handed back, with their scratch file's space).
template <class Id, class Entry>
void load_rows(std::optional<RankRows<Id, Entry>>& rows, const RankRowsReport& made, DistGraph<Id>& g,
               const RunConfig& cfg, const RowsPlace& at, uint64_t graph_hash, int scale, const Comm& comm,
               std::optional<PrefixStage>&& staged = std::nullopt) {
  comm.all_or_none([&] {
    try {
      rows.emplace(made.dir, g, graph_hash, scale, at.budget, cfg.place.on_mem_edges, cfg.place.hub_degree, cfg.place.io,
                   omp_get_max_threads(), at.dax, staged ? &*staged : nullptr);
    } catch (const Error& e) {
      throw with_rebuild_hint(e, made.dir);
    }
  });
  staged.reset();
  rows->report().reused = made.reused;
  rows->report().build_seconds = made.build_seconds;
  rows->report().build_passes = made.build_passes;
  rows->report().bucket_bytes = made.bucket_bytes;
}

// Tiered kernel 1: the vertex order, then each kernel's rows from its directory, built where any rank lacks
// them; the first kernel's loaded now (kernel 3's, after kernel 2, by load_kernel3_rows). With kernel 3 the
// tuples are the weighted share's (the spec's, as a graph directory's are).
template <class Id, class Source>
DistGraph<Id> build_on_storage(const TupleShare<Source>& share, const TupleShare<GeneratedEdges>* wshare,
                               const RunConfig& cfg, uint64_t graph_hash, const Comm& comm, DistBuildReport& build,
                               TieredRows<Id>& rows, const DistProgress& progress) {
  const double t0 = now();
  rows.at = rows_place(cfg, comm);
  const int scale = share.source.spec().scale;
  LabelMap<Id> label;
  DistGraph<Id> g = wshare ? order_vertices(*wshare, comm, label, progress) : order_vertices(share, comm, label, progress);
  if (cfg.kernels.id_lists()) {
    DirLock lock;  // held until the rows are loaded
    std::optional<PrefixStage> staged;
    const RankRowsReport made =
        build_rows<Id, Id>(g, label, share, rows.at, graph_hash, cfg, comm, build, lock, progress, &staged);
    load_rows(rows.bfs, made, g, cfg, rows.at, graph_hash, scale, comm, std::move(staged));
  }
  if constexpr (sizeof(Id) == 4) {
    if (cfg.kernels.weighted_lists()) {
      DirLock lock;
      // Kernel 3's rows load now only when kernel 2 does not run; else after its searches, from the rows.
      const bool now = !cfg.kernels.id_lists();
      std::optional<PrefixStage> staged;
      rows.sssp_built = build_rows<Id, NodeWeight<Id>>(g, label, *wshare, rows.at, graph_hash, cfg, comm, build, lock,
                                                       progress, now ? &staged : nullptr);
      if (now) load_rows(rows.sssp, rows.sssp_built, g, cfg, rows.at, graph_hash, scale, comm, std::move(staged));
    }
  }
  std::vector<Id>().swap(label.rank);  // kept when no rank rebuilt its rows
  g.directed_edges = comm.sum(g.entries());
  build.seconds = now() - t0;
  return g;
}

// Both kernels on storage: kernel 2's rows (and their edge cache) given back, kernel 3's loaded within the same
// budget, the time counted with kernel 1's as one process counts ready_kernel3_lists.
template <class Id>
void load_kernel3_rows(RunResult& r, DistGraph<Id>& g, TieredRows<Id>& rows, const RunConfig& cfg, uint64_t graph_hash,
                       int scale, const Comm& comm) {
  if (rows.sssp) return;
  const RankRowsReport kernel2 = rows.bfs->report();
  rows.bfs.reset();
  load_rows(rows.sssp, rows.sssp_built, g, cfg, rows.at, graph_hash, scale, comm);
  const RankRowsReport& k3 = rows.sssp->report();
  r.construction_time += comm.max(k3.load_seconds + (rows.sssp_built.reused ? k3.stored_build_seconds : 0.0));
  rows.sssp->report().disk_bytes += kernel2.disk_bytes;  // both kernels' rows on this rank's storage
}

// Kernel 1 for the placement, timed across the ranks (the slowest); in-core rows placed on --mem-nodes.
// Kernel 3 (wshare: the weighted tuples) builds the weighted rows, and kernel 2's beside them when both run.
template <class Id>
DistGraph<Id> kernel1(RunResult& r, const RunConfig& cfg, const TupleSource& source, const TupleShare<TupleSource>& share,
                      const TupleShare<GeneratedEdges>* wshare, const Comm& comm, const RunHooks& hooks,
                      DistBuildReport& build, TieredRows<Id>& rows) {
  comm.barrier();
  const double t0 = now();
  const DistProgress progress = [&](const char* phase, uint64_t d, uint64_t t) {
    report(hooks, comm, std::string("kernel 1: ") + phase, d, t);
  };
  uint64_t graph_hash = 0;
  if (const GraphDir* dir = source.dir()) graph_hash = dir->header_hash();
  DistGraph<Id> g = cfg.place.tier->on_storage ? build_on_storage(share, wshare, cfg, graph_hash, comm, build, rows, progress)
                    : wshare ? build_dist_graph<Id, NodeWeight<Id>>(*wshare, comm, build, cfg.kernels.id_lists(), progress)
                             : build_dist_graph<Id>(share, comm, build, false, progress);
  if (cfg.place.memory.any()) {  // each rank's rows on the chosen memory nodes (e.g. CXL), or interleaved
    const Topology topo = Topology::detect();
    const std::vector<int>& nodes = cfg.place.memory.mem_nodes.empty() ? topo.memory_nodes : cfg.place.memory.mem_nodes;
    g.rows.adj.place_on(nodes, cfg.place.memory.interleave);
    g.weighted.place_on(nodes, cfg.place.memory.interleave);
  }
  // Reused rows count the build that wrote them (as a reused on-disk CSR does), plus loading them now.
  const RankRowsReport* stored = rows.report();
  const bool reused = stored && stored->reused && (!rows.bfs || !cfg.kernels.weighted_lists() || rows.sssp_built.reused);
  r.construction_time = comm.max(reused ? stored->stored_build_seconds + stored->load_seconds : now() - t0);
  r.directed_edges = g.directed_edges;
  return g;
}

// The kernels under mpirun, in the reference's order: adding one here registers it with the ranks' run.
using DistKernels = KernelList<DistBfsSearches, DistSsspSearches>;
static_assert(lists_every_kernel(DistKernels{}), "DistKernels lists every kernel of kKernels, in its order");

// The rows on this rank's storage, in its report and (rank 0's figures, every rank's disk) the placement's.
template <class Id>
void describe_rows(RunResult& r, RankReport& mine, const RunConfig& cfg, const TupleSource& source, const DistGraph<Id>& g,
                   const RankRowsReport& rr, const SearchTotals& totals, const Comm& comm) {
  mine.dram_bytes += rr.cache_bytes + rr.io_buffer_bytes;
  mine.rows_dir = rr.dir;
  mine.rows_reused = rr.reused;
  mine.on_mem_edges = rr.k;
  mine.edge_cache_bytes = rr.cache_bytes;
  mine.dram_budget = rr.budget;
  mine.disk_bytes = rr.disk_bytes;
  mine.build_passes = rr.build_passes;
  mine.build_bucket_bytes = rr.bucket_bytes;
  mine.build_seconds = rr.build_seconds;
  mine.bytes_read = totals.bytes_read;
  r.placement.on_mem_edges = rr.k;
  r.placement.hub_degree = cfg.place.hub_degree;
  r.placement.csr_dir = rr.dir.substr(0, rr.dir.rfind("rank-")) + "rank-<r>";  // every rank its own
  r.placement.csr_reused = comm.sum(rr.reused ? 0 : 1) == 0;
  r.placement.csr_disk_bytes = comm.sum(rr.disk_bytes);
  r.placement.cache_load_time = comm.max(rr.load_seconds);
  mine.cache_source = rr.cache_source;
  mine.cache_prefixes_written = rr.prefix_bytes;
  r.placement.cache_source = rr.cache_source;  // rank 0's, as its cache's figures
  r.placement.direct_io = !rr.dax;
  r.placement.is_pmem = comm.sum(rr.dax && !rr.is_pmem ? 1 : 0) == 0;
  r.placement.adjacency_bytes = g.directed_edges * (cfg.kernels.id_lists() ? sizeof(Id) : sizeof(NodeWeight<Id>));
  if (const GraphDir* dir = source.dir()) r.placement.tuple_file_bytes = dir->data_bytes();
  r.dram.budget = rr.budget;
  r.dram.edge_cache = rr.cache_bytes;
  r.io_buffer_bytes = rr.io_buffer_bytes;
}

// What each rank holds and used, gathered on rank 0, and the placement lines: rank 0's cache and budget, every
// rank's disk and reads.
// search_state: the larger kernel's per-search arrays on this rank.
template <class Id>
void describe(RunResult& r, const RunConfig& cfg, const TupleSource& source, const DistGraph<Id>& g, uint64_t search_state,
              const RankRowsReport* rows, const DistBuildReport& build, const SearchTotals& totals,
              int slots, const Comm& comm) {
  r.validate_batch = cfg.validate ? std::min(slots, int(r.roots())) : 1;
  r.parts = 1;
  r.numa_nodes = 1;
  r.id_bytes = sizeof(Id);
  r.mpi_processes = comm.size();
  r.partitions = fmt::format("vertex k of the degree order on rank k mod {}", comm.size());
  r.mpi_partition = "1-D: vertices dealt to the ranks in degree order, one each in turn (equal vertices, about equal "
                    "adjacency entries)";
  char host[64] = {};
  ::gethostname(host, sizeof(host) - 1);
  const uint64_t validation = cfg.validate ? DistValidator<Id>::batch_bytes(g.n, comm.size(), slots, cfg.kernels.has(kSsspKernel)) : 0;
  RankReport mine;
  mine.rank = comm.rank();
  mine.host = host;
  mine.threads = omp_get_max_threads();
  mine.first_vertex = g.lo;
  mine.end_vertex = g.hi;
  mine.directed_edges = g.entries();
  mine.dram_bytes = g.bytes() + search_state + validation;
  mine.build_bytes_sent = build.bytes_sent;
  mine.search_bytes_sent = totals.bytes_sent;
  r.placement.tier = cfg.place.tier;
  if (rows) describe_rows(r, mine, cfg, source, g, *rows, totals, comm);
  r.ranks = gather_ranks(mine, comm);
  r.dram.graph = comm.sum(g.bytes());
  r.dram_bytes = comm.sum(mine.dram_bytes);
}

template <class Id>
void run_on(RunResult& r, const RunConfig& cfg, const TupleSource& source, const Comm& comm, const RunHooks& hooks) {
  r.spec = source.spec();
  const bool tiered = cfg.place.tier->on_storage;
  comm.all_or_none([&] { check_memory<Id>(r.spec, comm, tiered, cfg.place.dram_budget, cfg.kernels); });
  const TupleShare<TupleSource> share(source, comm);
  // Kernel 3's tuples with their weights, drawn from the spec as one process draws them (a graph directory
  // stores no weights; its tuples are the spec's).
  std::optional<GeneratedEdges> weighted;
  std::optional<TupleShare<GeneratedEdges>> wshare;
  if (cfg.kernels.weighted_lists()) wshare.emplace(weighted.emplace(GeneratedEdges{Kronecker(r.spec)}), comm);

  comm.barrier();  // kernel 0: each rank's share generated, or read with its checksums checked
  const double t0 = now();
  uint64_t round = 0;
  share.for_each_round([&](std::span<const Edge>) { report(hooks, comm, "kernel 0", ++round, share.rounds); });
  r.generation_time = comm.max(now() - t0);

  DistBuildReport build;
  TieredRows<Id> rows;
  DistGraph<Id> g = kernel1<Id>(r, cfg, source, share, wshare ? &*wshare : nullptr, comm, hooks, build, rows);
  uint64_t graph_hash = 0;
  if (const GraphDir* dir = source.dir()) graph_hash = dir->header_hash();
  const std::vector<uint64_t> roots =
      search_roots(r.spec, cfg.roots, [&](uint64_t v) { return (g.has_edge[v >> 6] >> (v & 63)) & 1; });
  if (roots.empty()) throw Error(fmt::format("SCALE {} graph has no vertex with an edge: nothing to search", r.spec.scale));
  const std::vector<Id> internal = internal_roots(g, roots, comm);
  if (hooks.plant.corrupt_rows) plant_hole(g, internal[0]);
  const int slots = validation_slots<Id>(cfg, g.n, cfg.roots, comm);
  const RankLists<Id> lists{
      [&] { return rows.bfs ? rows.bfs->adjacency() : g.template adjacency<Id>(); },
      [&] {
        if constexpr (sizeof(Id) == 4)
          if (cfg.place.tier->on_storage) load_kernel3_rows(r, g, rows, cfg, graph_hash, r.spec.scale, comm);
        return rows.sssp ? rows.sssp->adjacency() : g.template adjacency<NodeWeight<Id>>();
      },
      [&](uint64_t bytes) {
        if (rows.sssp) rows.sssp->report().io_buffer_bytes = bytes;  // kernel 3's rows count their source's
      }};
  DistContext<Id> c{r, cfg, share, wshare ? &*wshare : nullptr, g, lists, roots, internal, slots, comm, hooks};
  for_each_kernel_in(DistKernels{}, cfg.kernels, [&](auto kernel) {
    if (r.ok()) decltype(kernel)::run(c);  // a kernel runs only while every search before it is valid
  });
  describe(r, cfg, source, g, c.state, rows.report(), build, c.totals, slots, comm);
  if (!r.ok()) return;  // no statistics from a failed run
  r.statistics = graph500_statistics(r.spec.scale, r.spec.edgefactor, r.generation_time, r.construction_time,
                                     r.timed(), comm.size());
  // No busy-CPU sample under mpirun: the node's other ranks keep its CPUs busy by design. The threads counted
  // against the node's CPUs are its ranks' together.
  r.measurement_warnings =
      run_warnings(*r.timed().front().second, 0.0, r.threads * comm.ranks_on_this_node(), cfg.roots);
}

// What every rank must share, as (name, value): the graph (its spec; read from a directory, its header's
// checksum) and the options that shape the run's collectives and results. Per-rank choices (threads, budgets,
// caches, --rank-dir, memory nodes) may differ.
std::vector<std::pair<std::string, std::string>> shared_fields(const RunConfig& cfg, const PlantedFaults& plant,
                                                               const KroneckerSpec& spec, uint64_t graph_hash) {
  std::vector<std::pair<std::string, std::string>> fields{{"SCALE", std::to_string(spec.scale)},
          {"edgefactor", std::to_string(spec.edgefactor)},
          {"seed", fmt::format("{},{}", spec.seed1, spec.seed2)},
          {"the graph header's checksum", fmt::format("{:016x}", graph_hash)},
          {"--roots", std::to_string(cfg.roots)},
          {"--kernel", cfg.kernels.name()},
          {"--delta", fmt::format("{}", cfg.delta)},
          {"--placement", std::string(cfg.place.tier->name)},
          {"validation (--no-validate)", cfg.validate ? "on" : "off"},
          {"--validate-batch", std::to_string(cfg.validate_batch)},
          {"--alpha", fmt::format("{}", cfg.bfs.alpha)},
          {"--beta", fmt::format("{}", cfg.bfs.beta)},
          {"the direction (--top-down-only, --bottom-up-only)", std::to_string(int(cfg.bfs.direction))},
          {"--trace", cfg.bfs.trace ? "on" : "off"},
          {"--debug-corrupt-rows", plant.corrupt_rows ? "on" : "off"},
          {"--debug-id-bytes", std::to_string(cfg.id_bytes)}};
  for (size_t k = 0; k < kKernelCount; ++k)
    fields.emplace_back(kKernels[k]->fault_flag, std::to_string(plant.corrupt_search[k]));
  return fields;
}

// Rank 0's graph and options against every rank's: a rank that differs ends the run before any work, naming
// itself and the first field (two ranks reading different graphs under one path ran "valid" with the other's
// nedge; a different SCALE crashed; a different --no-validate hung).
void check_ranks_agree(const RunConfig& cfg, const PlantedFaults& plant, const KroneckerSpec& spec, uint64_t graph_hash,
                       const Comm& comm) {
  const auto mine = shared_fields(cfg, plant, spec, graph_hash);
  std::string text;
  for (const auto& [name, value] : mine) text += value + '\n';
  const std::string root = comm.broadcast(text, 0);
  std::string error;
  std::istringstream theirs(root);
  std::string value;
  for (const auto& [name, here] : mine) {
    std::getline(theirs, value);
    if (value == here) continue;
    error = fmt::format("{} is {} here but {} on rank 0: every rank must run the same graph and options", name, here,
                        value);
    break;
  }
  comm.agree(error);
}

// 32-bit ids up to SCALE 31 (rows and messages half the size), 64-bit above or when --debug-id-bytes 8 asks.
void run_with_ids(RunResult& r, const RunConfig& cfg, const TupleSource& source, const Comm& comm, const RunHooks& hooks) {
  check_run_config(cfg, source.spec().scale);
  if (wide_ids(cfg, source.spec().scale)) run_on<uint64_t>(r, cfg, source, comm, hooks);
  else run_on<uint32_t>(r, cfg, source, comm, hooks);
}

}  // namespace

RunResult run_graph500_mpi(const RunConfig& cfg, const RunHooks& hooks, const Comm& comm) {
  check_mpi_config(cfg, hooks.plant, comm.size());
  omp_set_num_threads(cfg.threads > 0 ? cfg.threads : comm.cores_per_rank());
  RunResult r = result_for(cfg);
  r.threads = omp_get_max_threads();
  r.validation.method = ValidationMethod::kTuples;
  if (!cfg.graph_dir.empty()) {
    std::optional<DirLock> lock;
    std::optional<GraphDir> dir;
    comm.all_or_none([&] {
      lock.emplace(lock_graph_dir(cfg.graph_dir));  // each rank: a shared lock, held for the run
      dir.emplace(GraphDir::open(cfg.graph_dir));
    });
    check_ranks_agree(cfg, hooks.plant, dir->spec(), dir->header_hash(), comm);
    run_with_ids(r, cfg, TupleSource(*dir), comm, hooks);
  } else {
    check_ranks_agree(cfg, hooks.plant, cfg.spec, 0, comm);
    run_with_ids(r, cfg, TupleSource(cfg.spec), comm, hooks);
  }
  return r;
}

}  // namespace strata
