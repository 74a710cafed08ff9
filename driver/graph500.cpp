#include "driver/graph500.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <optional>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/timer.hpp"
#include "core/units.hpp"
#include "driver/kernels.hpp"
#include "driver/search_validation.hpp"
#include "driver/validation_plan.hpp"
#include "storage/atomic_dir.hpp"
#include "storage/graph_dir.hpp"
#include "storage/tuple_source.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

namespace {

PlacementSpec placement_spec(const RunConfig& cfg, int parts) {
  PlacementSpec spec = cfg.place;
  spec.parts = parts;
  spec.weighted = cfg.kernels.weighted_lists();
  spec.ids = cfg.kernels.id_lists();
  spec.threads = omp_get_max_threads();
  return spec;
}

// Roots exactly as the reference chooses them: vertices with an edge other than self-loops.
template <class Id>
std::vector<uint64_t> graph500_roots(const Csr<Id>& g, const KroneckerSpec& spec, int count) {
  std::vector<uint64_t> has_edge((g.n + 63) / 64, 0);
  for (uint64_t v = 0; v < g.n; ++v)
    if (g.degree(v) > 0) has_edge[g.to_input[v] >> 6] |= uint64_t(1) << (g.to_input[v] & 63);
  std::vector<uint64_t> roots = search_roots(spec, count, [&](uint64_t v) { return (has_edge[v >> 6] >> (v & 63)) & 1; });
  if (roots.empty()) throw Error(fmt::format("SCALE {} graph has no vertex with an edge: nothing to search", spec.scale));
  return roots;
}

// A planted kernel-1 error (--debug-corrupt-csr): two vertices of different degrees trade input labels, so
// their edges move; the searches stay consistent with the damaged graph, only the certificate can tell.
template <class Id>
void swap_two_labels(Csr<Id>& g) {
  uint64_t b = 1;
  while (b < g.n && g.degree(b) == g.degree(0)) ++b;
  if (b < g.n) std::swap(g.to_input[0], g.to_input[b]);
}

// Everything a result says of the prepared graph and the run around the searches; held: what each kernel that
// ran held (KernelFootprint).
template <class Id>
void describe(RunResult& r, const PlacedGraph<Id>& pg, const std::vector<KernelFootprint>& held, const Topology& topo) {
  r.parts = pg.partitioning.parts();
  r.partitions = pg.partitioning.describe();
  r.numa_nodes = topo.nodes();
  r.directed_edges = pg.g.directed_edges();
  r.id_bytes = int(sizeof(Id));
  r.construction_time = pg.construction_time;
  r.placement = pg.report;
  r.dram = pg.dram;
  const bool on_disk = validated_on_disk(r, *pg.report.tier);
  if (!on_disk) r.dram.validation_batch = validated_packed(r) ? BatchValidator<Id>::batch_bytes(pg.g.n, r.validate_batch) : 0;
  // On storage, what is allocated: graph metadata, cache index, and the larger kernel's search and output (each
  // kernel's pages are given back before the next one's are touched).
  uint64_t state = 0, searches = 0;
  r.io_buffer_bytes = 0;
  r.registered_buffers = false;
  for (const KernelFootprint& k : held) {
    state = std::max(state, k.state);
    searches += k.accounted;
    r.io_buffer_bytes = std::max(r.io_buffer_bytes, k.io_buffers);
    r.registered_buffers = r.registered_buffers || k.registered_buffers;
  }
  if (pg.report.tier->on_storage) r.dram.state = pg.g.bytes() + pg.cache_index().bytes() + state;
  // A lent edge cache is given back to the pass: the larger of the two is the peak.
  const uint64_t lent = r.validation.lent_cache ? std::min(r.dram.edge_cache, r.dram.validation_batch) : 0;
  r.dram_bytes = pg.dram.graph + searches + r.io_buffer_bytes + r.dram.validation_batch - lent;
  if (r.validate && r.validation.method == ValidationMethod::kCsr && !on_disk)
    r.dram_bytes += csr_validation_bytes(pg.g.n, pg.g.directed_edges(), sizeof(Id));
}

// The kernels asked, in the reference's order (kernels.hpp), on one graph and the same roots; a kernel runs only
// while every search before it is valid.
template <class Id, class Source>
void search_and_summarize(RunResult& r, const RunConfig& cfg, const Source& source, PlacedGraph<Id>& pg,
                          const Topology& topo, const RunHooks& hooks, BusyCpuSampler& busy_at_start) {
  if (hooks.plant.corrupt_csr) swap_two_labels(pg.g);
  pin_threads(pg.partitioning, topo, r.threads);
  const std::vector<uint64_t> roots = graph500_roots(pg.g, source.spec(), cfg.roots);
  const std::vector<Id> internal = internal_ids(pg.g, roots);
  // In-core, against kernel 1's CSR: certified once for every kernel, the weights too.
  const bool against_csr = cfg.validate && !pg.report.tier->on_storage && r.validation.method == ValidationMethod::kCsr;
  const std::optional<CsrValidator<Id>> csr = against_csr ? certify_csr(r, source, pg, hooks) : std::nullopt;
  std::vector<KernelFootprint> held;
  const KernelContext<Id, Source> context{r, cfg, source, pg, roots, internal, csr, hooks};
  for_each_kernel(cfg.kernels, [&](auto kernel) {
    if (r.ok()) held.push_back(decltype(kernel)::run(context));  // a certificate refused is a failure too
  });
  describe(r, pg, held, topo);
  if (!r.ok()) return;  // no statistics from a failed run
  r.statistics = graph500_statistics(r.spec.scale, r.spec.edgefactor, r.generation_time, r.construction_time, r.timed());
  r.measurement_warnings = run_warnings(*r.timed().front().second, busy_at_start.value(), r.threads, cfg.roots);
}

template <class Id>
void check_in_core_memory(const KroneckerSpec& spec, int validate_batch, bool against_csr, bool weighted) {
  const uint64_t need = in_core_bytes(spec, sizeof(Id), std::max(validate_batch, 1), against_csr, weighted);
  const uint64_t have = available_memory_bytes();
  if (need > have)
    throw Error(fmt::format("SCALE {} needs about {} of memory for an in-core run; {} (an out-of-core run, "
                            "--placement out-of-core, needs far less)",
                            spec.scale, human_bytes(double(need)), available_words(have)));
}

// A tiered run's --validate-batch against the tuples (asked for, or chosen by auto since a batch is asked for)
// refused before any work where its packed batch cannot fit even now, before the graph takes any memory: it
// was refused only after kernels 0 and 1 (12 minutes at SCALE 28).
template <class Id>
void check_tiered_batch(const RunConfig& cfg, const KroneckerSpec& spec, ValidationMethod method) {
  if (cfg.validate && cfg.kernels.has(kBfsKernel) && method != ValidationMethod::kCsr)
    check_packed_batch<Id>(spec.vertex_count(), std::min(cfg.validate_batch, cfg.roots));
}

// Kernel 0: every tuple produced once -- read and checked block by block from a stored graph, or generated from
// the spec. Its tuples are not kept (kernel 1 reads or regenerates them as it needs them), but kernel 1's degree
// count, when a build follows, is made on them as they go by (`counted`), so that kernel 1 needs no pass of its
// own for it: the counting's share of the pass (each thread's time in it, over the threads) is kernel 1's time,
// taken from kernel 0's and added to construction_time by the build that takes the degrees.
template <class Id>
double kernel0(const TupleSource& source, const RunHooks& hooks, CountedDegrees* counted) {
  const double t0 = now();
  std::string phase = "kernel 0";
  if (const GraphDir* dir = source.dir())
    phase = dir->stores_tuples() ? "verifying " + dir->path() : "kernel 0 (regenerating " + dir->path() + "'s tuples)";
  const uint64_t m = source.spec().edge_count();
  if (counted) counted->of<Id>() = NumaArray<Id>(source.spec().vertex_count());
  std::optional<DegreeCount<Id>> count;
  if (counted) count.emplace(counted->of<Id>());
  std::vector<double> counting(size_t(omp_get_max_threads()), 0.0);
  std::atomic<uint64_t> done{0};
  source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {  // reading a stored block checks its hash
    if (counted) {
      const double c0 = now();
      count->add(edges);
      counting[size_t(omp_get_thread_num())] += now() - c0;
    }
    const uint64_t d = done.fetch_add(edges.size(), std::memory_order_relaxed) + edges.size();
    if (omp_get_thread_num() == 0) hooks.report(phase, d, m);
  });
  double share = 0;
  for (double t : counting) share += t;
  share /= double(counting.size());
  if (count) {  // the threads' copies summed or their staged ends counted: all of it the count's
    const double c0 = now();
    count->finish();
    share += now() - c0;
  }
  if (counted) counted->seconds = share;
  return now() - t0 - share;
}

// Whether kernel 1 will build a CSR from the source's tuples (then kernel 0 counts the degrees for it): always
// in DRAM; on storage unless the graph directory holds the CSR the run reads first (a concurrent run may still
// build it first: the count is then unused).
bool kernel1_builds(const TupleSource& source, const PlacementSpec& spec) {
  if (!spec.tier->on_storage) return true;
  if (const GraphDir* dir = source.dir())
    return !path_exists(CsrFiles::path_for(dir->path(), spec.parts, spec.weighted && !spec.ids)) ||
           (spec.weighted && spec.ids && !path_exists(CsrFiles::path_for(dir->path(), spec.parts, true)));
  return false;
}

template <class Id>
void run_on(RunResult& r, const RunConfig& cfg, const TupleSource& source, const Topology& topo, int parts,
            const RunHooks& hooks, BusyCpuSampler& busy_at_start) {
  r.spec = source.spec();
  PlacementSpec spec = placement_spec(cfg, parts);
  CountedDegrees counted;
  if (kernel1_builds(source, spec)) spec.counted = &counted;
  r.generation_time = kernel0<Id>(source, hooks, spec.counted);
  PlacedGraph<Id> pg;
  const PhaseProgress progress = [&](const std::string& phase, uint64_t d, uint64_t t) { hooks.report(phase, d, t); };
  tier_ops<Id>(*cfg.place.tier).prepare(pg, source, spec, topo, progress);
  pg.spec.counted = nullptr;
  counted = CountedDegrees();  // untaken (the CSR was there after all): its DRAM back before the searches
  search_and_summarize(r, cfg, source, pg, topo, hooks, busy_at_start);
}

// How the searches are validated where the choice is made now: tiered runs choose once their graph is loaded
// (run_searches: what fits their budget decides); kernel 3 alone on storage is checked against its weighted CSR.
ValidationMethod method_before_load(const RunConfig& cfg) {
  const bool in_core = !cfg.place.tier->on_storage;
  return cfg.validate_against == ValidationMethod::kAuto && (in_core || !cfg.kernels.has(kBfsKernel))
             ? ValidationMethod::kCsr
             : cfg.validate_against;
}

// Every refusal a run can make before its work: the kernels' flags, the memory of an in-core run, a tiered run's
// validation batch, DRAM budget and disk. dir: the run's graph directory, opened once by the caller (null: the
// spec is generated).
template <class Id>
void check_before_work(const RunConfig& cfg, const GraphDir* dir, int parts) {
  const Tier& tier = *cfg.place.tier;
  for_each_kernel(cfg.kernels, [&](auto kernel) { decltype(kernel)::check(cfg); });
  const ValidationMethod method = method_before_load(cfg);
  const bool against_csr = cfg.validate && method == ValidationMethod::kCsr;
  if (cfg.graph_dir.empty() && tier.on_storage)
    throw Error(fmt::format("--placement {} needs a graph directory (--graph DIR; make one with `strata generate "
                            "--scale {} --out DIR`)",
                            tier.name, cfg.spec.scale));
  const KroneckerSpec& spec = dir ? dir->spec() : cfg.spec;
  if (!tier.on_storage) {
    check_in_core_memory<Id>(spec, cfg.validate_batch, against_csr, cfg.kernels.weighted_lists());
  } else {
    check_tiered_batch<Id>(cfg, spec, method);
    check_tiered_resources<Id>(*dir, placement_spec(cfg, parts));
  }
}

int parts_of(const RunConfig& cfg, const Topology& topo) { return cfg.numa_parts > 0 ? cfg.numa_parts : topo.nodes(); }

// The run's graph directory, opened (its header checked) once for the checks and the run; none where the spec is
// generated.
std::optional<GraphDir> open_graph(const RunConfig& cfg) {
  return cfg.graph_dir.empty() ? std::nullopt : std::optional(GraphDir::open(cfg.graph_dir));
}

template <class Id>
RunResult run_typed(const RunConfig& cfg, std::optional<GraphDir> dir, const RunHooks& hooks,
                    BusyCpuSampler& busy_at_start) {
  const Topology topo = Topology::detect();
  const int parts = parts_of(cfg, topo);
  check_before_work<Id>(cfg, dir ? &*dir : nullptr, parts);
  RunResult r = result_for(cfg);
  r.validation.method = method_before_load(cfg);
  r.threads = omp_get_max_threads();
  const TupleSource source = dir ? TupleSource(std::move(*dir)) : TupleSource(cfg.spec);
  run_on<Id>(r, cfg, source, topo, parts, hooks, busy_at_start);
  return r;
}

}  // namespace

// Held for the whole run: `generate --force` cannot replace the directory under it (nor its CSR). A lock
// held only for a moment (a --force that is refused, a probe) is waited out for up to 2 s.
DirLock lock_graph_dir(const std::string& dir) {
  DirLock lock;
  if (dir.empty() || !path_exists(dir)) return lock;
  for (int attempt = 0; attempt < 20; ++attempt) {
    int open_error = 0;
    if (DirLock::try_lock(dir, DirLock::kShared, lock, &open_error)) return lock;
    if (open_error == ENOTDIR) throw Error("graph directory " + dir + " is not a directory");
    if (open_error != 0)  // no wait cures it: said now, not as a replacement in progress 2 s later
      throw Error(errno_message("cannot open graph directory " + dir + " to hold it for the run", open_error));
    ::usleep(100000);
  }
  throw Error(dir + " is being replaced by another strata process (generate --force); run again when it has finished");
}


RunResult run_graph500(const RunConfig& config, const RunHooks& hooks) {
  if (hooks.plant.corrupt_rows) throw Error("--debug-corrupt-rows damages a rank's rows: it tests a run under mpirun");
  // Sampled beside the run's first tenth of a second, or until its searches end (not before the run: every run
  // would wait that long).
  BusyCpuSampler busy_at_start;  // other processes' CPUs at the run's start
  if (config.threads > 0) omp_set_num_threads(config.threads);
  const DirLock graph_lock = lock_graph_dir(config.graph_dir);
  std::optional<GraphDir> dir = open_graph(config);
  const int scale = dir ? dir->spec().scale : config.spec.scale;
  check_run_config(config, scale);
  return wide_ids(config, scale) ? run_typed<uint64_t>(config, std::move(dir), hooks, busy_at_start)
                                 : run_typed<uint32_t>(config, std::move(dir), hooks, busy_at_start);
}

void check_run(const RunConfig& config) {
  const std::optional<GraphDir> dir = open_graph(config);
  const int scale = dir ? dir->spec().scale : config.spec.scale;
  check_run_config(config, scale);
  const int parts = parts_of(config, Topology::detect());
  if (wide_ids(config, scale)) check_before_work<uint64_t>(config, dir ? &*dir : nullptr, parts);
  else check_before_work<uint32_t>(config, dir ? &*dir : nullptr, parts);
}

bool wide_ids(const RunConfig& cfg, int scale) { return scale > 31 || cfg.id_bytes == 8; }

void check_run_config(const RunConfig& cfg, int scale) {
  const Tier& tier = *cfg.place.tier;
  if (wide_ids(cfg, scale) && cfg.kernels.has(kSsspKernel))
    throw Error(fmt::format("kernel 3 (--kernel {}) needs 32-bit vertex ids: SCALE 31 or less, without --debug-id-bytes 8",
                            cfg.kernels.name()));
  if (cfg.place.memory.any() && !tier.memory_nodes)
    throw Error("--mem-nodes and --interleave place the in-core adjacency; they do not apply to --placement " +
                std::string(tier.name));
  if (!cfg.place.memory.mem_nodes.empty()) check_memory_nodes(cfg.place.memory.mem_nodes, Topology::detect());
}

}  // namespace strata
