#include "cluster/rank_rows.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/error.hpp"
#include "core/units.hpp"
#include "engine/build_csr_files.hpp"
#include "engine/memory.hpp"
#include "storage/hash.hpp"

namespace strata {

std::string rank_rows_dir(const std::string& base, int ranks, int rank, bool weighted) {
  return fmt::format("{}/mpi{}-p{}/rank-{}", base, weighted ? "-w" : "", ranks, rank);
}

namespace {

// The layout of a rank's rows, its parent directory made.
template <class Id>
CsrLayout rows_layout(const std::string& dir, const DistGraph<Id>& g, uint64_t graph_hash, int scale, bool weighted) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ec);
  if (ec) throw Error(fmt::format("cannot create {}: {}", std::filesystem::path(dir).parent_path().string(), ec.message()));
  CsrLayout layout;
  layout.graph_hash = graph_hash;
  layout.scale = scale;
  layout.id_bytes = sizeof(Id);
  layout.weighted = weighted;
  layout.n = g.local_count();
  layout.bounds = {0, g.local_count()};
  return layout;
}

// meta.bin as every on-disk CSR has it: offsets, input labels, duplicate counts (a byte, and the saturated
// ones); then the header, and the directory renamed into place.
template <class Id>
void finish_writer(CsrWriter& writer, const DistGraph<Id>& g, const NumaArray<uint64_t>& offsets, double build_seconds) {
  writer.finish_part(0);
  writer.write_meta(offsets.data(), offsets.size() * sizeof(uint64_t));
  std::vector<uint8_t> duplicates(g.local_count());
  std::vector<std::pair<uint64_t, uint64_t>> many;
  for (uint64_t i = 0; i < g.local_count(); ++i)
    Csr<Id>::note_duplicates(duplicates[i], many, i, g.raw_degree[i] - (offsets[i + 1] - offsets[i]));
  write_labels_and_duplicates(writer, g.rows.to_input.data(), duplicates.data(), g.local_count(), many);
  writer.commit(build_seconds);
}

}  // namespace

uint64_t check_rank_budget(uint64_t budget, bool dax, const IoOptions& io, int threads) {
  const uint64_t buffers = dax ? 0 : io_buffer_bytes(threads, io);
  if (!dax && budget < buffers)
    throw Error(fmt::format("--dram-budget {} is below this rank's I/O buffers ({}: {} threads x {} reads x {})",
                            human_bytes(double(budget)), human_bytes(double(buffers)), threads, io.depth,
                            human_bytes(double(io.request_bytes))), Error::kFixSaid);
  return buffers;
}

template <class Id, class Entry>
int RankRows<Id, Entry>::write_from(const std::string& dir, DistGraph<Id>& g, RowBuckets<Id, Entry>& spill,
                                    uint64_t graph_hash, int scale, double started, bool pmem, RankRowsReport& report,
                                    PrefixStage* prefixes) {
  const std::vector<uint64_t>& raw = spill.raw;
  CsrWriter writer(dir, rows_layout(dir, g, graph_hash, scale, kWeighted), pmem);
  writer.reserve_part(0, raw.back());
  NumaArray<uint64_t> offsets(g.local_count() + 1);
  uint64_t write = 0;
  RankBuildSeconds& seconds = report.build_seconds;
  double clock = omp_get_wtime();  // each phase's time as the one-process build takes it (build_csr_files)
  auto lap = [&clock] { const double t = omp_get_wtime(); return t - std::exchange(clock, t); };
  for (size_t k = 0; k < spill.ranges(); ++k) {
    const uint64_t i0 = spill.bounds[k], i1 = spill.bounds[k + 1];
    NumaArray<Entry> rows(raw[i1] - raw[i0]);
    std::vector<uint64_t> cursor(raw.begin() + i0, raw.begin() + i1);
    lap();
    spill.buckets.fill(k, cursor.data(), rows.data(), raw[i0], [](size_t) {});
    seconds.fill += lap();
    const uint64_t kept = sort_and_append<Id>(rows.data(), raw.data() + i0, i1 - i0, g.n, writer, 0,
                                              [&](uint64_t i, uint64_t start, uint64_t) { offsets[i0 + i] = write + start; },
                                              [&](Entry* first, uint64_t count) { to_distributed_ids<Id>(first, count, g.part); },
                                              seconds.sort, seconds.write);
    offsets[i1] = write + kept;  // the range's end, as the next range's sets it
    lap();
    if (prefixes) prefixes->append(rows.data(), offsets.data() + i0, i1 - i0);
    seconds.write += lap();
    write += kept;
  }
  if (prefixes) prefixes->finish();
  g.local_entries = write;
  finish_writer(writer, g, offsets, omp_get_wtime() - started);
  seconds.write += lap();
  return int(spill.ranges());
}

// K: as asked (refused where the budget cannot hold its cache beside the I/O buffers), else the largest the
// budget holds (none without one).
template <class Id, class Entry>
uint64_t RankRows<Id, Entry>::cache_k(uint64_t budget, int64_t k_asked, uint64_t hub_degree) const {
  if (k_asked < 0)
    return budget > 0 ? k_for_budget_or_refuse(local_, budget, report_.io_buffer_bytes, hub_degree, "this rank's",
                                               sizeof(Entry))
                      : 0;
  const uint64_t k = uint64_t(k_asked), need = cache_entries(local_, k, hub_degree) * sizeof(Entry);
  if (budget > 0 && need + report_.io_buffer_bytes > budget)
    throw Error(fmt::format("--on-mem-edges {} needs {} of edge cache on this rank; --dram-budget {} leaves {} beside "
                            "the I/O buffers",
                            k, human_bytes(double(need)), human_bytes(double(budget)),
                            human_bytes(double(budget - report_.io_buffer_bytes))));
  return k;
}

// The edge cache of K: cut from this run's staged prefixes where they hold it (no hubs), else read from the
// files, every block's checksum checked on the way, or (dax) every block checked in place and the prefixes
// copied out of the mapping.
template <class Id, class Entry>
void RankRows<Id, Entry>::load_cache(const std::string& dir, uint64_t k, uint64_t hub_degree, bool dax,
                                     const PrefixStage* staged) {
  if (dax) {
    map_ = PmemMapping::open_read(dir + "/" + CsrFiles::adj_name(0));
    report_.is_pmem = map_.is_pmem();
    report_.cache_source = "mapping";
    cache_ = load_edge_cache_mapped<Id, Entry>(local_, files_, {map_.data()}, k, hub_degree);
  } else if (staged && staged->holds(k, hub_degree)) {
    report_.cache_source = "build";
    report_.prefix_bytes = staged->bytes();
    cache_ = staged->load<Id, Entry>(local_, k);
  } else {
    cache_ = load_edge_cache<Id, Entry>(local_, files_, k, hub_degree);
  }
}

template <class Id, class Entry>
RankRows<Id, Entry>::RankRows(const std::string& dir, DistGraph<Id>& g, uint64_t graph_hash, int scale, uint64_t budget,
                              int64_t k_asked, uint64_t hub_degree, const IoOptions& io, int threads, bool dax,
                              const PrefixStage* staged) {
  const double t0 = omp_get_wtime();
  report_.dir = dir;
  files_ = CsrFiles::open(dir, graph_hash, scale);
  const CsrLayout& L = files_.layout();
  const uint64_t n = g.local_count();
  if (L.weighted != kWeighted)
    throw Error(fmt::format("{} holds {} rows where kernel {}'s belong; remove it to rebuild", dir,
                            L.weighted ? "weighted" : "unweighted", kWeighted ? 3 : 2), Error::kFixSaid);
  if (L.id_bytes != int(sizeof(Id)))
    throw Error(fmt::format("{} holds rows of {}-byte ids; this run uses {}-byte ids; remove it to rebuild", dir,
                            L.id_bytes, sizeof(Id)), Error::kFixSaid);
  if (L.n != n || L.parts() != 1)
    throw Error(fmt::format("{} holds another rank's rows ({} vertices, this rank has {}); remove it to rebuild", dir, L.n, n), Error::kFixSaid);
  // The stored rows must be this rank's of this graph: the same vertices (input labels) and raw degrees.
  local_ = load_csr_meta<Id>(files_);
  for (uint64_t i = 0; i < n; ++i)
    if (local_.to_input[i] != g.rows.to_input[i] || local_.raw_degree(i) != g.raw_degree[i])
      throw Error(fmt::format("{} holds other rows than this rank's (vertex {}: another graph, rank count or "
                              "build); remove it to rebuild", dir, i), Error::kFixSaid);
  g.local_entries = local_.directed_edges();

  report_.dax = dax;
  report_.io_buffer_bytes = check_rank_budget(budget, dax, io, threads);
  report_.budget = budget;
  const uint64_t k = cache_k(budget, k_asked, hub_degree);
  parts_ = Partitioning::first_touch(n);
  load_cache(dir, k, hub_degree, dax, staged);
  report_.k = k;
  report_.cache_bytes = cache_.entries_bytes();
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.is_regular_file()) report_.disk_bytes += f.file_size();
  report_.stored_build_seconds = L.build_seconds;
  report_.load_seconds = omp_get_wtime() - t0;
}

template class RankRows<uint32_t>;
template class RankRows<uint64_t>;
template class RankRows<uint32_t, NodeWeight<uint32_t>>;

}  // namespace strata
