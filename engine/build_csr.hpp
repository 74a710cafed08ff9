// Kernel 1: builds the search CSR from an edge source in two streaming passes (count, fill), never holding
// the tuple list. Peak memory: the pre-dedup adjacency (2 ids per tuple) + offsets + two id arrays,
// about 9 bytes per tuple with 32-bit ids; duplicates are then removed and their pages handed back.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <span>
#include <vector>

#include "engine/csr.hpp"
#include "generators/kronecker.hpp"

namespace strata {

using BuildProgress = std::function<void(const char* phase, uint64_t done, uint64_t total)>;

// Source: spec() and for_each_edge_chunk(fn(first, span<const Edge>)) (GeneratedEdges, GraphDir).
template <class Id, class Source>
Csr<Id> build_csr(const Source& source, const BuildProgress& progress = {}) {
  const uint64_t n = source.spec().vertex_count();
  const uint64_t m = source.spec().edge_count();
  auto report = [&](const char* phase, std::atomic<uint64_t>& done, uint64_t add) {
    const uint64_t d = done.fetch_add(add, std::memory_order_relaxed) + add;
    if (progress && omp_get_thread_num() == 0) progress(phase, d, m);
  };
  Csr<Id> g;
  g.n = n;

  // Pass 1: non-self-loop degree per input label. `scratch` is reused below: relabel map, then raw degree.
  NumaArray<Id> scratch(n);
  std::atomic<uint64_t> done{0};
  source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
    for (const Edge& e : edges)
      if (e.u != e.v) {
        std::atomic_ref<Id>(scratch[e.u]).fetch_add(1, std::memory_order_relaxed);
        std::atomic_ref<Id>(scratch[e.v]).fetch_add(1, std::memory_order_relaxed);
      }
    report("count", done, edges.size());
  });

  // Renumber by degree, highest first, ties by input label (a stable counting sort).
  Id max_degree = 0;
#pragma omp parallel for reduction(max : max_degree)
  for (uint64_t v = 0; v < n; ++v) max_degree = std::max(max_degree, scratch[v]);
  std::vector<uint64_t> next_slot(uint64_t(max_degree) + 2, 0);
  for (uint64_t v = 0; v < n; ++v) ++next_slot[max_degree - scratch[v] + 1];
  for (size_t d = 1; d < next_slot.size(); ++d) next_slot[d] += next_slot[d - 1];
  g.to_input = NumaArray<Id>(n);
  for (uint64_t v = 0; v < n; ++v) g.to_input[next_slot[max_degree - scratch[v]]++] = Id(v);

  g.offsets = NumaArray<uint64_t>(n + 1);
#pragma omp parallel for
  for (uint64_t i = 0; i < n; ++i) g.offsets[i + 1] = scratch[g.to_input[i]];
  for (uint64_t i = 0; i < n; ++i) g.offsets[i + 1] += g.offsets[i];
#pragma omp parallel for
  for (uint64_t i = 0; i < n; ++i) scratch[g.to_input[i]] = Id(i);  // scratch: input label -> internal id

  // Pass 2: scatter both directions; offsets[v] serves as v's cursor and ends at the start of v + 1.
  g.adj = NumaArray<Id>(g.offsets[n]);
  done = 0;
  source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
    for (const Edge& e : edges)
      if (e.u != e.v) {
        const Id a = scratch[e.u], b = scratch[e.v];
        g.adj[std::atomic_ref<uint64_t>(g.offsets[a]).fetch_add(1, std::memory_order_relaxed)] = b;
        g.adj[std::atomic_ref<uint64_t>(g.offsets[b]).fetch_add(1, std::memory_order_relaxed)] = a;
      }
    report("fill", done, edges.size());
  });
  std::memmove(g.offsets.data() + 1, g.offsets.data(), n * sizeof(uint64_t));
  g.offsets[0] = 0;

  // Sort and deduplicate each list in place; scratch[v] holds the deduplicated length.
#pragma omp parallel for schedule(dynamic, 1024)
  for (uint64_t v = 0; v < n; ++v) {
    Id* first = g.adj.data() + g.offsets[v];
    Id* last = g.adj.data() + g.offsets[v + 1];
    std::sort(first, last);
    scratch[v] = Id(std::unique(first, last) - first);
  }
  // Compact left in one sweep; the old list bounds give the raw degree (duplicates counted).
  uint64_t write = 0, old_begin = 0;
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t old_end = g.offsets[v + 1], kept = scratch[v];
    if (write != old_begin) std::memmove(g.adj.data() + write, g.adj.data() + old_begin, kept * sizeof(Id));
    g.offsets[v] = write;
    scratch[v] = Id(old_end - old_begin);
    write += kept;
    old_begin = old_end;
  }
  g.offsets[n] = write;
  g.adj.shrink(write);
  g.raw_degree = std::move(scratch);
  return g;
}

}  // namespace strata
