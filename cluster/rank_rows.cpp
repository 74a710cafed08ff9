#include "cluster/rank_rows.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/error.hpp"
#include "core/units.hpp"
#include "engine/build_csr_files.hpp"
#include "engine/memory.hpp"

namespace strata {

std::string RankRows::dir_for(const std::string& base, int ranks, int rank) {
  return fmt::format("{}/mpi-p{}/rank-{}", base, ranks, rank);
}

void RankRows::write(const std::string& dir, const DistGraph& g, uint64_t graph_hash, int scale, double build_seconds,
                     bool pmem) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ec);
  if (ec) throw Error(fmt::format("cannot create {}: {}", std::filesystem::path(dir).parent_path().string(), ec.message()));
  CsrLayout layout;
  layout.graph_hash = graph_hash;
  layout.scale = scale;
  layout.id_bytes = sizeof(DistId);
  layout.n = g.local_count();
  layout.bounds = {0, g.local_count()};
  CsrWriter writer(dir, layout, pmem);
  writer.reserve_part(0, g.entries());
  writer.append(0, g.adj.data(), g.entries());
  writer.finish_part(0);
  // meta.bin as every on-disk CSR has it: offsets, input labels, duplicate counts (a byte, and the saturated ones).
  writer.write_meta(g.offsets.data(), g.offsets.size() * sizeof(uint64_t));
  std::vector<DistId> labels(g.local_count());
  std::vector<uint8_t> duplicates(g.local_count());
  std::vector<std::pair<uint64_t, uint64_t>> many;
  for (uint64_t i = 0; i < g.local_count(); ++i) {
    labels[i] = g.to_input[g.lo + i];
    const uint64_t removed = g.raw_degree[i] - (g.offsets[i + 1] - g.offsets[i]);
    duplicates[i] = uint8_t(std::min<uint64_t>(removed, Csr<DistId>::kManyDuplicates));
    if (removed >= Csr<DistId>::kManyDuplicates) many.push_back({i, removed});
  }
  writer.write_meta(labels.data(), labels.size() * sizeof(DistId));
  writer.write_meta(duplicates.data(), duplicates.size());
  const uint64_t count = many.size();
  writer.write_meta(&count, sizeof count);
  writer.write_meta(many.data(), many.size() * 16);
  writer.set_many_duplicates(count);
  writer.commit(build_seconds);
}

RankRows::RankRows(const std::string& dir, DistGraph& g, uint64_t graph_hash, int scale, uint64_t budget,
                   int64_t k_asked, const IoOptions& io, int threads, bool dax) {
  const double t0 = omp_get_wtime();
  report_.dir = dir;
  files_ = CsrFiles::open(dir, graph_hash, scale);
  const CsrLayout& L = files_.layout();
  const uint64_t n = g.local_count();
  if (L.id_bytes != int(sizeof(DistId)) || L.n != n || L.parts() != 1)
    throw Error(fmt::format("{} holds another rank's rows ({} vertices, this rank has {}); remove it to rebuild", dir, L.n, n));
  // The stored rows must be this rank's of this graph: the same vertices (input labels) and raw degrees.
  local_ = load_csr_meta<DistId>(files_);
  for (uint64_t i = 0; i < n; ++i)
    if (local_.to_input[i] != g.to_input[g.lo + i] || local_.raw_degree(i) != g.raw_degree[i])
      throw Error(fmt::format("{} holds other rows than this rank's (vertex {}: another graph, rank count or "
                              "build); remove it to rebuild", dir, i));
  NumaArray<uint64_t> offsets(n + 1);
  for (uint64_t i = 0; i <= n; ++i) offsets[i] = local_.offsets[i];
  g.offsets.assign(offsets.begin(), offsets.end());

  report_.dax = dax;
  report_.io_buffer_bytes = dax ? 0 : io_buffer_bytes(threads, io);
  report_.budget = budget;
  if (!dax && budget < report_.io_buffer_bytes)
    throw Error(fmt::format("--dram-budget {} is below this rank's I/O buffers ({}: {} threads x {} reads x {})",
                            human_bytes(double(budget)), human_bytes(double(report_.io_buffer_bytes)), threads, io.depth,
                            human_bytes(double(io.request_bytes))));
  uint64_t k = 0;
  if (k_asked >= 0) {
    k = uint64_t(k_asked);
    const uint64_t need = cache_entries(local_, k, kNoHubs) * sizeof(DistId);
    if (budget > 0 && need + report_.io_buffer_bytes > budget)
      throw Error(fmt::format("--on-mem-edges {} needs {} of edge cache on this rank; --dram-budget {} leaves {} beside "
                              "the I/O buffers",
                              k, human_bytes(double(need)), human_bytes(double(budget)),
                              human_bytes(double(budget - report_.io_buffer_bytes))));
  } else if (budget > 0) {
    k_for_budget(local_, budget - report_.io_buffer_bytes, kNoHubs, k);  // K = 0 always fits without hubs
  }
  parts_ = Partitioning::with_bounds({0, n}, Topology::detect());
  if (dax) {  // every block checked in place, the prefixes copied out
    map_ = PmemMapping::open_read(dir + "/" + CsrFiles::adj_name(0));
    report_.is_pmem = map_.is_pmem();
    cache_ = load_edge_cache_mapped(local_, files_, {map_.data()}, k, kNoHubs);
  } else {  // every block's checksum checked on the way
    cache_ = load_edge_cache(local_, files_, k, kNoHubs);
    tails_ = std::make_unique<TailReads<DistId>>(local_, cache_.index, files_, io, parts_, n);
  }
  report_.k = k;
  report_.cache_bytes = cache_.entries_bytes();
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.is_regular_file()) report_.disk_bytes += f.file_size();
  report_.stored_build_seconds = L.build_seconds;
  report_.load_seconds = omp_get_wtime() - t0;
}

Error RankRows::corrupted(const DistId* at) const {
  return Error(fmt::format("{}/{} is corrupted: the entry at offset {} holds {}, not a vertex id (the file changed "
                           "after it was checked at load); remove {} to rebuild it",
                           report_.dir, CsrFiles::adj_name(0), uint64_t(at - mapped()) * sizeof(DistId), uint64_t(*at),
                           report_.dir));
}

}  // namespace strata
