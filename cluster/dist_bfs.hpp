// Distributed direction-optimizing BFS over a 1-D partition (Beamer, Buluç, Asanović, Patterson, IPDPS 2013):
// top-down, each rank expands its frontier vertices and sends (child, parent) pairs to the children's owners
// (one alltoallv a level); bottom-up, the ranks first share the frontier as one global bitmap (an allgather
// of N bits) and each looks for parents of its own unvisited vertices without further messages.
// It is the one-process search (bfs/hybrid_bfs.hpp) over a rank's local lists, from the same neighbour sources
// its tier gives (tiers/: the same sources over a rank's rows in DRAM or on its storage), with RankClaims:
// the exchanges, the claims of other ranks' vertices and the counts summed over the ranks, so the direction
// switch takes the same turns as one process on the same graph. What is the ranks' own besides: naming the
// parents by input label (a rank knows its own vertices' labels and every rank's hubs').
#pragma once
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "bfs/bitmap.hpp"
#include "bfs/graph_search.hpp"
#include "bfs/hybrid_bfs.hpp"
#include "bfs/neighbour_sources.hpp"
#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "core/ids.hpp"
#include "engine/topology.hpp"

namespace strata {

// HybridBfs's Claims across the ranks (its interface is described there): this rank holds distributed ids
// [g.lo, g.hi) of the id space.
template <class Id>
class RankClaims {
 public:
  static constexpr bool kRemote = true;
  RankClaims(const DistGraph<Id>& g, const Comm& comm)
      : lo(g.lo), g_(&g), comm_(&comm), remote_(omp_get_max_threads(), comm.size()), global_(g.part.ids()) {
    for (int r = 0; r < comm.size(); ++r) {
      first_word_.push_back(g.part.begin(r) / 64);
      word_count_.push_back((g.part.count(r) + 63) / 64);
    }
  }
  uint64_t lo;
  bool owns(uint64_t v) const { return g_->owns(v); }
  void send(Id v, Id u) { remote_.mine(g_->part.owner(v)).push_back({v, u}); }
  // The (child, parent) pairs the ranks sent each other.
  template <class Claim>
  uint64_t take(Claim&& claim) {
    return take_for_own_vertices(*g_, remote_, *comm_, &sent_, "a claim", [](const IdPair<Id>& p) { return p.first; },
                                 [&](Id i, const IdPair<Id>& p) { return claim(i, p.second); });
  }
  // Bottom-up's frontier: every rank's part gathered into one bitmap of the id space (holes never set).
  const uint64_t* frontier(const Bitmap& front) {
    std::copy(front.words(), front.words() + front.word_count(), global_.words() + first_word_[comm_->rank()]);
    comm_->allgather_words(global_.words(), first_word_, word_count_, &sent_);
    return global_.words();
  }
  uint64_t sum(uint64_t x) const { return comm_->sum(x); }
  uint64_t level(uint64_t& examined, LevelIo& io) {
    read_ += io.bytes_read;
    own_sent_ += sent_;
    std::array<uint64_t, 5> c = {examined, sent_, io.edges_storage, io.bytes_read, io.requests};
    comm_->sum_in_place(std::span<uint64_t>(c));  // one reduction a level
    sent_ = 0;
    examined = c[0];
    io = LevelIo{c[2], c[3], c[4]};
    return c[1];
  }
  uint64_t ids(uint64_t) const { return g_->part.ids(); }
  uint64_t bytes_read() const { return read_; }      // this rank's, over every search so far
  uint64_t bytes_sent() const { return own_sent_; }  // likewise
  uint64_t state_bytes() const { return global_.word_count() * sizeof(uint64_t); }

 private:
  const DistGraph<Id>* g_;
  const Comm* comm_;
  RankBuffers<IdPair<Id>> remote_;  // claims bound for other ranks, by thread
  Bitmap global_;
  std::vector<uint64_t> first_word_, word_count_;  // each rank's part of global_
  uint64_t sent_ = 0;                              // this level's bytes sent
  uint64_t own_sent_ = 0, read_ = 0;               // every search's bytes sent and read, this rank's
};

template <class Id, class Source>
class DistBfs {
 public:
  // rows: the rank's local lists (g.rows in DRAM; on storage RankRows::local(), offsets only); source: its tier's
  // over them. Collective: the ranks share their hubs' labels.
  DistBfs(const DistGraph<Id>& g, const Comm& comm, const BfsOptions& options, const Csr<Id>& rows, Source source)
      : g_(g), comm_(comm), one_part_(Partitioning::first_touch(g.local_count())),
        bfs_(rows, std::move(source), one_part_, options, RankClaims<Id>(g, comm)) {
    share_hub_labels();
  }
  DistBfs(const DistBfs&) = delete;  // the search holds a reference to one_part_

  // Searches from distributed id root (collective); out[v - lo] = the input label of local v's parent (the
  // root's: itself; unreached: kNoVertex). Translating labels is part of the search, as single-process; a
  // rank knows only its own vertices' labels, so the other parents' are asked of their owners.
  SearchStats search(Id root, Id* out) {
    SearchStats stats = bfs_.levels(root);
    const uint64_t asked = translate(out);
    translate_sent_ += asked;
    stats.bytes_sent += comm_.sum(asked);
    return stats;
  }

  // Sum of raw degrees over the vertices the last search reached, on every rank: 2 * nedge.
  uint64_t reached_raw_degree_sum() const {
    const Id* parent = bfs_.internal_parents();
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (uint64_t i = 0; i < g_.local_count(); ++i) sum += parent[i] != kNoVertex<Id> ? g_.raw_degree[i] : 0;
    return comm_.sum(sum);
  }
  uint64_t bytes_read() const { return bfs_.claims().bytes_read(); }  // this rank's, over every search so far
  uint64_t bytes_sent() const { return bfs_.claims().bytes_sent() + translate_sent_; }  // likewise
  uint64_t state_bytes() const {
    return bfs_.state_bytes() + bfs_.claims().state_bytes() + hub_labels_.size() * sizeof(Id);
  }

 private:
  // out[i] = the input label of local vertex i's parent: a hub's from the table, this rank's own from its labels, the rest
  // asked of their owners (one exchange each way; the answers come back grouped by owner in the order asked,
  // the order `who` keeps).
  uint64_t translate(Id* out) {
    const int ranks = comm_.size(), me = comm_.rank(), threads = omp_get_max_threads();
    const Id* parent = bfs_.internal_parents();
    RankBuffers<Id> ask(threads, ranks), who(threads, ranks);  // parents by owner; the vertex that asked
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < g_.local_count(); ++i) {
      const Id p = parent[i];
      if (p == kNoVertex<Id>) {
        out[i] = p;
        continue;
      }
      const int r = g_.part.owner(p);
      const uint64_t k = p - g_.part.begin(r);
      if (k < hub_count_) out[i] = hub_labels_[uint64_t(r) * hub_count_ + k];
      else if (r == me) out[i] = g_.label(p);
      else {
        ask.mine(r).push_back(p);
        who.mine(r).push_back(Id(i));
      }
    }
    uint64_t sent = 0;
    std::vector<uint64_t> counts;
    const std::vector<Id> answers =
        comm_.ask<Id>(ask.take(counts, false), counts, [&](Id p) { return g_.label(p); }, &sent);
    std::vector<uint64_t> start(size_t(ranks) * threads + 1, 0);  // where (rank r, thread t)'s answers begin
    for (int r = 0; r < ranks; ++r)
      for (int t = 0; t < threads; ++t)
        start[size_t(r) * threads + t + 1] = start[size_t(r) * threads + t] + who.by_thread[t][r].size();
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < ranks * threads; ++k) {
      const std::vector<Id>& mine = who.by_thread[k % threads][k / threads];
      for (size_t j = 0; j < mine.size(); ++j) out[mine[j]] = answers[start[k] + j];
    }
    return sent;
  }

  // Every rank's hubs' labels on every rank (collective): its first sixteenth of the id span, the vertices of
  // highest degree, which bottom-up steps find as parents nearly always (97% of the parents at SCALE 20-22 on 2
  // ranks). A quarter byte a vertex of the graph, against 4 for the whole label map.
  void share_hub_labels() {
    hub_count_ = g_.part.span / 16;
    std::vector<Id> mine(hub_count_, kNoVertex<Id>);
    std::copy_n(g_.rows.to_input.begin(), std::min(hub_count_, g_.local_count()), mine.begin());
    hub_labels_ = comm_.allgather(mine);
  }

  const DistGraph<Id>& g_;
  const Comm& comm_;
  Partitioning one_part_;  // the rank's vertices as one part (RankRows::partitioning()'s bounds)
  HybridBfs<Id, Source, RankClaims<Id>> bfs_;
  uint64_t translate_sent_ = 0;  // this rank's bytes sent naming parents, every search so far
  uint64_t hub_count_ = 0;      // hubs a rank: its first ids
  std::vector<Id> hub_labels_;  // rank r's hub k's input label at r * hub_count_ + k
};

}  // namespace strata
