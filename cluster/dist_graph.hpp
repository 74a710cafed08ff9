// Distributed kernel 1 in O(N/P) a rank: each rank reads or generates its share of the tuples; the degrees
// are counted and the vertices renumbered by degree (exactly as a single process does) by the owners of
// blocks of input labels; the vertices are dealt to the ranks in degree order (1-D) and each tuple goes to the
// ranks owning its endpoints. Each rank keeps its rows as a CSR of distributed ids, sorted and deduplicated,
// and its own vertices' input labels.
#pragma once
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cluster/comm.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "engine/adjacency.hpp"
#include "engine/block_offsets.hpp"
#include "engine/build_csr.hpp"
#include "engine/csr.hpp"
#include "generators/edge_stream.hpp"
#include "storage/numa_array.hpp"

namespace strata {

// Global vertex ids are 32-bit up to SCALE 31 (half the bytes of rows and messages), 64-bit above: every type
// below takes its id type as Id.

// Two ids sent together: (owner's vertex, other end), or top-down's (child, parent).
template <class Id>
struct IdPair {
  Id first, second;
};

// Which rank owns which vertex. Vertices are dealt to the ranks in degree order, one each in turn, so every
// rank gets the same number of vertices and about the same number of adjacency entries (a contiguous cut of
// the degree order balances one or the other, not both: the hubs are few). Rank r's k-th vertex (degree
// rank kP + r) has the distributed id r * span + k: each rank's ids are contiguous, span a multiple of 64,
// so the ranks' frontier bitmaps concatenate into the global one.
struct VertexDeal {
  int ranks = 1;
  uint64_t n = 0, span = 0;
  uint64_t reciprocal = 0;  // floor((2^64 - 1) / span) + 1: id / span by one multiply (and one correction)
  VertexDeal() = default;
  VertexDeal(uint64_t vertices, int p)
      : ranks(p), n(vertices), span(((vertices + p - 1) / p + 63) / 64 * 64), reciprocal(~uint64_t(0) / span + 1) {}
  uint64_t id(uint64_t degree_rank) const { return degree_rank % ranks * span + degree_rank / ranks; }
  uint64_t degree_rank(uint64_t id) const { return id % span * ranks + id / span; }
  // The multiply's quotient is exact below 2^32 and at most one too large above (its error is id / 2^64 < 1).
  int owner(uint64_t id) const {
    const uint64_t q = uint64_t(static_cast<unsigned __int128>(id) * reciprocal >> 64);
    return int(q - (q * span > id));
  }
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
    rounds_of<false>([&](std::span<const Edge> edges, std::span<const float>) { fn(edges); });
  }
  // The same with each tuple's kernel-3 weight (a source with read_weighted_chunk: GeneratedEdges).
  template <class Fn>
  void for_each_weighted_round(Fn&& fn) const {
    rounds_of<true>(std::forward<Fn>(fn));
  }

 private:
  template <bool kWeights, class Fn>
  void rounds_of(Fn&& fn) const {
    std::vector<Edge> edges;
    std::vector<float> weights;
    for (uint64_t r = 0; r < rounds; ++r) {
      const uint64_t c0 = std::min(last, first + r * per_round()), c1 = std::min(last, c0 + per_round());
      // The round's tuples, not whole chunks': a vector's growth writes every new element (a small graph's one
      // short block took 16 MiB a rank).
      const uint64_t m = source.spec().edge_count(), chunk = source.chunk_edges();
      edges.resize(std::min(m, c1 * chunk) - std::min(m, c0 * chunk));
      if constexpr (kWeights) weights.resize(edges.size());
      std::vector<uint64_t> got(c1 - c0, 0);
      FirstError error;
#pragma omp parallel
      {
        ChunkBuffer buffer;
#pragma omp for schedule(dynamic, 1)
        for (uint64_t c = c0; c < c1; ++c)
          error.run([&] {
            const uint64_t at = (c - c0) * chunk;
            buffer.to = edges.data() + at;  // read in place where the source can
            std::span<const Edge> part;
            if constexpr (kWeights) {
              part = source.read_weighted_chunk(c, buffer);
              std::copy_n(buffer.weights.begin(), part.size(), weights.begin() + at);
            } else {
              part = source.read_chunk(c, buffer);
            }
            if (part.data() != buffer.to) std::copy(part.begin(), part.end(), buffer.to);
            got[c - c0] = part.size();
          });
      }
      error.rethrow();
      uint64_t n = 0;  // only the last chunk of the list may be short
      for (uint64_t g : got) n += g;
      fn(std::span<const Edge>(edges.data(), n), std::span<const float>(weights.data(), kWeights ? n : 0));
    }
  }
};

// Per-thread buffers of items bound for each rank (a QueueBuffer per destination), sent in one exchange.
template <class T>
struct RankBuffers {
  std::vector<std::vector<std::vector<T>>> by_thread;  // [thread][rank]
  RankBuffers(int threads, int ranks) : by_thread(threads, std::vector<std::vector<T>>(ranks)) {}
  std::vector<T>& mine(int rank) { return by_thread[omp_get_thread_num()][rank]; }
  // Every thread's items, grouped by rank into one buffer (the only copy; rank r's: counts[r] items, thread by
  // thread); the buffers are emptied, keeping their capacity for the next round unless `again` is false (a
  // one-off: freed as they are copied).
  std::vector<T> take(std::vector<uint64_t>& counts, bool again = true) {
    const size_t ranks = by_thread[0].size();
    counts.assign(ranks, 0);
    for (size_t r = 0; r < ranks; ++r)
      for (const auto& t : by_thread) counts[r] += t[r].size();
    std::vector<T> flat;
    flat.reserve(std::accumulate(counts.begin(), counts.end(), uint64_t(0)));
    for (size_t r = 0; r < ranks; ++r)
      for (auto& t : by_thread) {
        flat.insert(flat.end(), t[r].begin(), t[r].end());
        if (again) t[r].clear();
        else std::vector<T>().swap(t[r]);
      }
    return flat;
  }
  // The items sent (collective): returns what the other ranks sent here.
  std::vector<T> exchange(const Comm& comm, uint64_t* sent = nullptr, bool again = true) {
    std::vector<uint64_t> counts;
    const std::vector<T> flat = take(counts, again);
    return comm.exchange(flat, counts, sent);
  }
};

struct DistBuildReport {
  double seconds = 0;
  uint64_t bytes_sent = 0;      // this rank's sends to other ranks (endpoints, tuples by hop, rows' pairs)
  uint64_t raw_entries = 0;     // this rank's rows before deduplication
};

// The input labels in P contiguous blocks, a multiple of 64 each so a bitmap word has one owner: the rank of
// a label's block counts its degree and keeps its degree rank, so no rank holds a map of the whole graph.
struct LabelBlocks {
  uint64_t n = 0, size = 0;
  LabelBlocks() = default;
  LabelBlocks(uint64_t vertices, int p) : n(vertices), size(((vertices + p - 1) / p + 63) / 64 * 64) {}
  int owner(uint64_t label) const { return int(label / size); }
  uint64_t begin(int r) const { return std::min(n, uint64_t(r) * size); }
  uint64_t end(int r) const { return std::min(n, begin(r) + size); }
};

// Kernel 1's label map, this rank's block of it: input label v's degree rank at rank[v - blocks.begin(me)].
template <class Id>
struct LabelMap {
  LabelBlocks blocks;
  uint64_t first = 0;
  std::vector<Id> rank;
  Id operator()(uint64_t label) const { return rank[label - first]; }
};

// A rank's rows: distributed ids [lo, hi) (VertexDeal), each list sorted highest degree first. Of the whole
// graph a rank keeps only bitmaps (has_edge here, the search's frontier): everything else is its vertices'.
template <class Id>
struct DistGraph {
  uint64_t n = 0;                 // vertices of the whole graph
  uint64_t directed_edges = 0;    // adjacency entries of the whole graph (deduplicated, no self-loops)
  VertexDeal part;
  uint64_t lo = 0, hi = 0;        // this rank's distributed ids
  // The rank's lists by local index i = v - lo, held as one process holds its graph (engine/csr.hpp): rows.n its
  // vertex count, rows.to_input their input labels (other ranks' by asking them); the offsets and adj (distributed
  // ids, highest degree first: kernel 2's) in DRAM only -- on storage the lists are RankRows'.
  Csr<Id> rows;
  NumaArray<NodeWeight<Id>> weighted;  // kernel 3's in DRAM: rows' lists as (distributed id, lightest weight), by weight
  std::vector<uint64_t> raw_degree;  // local: non-self-loop tuples at v, duplicates counted (the nedge rule)
  std::vector<uint64_t> has_edge; // by input label, a bit per vertex of the graph: a non-self-loop tuple (the roots' rule)
  uint64_t local_entries = 0;     // the rank's adjacency entries, wherever they are

  uint64_t local_count() const { return hi - lo; }
  uint64_t entries() const { return local_entries; }
  bool owns(uint64_t v) const { return v >= lo && v < hi; }
  Id label(uint64_t v) const { return rows.to_input[v - lo]; }  // an owned vertex's input label
  // Where each local list's raw entries (kernel 1's, duplicates counted) start: raw_degree's prefix sums.
  std::vector<uint64_t> raw_starts() const {
    std::vector<uint64_t> r(local_count() + 1, 0);
    for (uint64_t i = 0; i < local_count(); ++i) r[i + 1] = r[i] + raw_degree[i];
    return r;
  }
  uint64_t bytes() const { return rows.bytes() + weighted.bytes() + raw_degree.size() * 8 + has_edge.size() * 8; }
  // The lists in DRAM for a tier's source: kernel 2's, or (Entry = NodeWeight<Id>) kernel 3's pairs.
  template <class Entry>
  Adjacency<Id, Entry> adjacency() const {
    Adjacency<Id, Entry> at{rows};
    if constexpr (!std::is_same_v<Entry, Id>) at.pairs = weighted.data();
    return at;
  }
};

// The items for this rank's vertices that the ranks sent each other from `out` (collective; sent: this rank's
// bytes added): fn(local index, item) for each on the OpenMP team, the sum of what it returns. An item for an id
// this rank does not hold (a hole of the id space, from rows changed on storage) ends the run, naming it as
// `what` ("a claim", "a relaxation").
template <class Id, class Item, class Vertex, class Fn>
uint64_t take_for_own_vertices(const DistGraph<Id>& g, RankBuffers<Item>& out, const Comm& comm, uint64_t* sent,
                               const char* what, Vertex&& vertex, Fn&& fn) {
  const std::vector<Item> got = out.exchange(comm, sent);
  uint64_t sum = 0, foreign = UINT64_MAX;
#pragma omp parallel for schedule(static) reduction(+ : sum) reduction(min : foreign)
  for (size_t k = 0; k < got.size(); ++k) {
    const uint64_t v = vertex(got[k]);
    if (!g.owns(v)) [[unlikely]] foreign = std::min(foreign, v);
    else sum += fn(Id(v - g.lo), got[k]);
  }
  if (foreign != UINT64_MAX)
    throw Error(fmt::format("{} for vertex {}, which rank {} does not hold: a rank's rows are corrupted", what, foreign,
                            comm.rank()));
  return sum;
}

// The distributed ids of input labels (the roots), on every rank: each found by the rank holding it.
template <class Id>
std::vector<Id> internal_roots(const DistGraph<Id>& g, const std::vector<uint64_t>& roots, const Comm& comm) {
  std::unordered_map<uint64_t, std::vector<size_t>> where;
  for (size_t i = 0; i < roots.size(); ++i) where[roots[i]].push_back(i);
  std::vector<uint64_t> id(roots.size(), 0);
  for (uint64_t v = g.lo; v < g.hi; ++v)
    if (const auto it = where.find(g.label(v)); it != where.end())
      for (size_t i : it->second) id[i] = v;
  comm.sum_in_place(std::span<uint64_t>(id));  // one rank holds each label; the others add 0
  return std::vector<Id>(id.begin(), id.end());
}

using DistProgress = std::function<void(const char*, uint64_t, uint64_t)>;

// CountDegrees across the ranks (collective): every non-self-loop tuple's endpoints sent to their label blocks'
// owners; returns the degrees of this rank's block.
template <class Id, class Source>
std::vector<uint32_t> count_block_degrees(const TupleShare<Source>& share, const Comm& comm, const LabelBlocks& blocks,
                                          const DistProgress& progress) {
  const uint64_t a = blocks.begin(comm.rank()), b = blocks.end(comm.rank());
  std::vector<uint32_t> degree(b - a, 0);
  RankBuffers<Id> ends(omp_get_max_threads(), comm.size());
  uint64_t round = 0;
  share.for_each_round([&](std::span<const Edge> edges) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (e.u == e.v) continue;
      ends.mine(blocks.owner(e.u)).push_back(Id(e.u));
      ends.mine(blocks.owner(e.v)).push_back(Id(e.v));
    }
    const std::vector<Id> got = ends.exchange(comm);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < got.size(); ++i)
      std::atomic_ref<uint32_t>(degree[got[i] - a]).fetch_add(1, std::memory_order_relaxed);
    if (progress) progress("count", ++round, 2 * share.rounds);
  });
  return degree;
}

// RenumberByDegree (collective): a stable counting sort across the ranks. Degree d's class starts after every
// higher degree's; within it, the lower blocks' vertices come first, then this block's in label order. label.rank
// gets this block's degree ranks; g.has_edge every block's bits (the roots' rule).
template <class Id>
void renumber_by_degree(const std::vector<uint32_t>& degree, const Comm& comm, LabelMap<Id>& label, DistGraph<Id>& g) {
  const uint64_t a = label.first;
  uint32_t local_max = 0;
  for (uint32_t d : degree) local_max = std::max(local_max, d);
  const uint64_t max_degree = comm.max(uint64_t(local_max));
  std::vector<uint64_t> here(max_degree + 1, 0);
  for (uint32_t d : degree) ++here[d];
  std::vector<uint64_t> before = here, total = here;
  comm.exscan_in_place(std::span<uint64_t>(before));
  comm.sum_in_place(std::span<uint64_t>(total));
  uint64_t at = 0;
  for (uint64_t d = max_degree + 1; d-- > 0;) {
    before[d] += at;  // the next degree rank of this block's class-d vertices
    at += total[d];
  }
  label.rank.resize(degree.size());
  g.has_edge.assign((g.n + 63) / 64, 0);
  for (uint64_t v = a; v < a + degree.size(); ++v) {
    label.rank[v - a] = Id(before[degree[v - a]]++);
    if (degree[v - a] > 0) g.has_edge[v >> 6] |= uint64_t(1) << (v & 63);
  }
  std::vector<uint64_t> first_word(size_t(comm.size())), word_count(size_t(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    first_word[size_t(r)] = label.blocks.begin(r) / 64;
    word_count[size_t(r)] = (label.blocks.end(r) - label.blocks.begin(r) + 63) / 64;
  }
  comm.allgather_words(g.has_edge.data(), first_word, word_count);
}

// The deal (collective): each vertex of this block, with its label and raw degree, to the rank that owns its
// distributed id; g gets its own vertices' labels and raw degrees. degree is freed before the exchange.
template <class Id>
void deal_vertices(std::vector<uint32_t>&& degree, const Comm& comm, const LabelMap<Id>& label, DistGraph<Id>& g) {
  g.part = VertexDeal(g.n, comm.size());
  g.lo = g.part.begin(comm.rank());
  g.hi = g.part.end(comm.rank());
  struct Dealt {
    Id id, label;
    uint32_t degree;
  };
  RankBuffers<Dealt> deal(omp_get_max_threads(), comm.size());
  const uint64_t a = label.first;
#pragma omp parallel for schedule(static)
  for (uint64_t v = a; v < a + degree.size(); ++v) {
    const uint64_t id = g.part.id(label.rank[v - a]);
    deal.mine(g.part.owner(id)).push_back({Id(id), Id(v), degree[v - a]});
  }
  std::vector<uint32_t>().swap(degree);
  const std::vector<Dealt> got = deal.exchange(comm, nullptr, false);
  g.rows.n = g.local_count();
  g.rows.to_input = NumaArray<Id>(g.local_count());
  g.raw_degree.resize(g.local_count());
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < got.size(); ++i) {
    g.rows.to_input[got[i].id - g.lo] = got[i].label;
    g.raw_degree[got[i].id - g.lo] = got[i].degree;
  }
}

// Kernel 1's first half across the ranks (collective), in O(N/P) a rank: each vertex's degree counted by the
// owner of its label's block; the degree order, highest first and ties by input label as one process orders
// them, from a histogram of degrees summed over the ranks; each vertex dealt to its owner with its label and
// raw degree. label gets this rank's block of the label map (for scatter_tuples). Runs also when a rank's
// rows are reused from storage.
template <class Id, class Source>
DistGraph<Id> order_vertices(const TupleShare<Source>& share, const Comm& comm, LabelMap<Id>& label,
                             const DistProgress& progress = {}) {
  DistGraph<Id> g;
  g.n = share.source.spec().vertex_count();
  label.blocks = LabelBlocks(g.n, comm.size());
  label.first = label.blocks.begin(comm.rank());
  std::vector<uint32_t> degree = count_block_degrees<Id>(share, comm, label.blocks, progress);
  renumber_by_degree(degree, comm, label, g);
  deal_vertices(std::move(degree), comm, label, g);
  return g;
}

// A tuple's endpoints with its kernel-3 weight, as the weighted scatter sends them.
template <class Id>
struct WeightedPair {
  Id first, second;
  float w;
};
// What kernel 1 scatters for rows of Entry (kernel 2's ids, kernel 3's NodeWeight<Id>), and the entry a received
// pair becomes.
template <class Id, class Entry>
using PairFor = std::conditional_t<std::is_same_v<Entry, Id>, IdPair<Id>, WeightedPair<Id>>;
template <class Id>
Id entry_of(const IdPair<Id>& p) { return p.second; }
template <class Id>
NodeWeight<Id> entry_of(const WeightedPair<Id>& p) { return {p.second, p.w}; }

// Kernel 1's scatter (collective): each tuple to the owners of both endpoints, as (degree rank of the owner's
// vertex, degree rank of the other end) pairs -- a WeightedPair carries the tuple's weight along; on_pairs(received)
// once a round on every rank. The label map is spread over the ranks, so a tuple first visits the owners of its
// endpoints' labels: (u, v) to u's, which names u; then to v's, which names v and sends the pairs. Each exchange
// frees its threads' buffers before it sends (two copies of a round at a time, not three: they regrow each
// round). The caller frees label when its last scatter is done.
template <class Pair, class Id, class Source, class OnPairs>
void scatter_tuples(const TupleShare<Source>& share, const Comm& comm, LabelMap<Id>& label,
                       DistBuildReport& report, const DistProgress& progress, OnPairs&& on_pairs) {
  constexpr bool kWeighted = std::is_same_v<Pair, WeightedPair<Id>>;
  const int ranks = comm.size();
  uint64_t round = share.rounds;
  RankBuffers<Pair> hop(omp_get_max_threads(), ranks), out(omp_get_max_threads(), ranks);
  auto one_round = [&](std::span<const Edge> edges, std::span<const float> weights) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (e.u == e.v) continue;
      Pair p{};
      p.first = Id(e.u);
      p.second = Id(e.v);
      if constexpr (kWeighted) p.w = weights[i];
      hop.mine(label.blocks.owner(e.u)).push_back(p);
    }
    std::vector<Pair> got = hop.exchange(comm, &report.bytes_sent, false);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < got.size(); ++i) {
      Pair p = got[i];
      p.first = label(p.first);
      hop.mine(label.blocks.owner(p.second)).push_back(p);
    }
    got = hop.exchange(comm, &report.bytes_sent, false);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < got.size(); ++i) {
      Pair p = got[i];
      p.second = label(p.second);
      out.mine(int(p.first % Id(ranks))).push_back(p);
      std::swap(p.first, p.second);
      out.mine(int(p.first % Id(ranks))).push_back(p);
    }
    on_pairs(out.exchange(comm, &report.bytes_sent, false));
    if (progress) progress("fill", ++round, 2 * share.rounds);
  };
  if constexpr (kWeighted) share.for_each_weighted_round(one_round);
  else share.for_each_round([&](std::span<const Edge> edges) { one_round(edges, {}); });
}

// Sorts and deduplicates each of `count` raw lists of Entry (list i: rows[raw[i] - raw[0], raw[i + 1] - raw[0])):
// kernel 2's by degree rank; kernel 3's to each neighbour's lightest copy (SSSP.md 1.3: never the first), then by
// weight, light edges first (a bucket's light phase stops at its first heavy edge). Compacts them to the front
// of rows; offsets[i] gets where list i starts, counted from `base`. Returns the entries kept (still degree ranks).
template <class Id, class Entry>
uint64_t squish_rows(Entry* rows, const uint64_t* raw, uint64_t count, uint64_t n, uint64_t* offsets, uint64_t base) {
  if constexpr (std::is_same_v<Entry, Id>) sort_and_dedup_lists(rows, raw, count, n);
  else sort_and_dedup_lists_by_weight(rows, raw, count);
  return squish_lists(rows, raw, count, [&](uint64_t i, uint64_t start, uint64_t, uint64_t, uint64_t) {
    offsets[i] = base + start;
  });
}
// The entries' degree ranks turned into distributed ids.
template <class Id, class Entry>
void to_distributed_ids(Entry* rows, uint64_t count, const VertexDeal& part) {
#pragma omp parallel for schedule(static)
  for (uint64_t k = 0; k < count; ++k) {
    if constexpr (std::is_same_v<Entry, Id>) rows[k] = Id(part.id(rows[k]));
    else rows[k].v = Id(part.id(rows[k].v));
  }
}

// Kernel 1's second half in DRAM (collective): each received pair placed at its list's cursor in raw rows of
// Entry, then squished. With `ids` (kernel 3's rows), kernel 2's rows too: the same neighbours by degree rank.
template <class Entry, class Id, class Source>
void fill_rows(DistGraph<Id>& g, const TupleShare<Source>& share, const Comm& comm, LabelMap<Id>& label,
               DistBuildReport& report, bool ids, const DistProgress& progress) {
  const uint64_t local = g.local_count();
  const std::vector<uint64_t> raw = g.raw_starts();
  report.raw_entries = raw.back();
  NumaArray<Entry> rows(raw.back());
  std::vector<uint64_t> cursor(raw.begin(), raw.end() - 1);
  scatter_tuples<PairFor<Id, Entry>>(share, comm, label, report, progress, [&](const auto& got) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < got.size(); ++i) {
      uint64_t& at = cursor[got[i].first / Id(comm.size())];
      rows[std::atomic_ref<uint64_t>(at).fetch_add(1, std::memory_order_relaxed)] = entry_of(got[i]);
    }
  });
  std::vector<Id>().swap(label.rank);
  NumaArray<uint64_t> offsets(local + 1);
  const uint64_t write = offsets[local] = squish_rows<Id>(rows.data(), raw.data(), local, g.n, offsets.data(), 0);
  rows.shrink(write);
  if constexpr (std::is_same_v<Entry, Id>) {
    to_distributed_ids<Id>(rows.data(), write, g.part);
    g.rows.adj = std::move(rows);
  } else {
    if (ids) {
      NumaArray<Id> adj(write);
#pragma omp parallel for schedule(dynamic, 256)
      for (uint64_t i = 0; i < local; ++i) {
        Id* first = adj.data() + offsets[i];
        Id* last = adj.data() + offsets[i + 1];
        for (Id* a = first; a != last; ++a) *a = rows[uint64_t(a - adj.data())].v;
        std::sort(first, last);  // by degree rank: highest degree first
      }
      to_distributed_ids<Id>(adj.data(), write, g.part);
      g.rows.adj = std::move(adj);
    }
    to_distributed_ids<Id>(rows.data(), write, g.part);
    g.weighted = std::move(rows);
  }
  g.rows.offsets = BlockOffsets(offsets);
  g.local_entries = write;
  g.directed_edges = comm.sum(write);
}

// Kernel 1 across the ranks, every rank's rows in DRAM (collective): kernel 2's (Entry = Id), or kernel 3's from a
// weighted share (Entry = NodeWeight<Id>; with `ids`, kernel 2's beside them). progress(phase, done, total) on
// every rank.
template <class Id, class Entry = Id, class Source>
DistGraph<Id> build_dist_graph(const TupleShare<Source>& share, const Comm& comm, DistBuildReport& report,
                               bool ids = false, const DistProgress& progress = {}) {
  const double t0 = omp_get_wtime();
  LabelMap<Id> label;
  DistGraph<Id> g = order_vertices(share, comm, label, progress);
  fill_rows<Entry>(g, share, comm, label, report, ids, progress);
  report.seconds = omp_get_wtime() - t0;
  return g;
}

}  // namespace strata
