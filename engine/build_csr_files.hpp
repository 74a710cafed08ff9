// Kernel 1 for the out-of-core and DAX placements: builds the on-disk CSR (storage/csr_files.hpp) from a
// graph directory without holding the tuple list or the adjacency. The degree pass and renumbering are the
// in-memory build's; then the vertices are cut into ranges whose pre-deduplication lists fit in
// `memory_bytes`, and each range takes one pass over the tuples: scatter, sort, deduplicate, append to
// its partition's file. Memory: that scratch plus O(N) (raw offsets, labels, duplicates: 13 bytes a vertex).
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include <fmt/format.h>

#include "core/ids.hpp"
#include "engine/build_csr.hpp"
#include "engine/csr.hpp"
#include "engine/topology.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"

namespace strata {

struct ExternalBuildStats {
  uint64_t passes = 0;          // passes over the tuples after the degree pass
  uint64_t scratch_bytes = 0;   // the range buffer
};

template <class Id>
CsrLayout build_csr_files(const GraphDir& source, const std::string& path, int parts, const Topology& topo,
                          uint64_t memory_bytes, const BuildProgress& progress = {},
                          ExternalBuildStats* stats = nullptr, bool pmem = false) {
  const double t0 = omp_get_wtime();
  const uint64_t n = source.spec().vertex_count();
  const uint64_t m = source.spec().edge_count();
  NumaArray<Id> label;
  NumaArray<uint64_t> raw = order_by_degree<Id>(source, label, progress);
  const uint64_t max_list = n > 0 ? raw[1] - raw[0] : 0;  // vertex 0 has the highest degree
  // The range buffer holds at most `chunk` entries; ranges are cut so that entries and cursors fit.
  const uint64_t chunk = std::min(raw[n], std::max<uint64_t>(memory_bytes / sizeof(Id), 1));
  if (max_list * sizeof(Id) + 8 > memory_bytes)
    throw Error(fmt::format("building the on-disk CSR needs at least {} of memory for the longest list; {} allowed "
                            "(raise --dram-budget)",
                            human_bytes(double(max_list * sizeof(Id))), human_bytes(double(memory_bytes))));

  const Partitioning partitioning = Partitioning::balanced(n, [&](uint64_t v) { return raw[v] + v; }, parts, topo);
  CsrLayout layout;
  layout.graph_hash = source.header_hash();
  layout.scale = source.spec().scale;
  layout.id_bytes = int(sizeof(Id));
  layout.n = n;
  layout.bounds = partitioning.bounds;
  CsrWriter writer(path, layout, pmem);
  for (int p = 0; p < partitioning.parts(); ++p)
    writer.reserve_part(p, raw[partitioning.end(p)] - raw[partitioning.begin(p)]);

  // The final offsets go to meta.bin range by range (it begins with them), so the build's O(N) is labels (4),
  // raw offsets (8) and duplicate counts (1): 13 bytes a vertex, within the search's 16.
  NumaArray<uint8_t> duplicates(n);
  std::vector<std::pair<uint64_t, uint64_t>> many;
  NumaArray<Id> buffer(std::max<uint64_t>(chunk, 1));
  std::vector<uint64_t> cursor;
  uint64_t written = 0, passes = 0;
  for (int p = 0; p < partitioning.parts(); ++p) {
    for (uint64_t lo = partitioning.begin(p); lo < partitioning.end(p);) {
      // The longest range [lo, hi) of this partition whose lists and cursors (8 bytes a vertex) fit in the
      // scratch: many short lists need as much room for cursors as for entries.
      uint64_t fits = lo + 1, limit = partitioning.end(p);
      while (fits < limit) {
        const uint64_t mid = fits + (limit - fits + 1) / 2;
        if ((raw[mid] - raw[lo]) * sizeof(Id) + (mid - lo) * 8 <= memory_bytes) fits = mid; else limit = mid - 1;
      }
      const uint64_t hi = fits;
      buffer.release(raw[hi] - raw[lo], buffer.size());  // pages an earlier, longer range touched
      cursor.assign(raw.data() + lo, raw.data() + hi);
      const uint64_t base = raw[lo];
      ++passes;
      std::atomic<uint64_t> done{0};
      source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
        // Every pass looks up both ends of every tuple at random in the labels (512 MB at SCALE 27): start the
        // loads a batch ahead, as the degree pass does (SCALE 24, 5 passes: build 29.1 s against 32.7 s).
        // Prefetching the cursors too measured slower (30.1 s against 28.0 s).
        for (size_t i = 0; i < edges.size(); i += build_detail::kBatch) {
          const size_t nb = std::min(build_detail::kBatch, edges.size() - i);
          for (size_t j = 0; j < nb; ++j) {
            __builtin_prefetch(&label[edges[i + j].u]);
            __builtin_prefetch(&label[edges[i + j].v]);
          }
          for (size_t j = 0; j < nb; ++j) {
            const Edge& e = edges[i + j];
            if (e.u == e.v) continue;
            const uint64_t a = label[e.u], b = label[e.v];
            if (a >= lo && a < hi) buffer[build_detail::fetch_add(cursor[a - lo], uint64_t(1)) - base] = Id(b);
            if (b >= lo && b < hi) buffer[build_detail::fetch_add(cursor[b - lo], uint64_t(1)) - base] = Id(a);
          }
        }
        const uint64_t d = done.fetch_add(edges.size(), std::memory_order_relaxed) + edges.size();
        if (progress && omp_get_thread_num() == 0)
          progress(fmt::format("pass {} (vertices {}..{})", passes, lo, hi).c_str(), d, m);
      });
      sort_and_dedup_lists(buffer.data(), raw.data() + lo, hi - lo, n);
      // Compact the range in place and append it; the cursors, spent, take the range's final offsets.
      uint64_t kept_total = 0;
      for (uint64_t v = lo; v < hi; ++v) {
        const Id* list = buffer.data() + (raw[v] - base);
        const uint64_t len = raw[v + 1] - raw[v];
        const uint64_t kept = uint64_t(std::find(list, list + len, kNoVertex<Id>) - list);
        if (kept_total != raw[v] - base) std::memmove(buffer.data() + kept_total, list, kept * sizeof(Id));
        cursor[v - lo] = written + kept_total;
        const uint64_t removed = len - kept;
        duplicates[v] = uint8_t(std::min<uint64_t>(removed, Csr<Id>::kManyDuplicates));
        if (removed >= Csr<Id>::kManyDuplicates) many.push_back({v, removed});
        kept_total += kept;
      }
      writer.append(p, buffer.data(), kept_total);
      writer.write_meta(cursor.data(), cursor.size() * sizeof(uint64_t));
      written += kept_total;
      lo = hi;
    }
    writer.finish_part(p);
  }
  writer.write_meta(&written, sizeof written);  // offsets[n]
  buffer = NumaArray<Id>();
  raw = NumaArray<uint64_t>();

  const NumaArray<Id> to_input = invert_labels(label);
  label = NumaArray<Id>();
  writer.set_many_duplicates(many.size());
  writer.write_meta(to_input.data(), to_input.bytes());
  writer.write_meta(duplicates.data(), duplicates.bytes());
  const uint64_t count = many.size();
  writer.write_meta(&count, sizeof count);
  writer.write_meta(many.data(), many.size() * 16);
  writer.commit(omp_get_wtime() - t0);
  if (stats) *stats = {passes, std::max<uint64_t>(chunk, 1) * sizeof(Id)};
  return writer.layout();
}

// The O(N) part of an on-disk CSR as a Csr without adjacency (offsets, labels, duplicate counts).
template <class Id>
Csr<Id> load_csr_meta(const CsrFiles& files) {
  const CsrLayout& L = files.layout();
  if (L.id_bytes != int(sizeof(Id))) throw Error(files.path() + " holds ids of another width; remove it to rebuild");
  const uint64_t n = L.n;
  CsrFiles::MetaReader meta(files);
  NumaArray<uint64_t> offsets(n + 1);
  meta.read(offsets.data(), offsets.bytes());
  Csr<Id> g;
  g.n = n;
  g.to_input = NumaArray<Id>(n);
  meta.read(g.to_input.data(), g.to_input.bytes());
  g.duplicates = NumaArray<uint8_t>(n);
  meta.read(g.duplicates.data(), n);
  uint64_t count = 0;
  meta.read(&count, 8);
  if (count != L.many_duplicates) throw Error(files.path() + "/meta.bin does not match its header (duplicate table)");
  g.many_duplicates.resize(count);
  meta.read(g.many_duplicates.data(), count * 16);
  meta.finish();
  if (offsets[n] != L.entries) throw Error(files.path() + "/meta.bin does not match its header (entry count)");
  g.offsets = BlockOffsets(offsets);
  return g;
}

}  // namespace strata
