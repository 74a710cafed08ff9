// Distributed kernel 1: each rank reads or generates its share of the tuples, every rank learns the global
// degrees (one reduction) and renumbers the vertices by degree exactly as a single process does, then the
// internal ids are cut into P ranges holding about the same number of adjacency entries (1-D, on 64-id
// boundaries so a bitmap word has one owner) and each tuple goes to the ranks owning its endpoints. Each rank
// keeps its rows as a CSR of global internal ids, sorted and deduplicated, plus the internal-to-input map.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cluster/comm.hpp"
#include "core/ids.hpp"
#include "engine/build_csr.hpp"
#include "generators/edge_stream.hpp"
#include "storage/numa_array.hpp"

namespace strata {

using DistId = uint32_t;  // global vertex ids: SCALE 31 at most for now

// Two ids sent together: (owner's vertex, other end), or top-down's (child, parent).
struct IdPair {
  DistId first, second;
};

// Which rank owns which vertex. Vertices are dealt to the ranks in degree order, one each in turn, so every
// rank gets the same number of vertices and about the same number of adjacency entries (a contiguous cut of
// the degree order balances one or the other, not both: the hubs are few). Rank r's k-th vertex (degree
// rank kP + r) has the distributed id r * span + k: each rank's ids are contiguous, span a multiple of 64,
// so the ranks' frontier bitmaps concatenate into the global one.
struct VertexDeal {
  int ranks = 1;
  uint64_t n = 0, span = 0;
  VertexDeal() = default;
  VertexDeal(uint64_t vertices, int p) : ranks(p), n(vertices), span(((vertices + p - 1) / p + 63) / 64 * 64) {}
  uint64_t id(uint64_t degree_rank) const { return degree_rank % ranks * span + degree_rank / ranks; }
  uint64_t degree_rank(uint64_t id) const { return id % span * ranks + id / span; }
  int owner(uint64_t id) const { return int(id / span); }
  uint64_t begin(int r) const { return uint64_t(r) * span; }
  uint64_t count(int r) const { return n > uint64_t(r) ? (n - uint64_t(r) + ranks - 1) / ranks : 0; }
  uint64_t end(int r) const { return begin(r) + count(r); }
  uint64_t ids() const { return span * uint64_t(ranks); }  // the id space, holes included
  bool is_vertex(uint64_t id) const { return id < ids() && id % span < count(owner(id)); }  // not a hole
};

// A rank's share of an edge source (GeneratedEdges, GraphDir): chunks [first, last), read in rounds of about
// kRoundEdges tuples; every rank runs the same number of rounds, so a round may end in a collective exchange.
template <class Source>
struct TupleShare {
  static constexpr uint64_t kRoundEdges = uint64_t(1) << 21;
  const Source& source;
  uint64_t first = 0, last = 0, rounds = 0;

  TupleShare(const Source& s, const Comm& comm) : source(s) {
    const uint64_t chunks = s.chunk_count();
    first = chunks * uint64_t(comm.rank()) / uint64_t(comm.size());
    last = chunks * uint64_t(comm.rank() + 1) / uint64_t(comm.size());
    rounds = comm.max((last - first + per_round() - 1) / per_round());
  }
  uint64_t per_round() const { return std::max<uint64_t>(1, kRoundEdges / source.chunk_edges()); }
  // fn(span of this round's tuples) on every rank, `rounds` times (an empty span once the share is done).
  template <class Fn>
  void for_each_round(Fn&& fn) const {
    std::vector<Edge> edges;
    for (uint64_t r = 0; r < rounds; ++r) {
      const uint64_t c0 = std::min(last, first + r * per_round()), c1 = std::min(last, c0 + per_round());
      edges.resize((c1 - c0) * source.chunk_edges());
      std::vector<uint64_t> got(c1 - c0, 0);
      FirstError error;
#pragma omp parallel
      {
        ChunkBuffer buffer;
#pragma omp for schedule(dynamic, 1)
        for (uint64_t c = c0; c < c1; ++c)
          error.run([&] {
            const std::span<const Edge> part = source.read_chunk(c, buffer);
            std::copy(part.begin(), part.end(), edges.begin() + (c - c0) * source.chunk_edges());
            got[c - c0] = part.size();
          });
      }
      error.rethrow();
      uint64_t n = 0;  // only the last chunk of the list may be short
      for (uint64_t g : got) n += g;
      fn(std::span<const Edge>(edges.data(), n));
    }
  }
};

// Per-thread buffers of items bound for each rank (a QueueBuffer per destination), sent in one exchange.
template <class T>
struct RankBuffers {
  std::vector<std::vector<std::vector<T>>> by_thread;  // [thread][rank]
  RankBuffers(int threads, int ranks) : by_thread(threads, std::vector<std::vector<T>>(ranks)) {}
  std::vector<T>& mine(int rank) { return by_thread[omp_get_thread_num()][rank]; }
  // Every thread's items, grouped by rank into one send buffer (the only copy), sent (collective); the buffers
  // are emptied, keeping their capacity for the next round. Returns what the other ranks sent here.
  std::vector<T> exchange(const Comm& comm, uint64_t* sent = nullptr) {
    const size_t ranks = by_thread[0].size();
    std::vector<uint64_t> counts(ranks, 0);
    for (size_t r = 0; r < ranks; ++r)
      for (const auto& t : by_thread) counts[r] += t[r].size();
    std::vector<T> flat;
    flat.reserve(std::accumulate(counts.begin(), counts.end(), uint64_t(0)));
    for (size_t r = 0; r < ranks; ++r)
      for (auto& t : by_thread) {
        flat.insert(flat.end(), t[r].begin(), t[r].end());
        t[r].clear();
      }
    return comm.exchange(flat, counts, sent);
  }
};

struct DistBuildReport {
  double seconds = 0;
  uint64_t bytes_sent = 0;      // this rank's tuples sent to other ranks
  uint64_t raw_entries = 0;     // this rank's rows before deduplication
};

// A rank's rows: distributed ids [lo, hi) (VertexDeal), each list sorted highest degree first.
struct DistGraph {
  uint64_t n = 0;                 // vertices of the whole graph
  uint64_t directed_edges = 0;    // adjacency entries of the whole graph (deduplicated, no self-loops)
  VertexDeal part;
  uint64_t lo = 0, hi = 0;        // this rank's distributed ids
  std::vector<uint64_t> offsets;  // hi - lo + 1, into adj
  NumaArray<DistId> adj;          // distributed ids, highest degree first
  std::vector<uint64_t> raw_degree;  // local: non-self-loop tuples at v, duplicates counted (the nedge rule)
  NumaArray<DistId> to_input;     // every distributed id's input label (kNoVertex: a hole of the id space)
  std::vector<uint64_t> has_edge; // by input label, a bit per vertex: a non-self-loop tuple (the roots' rule)

  uint64_t local_count() const { return hi - lo; }
  uint64_t entries() const { return offsets.empty() ? 0 : offsets.back(); }
  uint64_t degree(uint64_t v) const { return offsets[v - lo + 1] - offsets[v - lo]; }
  bool owns(uint64_t v) const { return v >= lo && v < hi; }
  uint64_t bytes() const {
    return offsets.size() * 8 + adj.bytes() + raw_degree.size() * 8 + to_input.bytes() + has_edge.size() * 8;
  }
};

using DistProgress = std::function<void(const char*, uint64_t, uint64_t)>;

// Kernel 1's first half across the ranks (collective): every vertex's degree, summed over the ranks' shares;
// the degree order, the deal, the label maps and this rank's raw degrees. label[v] becomes input label v's
// degree rank (for fill_rows). Runs also when a rank's rows are reused from storage.
template <class Source>
DistGraph order_vertices(const TupleShare<Source>& share, const Comm& comm, std::vector<DistId>& label,
                         const DistProgress& progress = {}) {
  DistGraph g;
  const uint64_t n = share.source.spec().vertex_count();
  g.n = n;
  // CountDegrees: the share's tuples into a global array, summed across the ranks.
  std::vector<uint32_t> degree(n, 0);
  uint64_t round = 0;
  share.for_each_round([&](std::span<const Edge> edges) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (e.u == e.v) continue;
      std::atomic_ref<uint32_t>(degree[e.u]).fetch_add(1, std::memory_order_relaxed);
      std::atomic_ref<uint32_t>(degree[e.v]).fetch_add(1, std::memory_order_relaxed);
    }
    if (progress) progress("count", ++round, 2 * share.rounds);
  });
  comm.sum_in_place(std::span<uint32_t>(degree));

  // RenumberByDegree: highest first, ties by input label (a stable counting sort), the same on every rank.
  uint32_t max_degree = 0;
  for (uint64_t v = 0; v < n; ++v) max_degree = std::max(max_degree, degree[v]);
  std::vector<uint64_t> slot(uint64_t(max_degree) + 2, 0);
  for (uint64_t v = 0; v < n; ++v) ++slot[max_degree - degree[v] + 1];
  for (size_t d = 1; d < slot.size(); ++d) slot[d] += slot[d - 1];
  label.assign(n, 0);  // input label -> degree rank
  std::vector<uint64_t> rank_degree(n);
  g.has_edge.assign((n + 63) / 64, 0);
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t k = slot[max_degree - degree[v]]++;
    label[v] = DistId(k);
    rank_degree[k] = degree[v];
    if (degree[v] > 0) g.has_edge[v >> 6] |= uint64_t(1) << (v & 63);
  }
  const int me = comm.rank(), ranks = comm.size();
  g.part = VertexDeal(n, ranks);
  g.lo = g.part.begin(me);
  g.hi = g.part.end(me);
  g.to_input = NumaArray<DistId>(g.part.ids());
  std::fill(g.to_input.begin(), g.to_input.end(), kNoVertex<DistId>);
  for (uint64_t v = 0; v < n; ++v) g.to_input[g.part.id(label[v])] = DistId(v);
  g.raw_degree.resize(g.hi - g.lo);
  for (uint64_t i = 0; i < g.hi - g.lo; ++i) g.raw_degree[i] = rank_degree[i * uint64_t(ranks) + uint64_t(me)];
  return g;
}

// Kernel 1's scatter (collective): each tuple to the owners of both endpoints, as (degree rank of the owner's
// vertex, degree rank of the other end) pairs; on_pairs(received) once a round on every rank. Frees label.
template <class Source, class OnPairs>
void scatter_tuples(const TupleShare<Source>& share, const Comm& comm, std::vector<DistId>& label,
                    DistBuildReport& report, const DistProgress& progress, OnPairs&& on_pairs) {
  const int ranks = comm.size();
  uint64_t round = share.rounds;
  RankBuffers<IdPair> out(omp_get_max_threads(), ranks);
  share.for_each_round([&](std::span<const Edge> edges) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (e.u == e.v) continue;
      const DistId a = label[e.u], b = label[e.v];
      out.mine(int(a % DistId(ranks))).push_back({a, b});
      out.mine(int(b % DistId(ranks))).push_back({b, a});
    }
    on_pairs(out.exchange(comm, &report.bytes_sent));
    if (progress) progress("fill", ++round, 2 * share.rounds);
  });
  std::vector<DistId>().swap(label);
}

// Sorts each of `count` raw lists (list i: rows[raw[i] - raw[0], raw[i + 1] - raw[0])) by degree rank,
// deduplicates and compacts them to the front of rows, turning degree ranks into distributed ids; offsets[i]
// gets where list i starts, counted from `base`. Returns the entries kept.
inline uint64_t squish_rows(DistId* rows, const uint64_t* raw, uint64_t count, const VertexDeal& part,
                            uint64_t* offsets, uint64_t base) {
  sort_and_dedup_lists(rows, raw, count, part.n);
  uint64_t write = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const DistId* list = rows + (raw[i] - raw[0]);
    const uint64_t kept = uint64_t(std::find(list, list + (raw[i + 1] - raw[i]), kNoVertex<DistId>) - list);
    if (write != raw[i] - raw[0]) std::memmove(rows + write, list, kept * sizeof(DistId));
    offsets[i] = base + write;
    write += kept;
  }
#pragma omp parallel for schedule(static)
  for (uint64_t k = 0; k < write; ++k) rows[k] = DistId(part.id(rows[k]));
  return write;
}

// Kernel 1's second half in DRAM (collective): the scatter placed in raw rows, then squished.
template <class Source>
void fill_rows(DistGraph& g, const TupleShare<Source>& share, const Comm& comm, std::vector<DistId>& label,
               DistBuildReport& report, const DistProgress& progress = {}) {
  const uint64_t local = g.hi - g.lo;
  const DistId ranks = DistId(comm.size());
  std::vector<uint64_t> raw(local + 1, 0);  // raw list bounds by local index, then fill cursors
  for (uint64_t i = 0; i < local; ++i) raw[i + 1] = raw[i] + g.raw_degree[i];
  report.raw_entries = raw.back();
  NumaArray<DistId> adj(report.raw_entries);
  std::vector<uint64_t> cursor(raw.begin(), raw.end() - 1);
  scatter_tuples(share, comm, label, report, progress, [&](std::vector<IdPair>&& got) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < got.size(); ++i) {
      uint64_t& at = cursor[got[i].first / ranks];
      adj[std::atomic_ref<uint64_t>(at).fetch_add(1, std::memory_order_relaxed)] = got[i].second;
    }
  });
  g.offsets.assign(local + 1, 0);
  const uint64_t write = squish_rows(adj.data(), raw.data(), local, g.part, g.offsets.data(), 0);
  g.offsets[local] = write;
  adj.shrink(write);
  g.adj = std::move(adj);
  g.directed_edges = comm.sum(write);
}
// Kernel 1 across the ranks, every rank's rows in DRAM (collective). progress(phase, done, total) on every rank.
template <class Source>
DistGraph build_dist_graph(const TupleShare<Source>& share, const Comm& comm, DistBuildReport& report,
                           const DistProgress& progress = {}) {
  const double t0 = omp_get_wtime();
  std::vector<DistId> label;
  DistGraph g = order_vertices(share, comm, label, progress);
  fill_rows(g, share, comm, label, report, progress);
  report.seconds = omp_get_wtime() - t0;
  return g;
}

}  // namespace strata
