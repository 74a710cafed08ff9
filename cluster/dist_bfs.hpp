// Distributed direction-optimizing BFS over a 1-D partition (Beamer, Buluç, Asanović, Patterson, IPDPS 2013):
// top-down, each rank expands its frontier vertices and sends (child, parent) pairs to the children's owners
// (one alltoallv a level); bottom-up, the ranks first share the frontier as one global bitmap (an allgather
// of N bits) and each looks for parents of its own unvisited vertices without further messages. The direction
// switch is the single-process policy on global counts, so both take the same turns on the same graph.
// A rank's lists come from the one-process neighbour sources (bfs/neighbour_sources.hpp), over its local lists
// of distributed ids: in DRAM (WholeLists), or its rows on storage (PrefixAndReadTails, PrefixAndMappedTails
// over RankRows); only the exchange and the claim of another rank's vertex are the ranks' own.
#pragma once
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "bfs/bitmap.hpp"
#include "bfs/graph_search.hpp"
#include "bfs/neighbour_sources.hpp"
#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "engine/block_offsets.hpp"

namespace strata {

template <class Id, class Source = WholeLists<Id>>
class DistBfs {
 public:
  // In DRAM: g's own lists. Collective (as every constructor): the ranks share their hubs' labels.
  DistBfs(const DistGraph<Id>& g, const Comm& comm, const BfsOptions& options)
    requires std::is_same_v<Source, WholeLists<Id>>
      : DistBfs(g, comm, options, g.rows.offsets, WholeLists<Id>(g.rows.adj.data(), g.rows.offsets)) {}
  // offsets: g's local lists' ends (on storage: RankRows::local()'s); source: the lists, ids below the id space.
  DistBfs(const DistGraph<Id>& g, const Comm& comm, const BfsOptions& options, const BlockOffsets& offsets, Source source)
      : g_(g), comm_(comm), opt_(options), off_(offsets), source_(std::move(source)), parent_(g.local_count()),
        front_(g.local_count()), next_(g.local_count()), global_(g.part.ids()) {
    for (int r = 0; r < comm.size(); ++r) {
      first_word_.push_back(g.part.begin(r) / 64);
      word_count_.push_back((g.part.count(r) + 63) / 64);
    }
    share_hub_labels();
  }

  // Searches from distributed id root (collective); out[v - lo] = the input label of local v's parent (the
  // root's: itself; unreached: kNoVertex). Translating labels is part of the search, as single-process; a
  // rank knows only its own vertices' labels, so the other parents' are asked of their owners.
  SearchStats search(Id root, Id* out) {
    SearchStats stats;
    std::fill(parent_.begin(), parent_.end(), kNoVertex<Id>);
    if constexpr (requires { source_.reset(); }) source_.reset();
    front_.clear();
    uint64_t scout = 0;
    if (g_.owns(root)) {
      parent_[root - g_.lo] = root;
      front_.set_atomic(root - g_.lo);
      scout = off_[root - g_.lo + 1] - off_[root - g_.lo];
    }
    scout = comm_.sum(scout);
    uint64_t frontier = 1, edges_to_check = g_.directed_edges;
    while (frontier > 0) {
      if (go_bottom_up(scout, edges_to_check)) {
        frontier = bottom_up_levels(frontier, stats);
        scout = 1;
      } else {
        edges_to_check -= std::min(edges_to_check, scout);
        const double t0 = omp_get_wtime();
        uint64_t examined = 0, sent = 0;
        const uint64_t expanded = frontier;
        frontier = top_down_step(scout, examined, sent);
        record(stats, false, expanded, examined, sent, t0);
      }
    }
    stats.bytes_sent += comm_.sum(translate(out));
    return stats;
  }

  // Sum of raw degrees over the vertices the last search reached, on every rank: 2 * nedge.
  uint64_t reached_raw_degree_sum() const {
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (uint64_t i = 0; i < parent_.size(); ++i) sum += parent_[i] != kNoVertex<Id> ? g_.raw_degree[i] : 0;
    return comm_.sum(sum);
  }
  uint64_t bytes_read() const { return bytes_read_; }  // this rank's, over every search so far
  uint64_t state_bytes() const {
    uint64_t bytes = parent_.size() * sizeof(Id) + hub_labels_.size() * sizeof(Id) +
                     (front_.word_count() + next_.word_count() + global_.word_count()) * sizeof(uint64_t);
    if constexpr (requires { source_.state_bytes(); }) bytes += source_.state_bytes();
    return bytes;
  }

 private:
  bool go_bottom_up(uint64_t scout, uint64_t edges_to_check) const { return strata::go_bottom_up(opt_, scout, edges_to_check); }
  bool stay_bottom_up(uint64_t awake, uint64_t old_awake) const { return strata::stay_bottom_up(opt_, awake, old_awake, g_.n); }

  // Bottom-up for as long as the policy holds; returns the frontier it leaves.
  uint64_t bottom_up_levels(uint64_t frontier, SearchStats& stats) {
    uint64_t awake = frontier, old_awake;
    do {
      const double t0 = omp_get_wtime();
      uint64_t examined = 0, sent = 0;
      old_awake = awake;
      awake = bottom_up_step(examined, sent);
      record(stats, true, old_awake, examined, sent, t0);
    } while (stay_bottom_up(awake, old_awake));
    return awake;
  }

  // out[i] = the input label of parent_[i]: a hub's from the table, this rank's own from its labels, the rest
  // asked of their owners (one exchange each way; the answers come back grouped by owner in the order asked,
  // the order `who` keeps).
  uint64_t translate(Id* out) {
    const int ranks = comm_.size(), me = comm_.rank(), threads = omp_get_max_threads();
    RankBuffers<Id> ask(threads, ranks), who(threads, ranks);  // parents by owner; the vertex that asked
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < parent_.size(); ++i) {
      const Id p = parent_[i];
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

  // A level's counts, summed over the ranks (one reduction).
  void record(SearchStats& s, bool up, uint64_t frontier, uint64_t examined, uint64_t sent, double t0) {
    std::vector<uint64_t> c = {examined, sent, io_.edges_storage, io_.bytes_read, io_.requests};
    comm_.sum_in_place(std::span<uint64_t>(c));
    const LevelIo io{c[2], c[3], c[4]};
    bytes_read_ += io_.bytes_read;
    io_ = LevelIo{};
    s.edges_examined += c[0];
    s.bytes_sent += c[1];
    s.io.edges_storage += io.edges_storage;
    s.io.bytes_read += io.bytes_read;
    s.io.requests += io.requests;
    if (opt_.trace) s.levels.push_back({up, frontier, c[0], omp_get_wtime() - t0, io, c[1]});
  }

  // Claims local vertex i for parent u (a distributed id); returns i's degree if this call claimed it, else 0.
  uint64_t claim(uint64_t i, Id u) {
    Id& p = parent_[i];
    if (std::atomic_ref<Id>(p).load(std::memory_order_relaxed) != kNoVertex<Id>) return 0;
    Id expected = kNoVertex<Id>;
    if (!std::atomic_ref<Id>(p).compare_exchange_strong(expected, u, std::memory_order_relaxed)) return 0;
    next_.set_atomic(i);
    return off_[i + 1] - off_[i];
  }

  // TopDownStep: local children claimed at once, remote ones sent to their owners as (child, parent).
  uint64_t top_down_step(uint64_t& scout, uint64_t& examined, uint64_t& sent) {
    next_.clear();
    RankBuffers<IdPair<Id>> remote(omp_get_max_threads(), comm_.size());
    auto expand = [&](Id i, const Id* first, const Id* last) {  // local i's neighbours
      const Id u = Id(g_.lo + i);
      uint64_t added = 0;
      for (const Id* it = first; it != last; ++it) {
        const Id v = *it;
        if (g_.owns(v)) added += claim(v - g_.lo, u);
        else remote.mine(g_.part.owner(v)).push_back({v, u});
      }
      return added;
    };
    const uint64_t* front = front_.words();
    uint64_t new_scout = 0, looked = 0, in_place = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : new_scout, looked, in_place)
    for (uint64_t w = 0; w < front_.word_count(); ++w) {
      if (front[w] == 0) continue;
      ListWalk<Source> at(off_, source_, w);
      for (uint64_t bits = front[w]; bits; bits &= bits - 1) {
        const uint64_t j = uint64_t(__builtin_ctzll(bits)), i = w * 64 + j;
        const uint64_t degree = at.reach(j), len = source_.prefix_length(degree);
        const Id* first = source_.adj() + at.prefix;
        looked += len;
        new_scout += expand(Id(i), first, first + len);
        if constexpr (Source::kHasTails)
          if (len < degree) new_scout += source_.top_down_tail(Id(i), 0, len, expand, in_place);
      }
    }
    if constexpr (Source::kHasTails) new_scout += source_.top_down_finish(expand, io_);
    source_.check();  // an entry read in place that was no vertex id: before the exchange, as every error
    io_.edges_storage += in_place;
    new_scout += claim_received(remote.exchange(comm_, &sent));
    scout = comm_.sum(new_scout);
    examined = looked + io_.edges_storage;
    front_.swap(next_);
    return comm_.sum(front_.count());
  }

  // The (child, parent) pairs other ranks sent; a child this rank does not hold came from damaged rows.
  uint64_t claim_received(const std::vector<IdPair<Id>>& got) {
    uint64_t added = 0, foreign = UINT64_MAX;
#pragma omp parallel for schedule(static) reduction(+ : added) reduction(min : foreign)
    for (size_t k = 0; k < got.size(); ++k) {
      if (!g_.owns(got[k].first)) [[unlikely]] foreign = std::min<uint64_t>(foreign, got[k].first);
      else added += claim(got[k].first - g_.lo, got[k].second);
    }
    if (foreign != UINT64_MAX)
      throw Error(fmt::format("a claim for vertex {}, which rank {} does not hold: a rank's rows are corrupted",
                              foreign, comm_.rank()));
    return added;
  }

  // BottomUpStep: the frontier gathered into one global bitmap, then each unvisited local vertex takes the
  // first neighbour found in it (lists start with the highest-degree neighbours); tails the source reads later
  // are marked, a word at a time.
  uint64_t bottom_up_step(uint64_t& examined, uint64_t& sent) {
    std::copy(front_.words(), front_.words() + front_.word_count(), global_.words() + first_word_[comm_.rank()]);
    comm_.allgather_words(global_.words(), first_word_, word_count_, &sent);
    const uint64_t* front = global_.words();
    uint64_t* deferred = nullptr;
    if constexpr (Source::kDefers) deferred = source_.deferred_words();
    uint64_t awake = 0, looked = 0, in_place = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : awake, looked, in_place)
    for (uint64_t w = 0; w < front_.word_count(); ++w) {
      uint64_t bits = 0, deferred_bits = 0;
      const uint64_t end = std::min<uint64_t>(64, g_.local_count() - w * 64);
      ListWalk<Source> at(off_, source_, w);
      for (uint64_t j = 0; j < end; ++j) {
        const uint64_t i = w * 64 + j, degree = at.reach(j);
        if (parent_[i] != kNoVertex<Id>) continue;
        const uint64_t len = source_.prefix_length(degree);
        const Id* first = source_.adj() + at.prefix;
        const Id* it = first_marked(front, first, first + len);
        looked += uint64_t(std::min(it + 1, first + len) - first);
        Id found = it != first + len ? *it : kNoVertex<Id>;
        if constexpr (Source::kDefers) {
          if (found == kNoVertex<Id> && len < degree) deferred_bits |= uint64_t(1) << j;
        } else if constexpr (Source::kHasTails) {
          if (found == kNoVertex<Id> && len < degree) found = source_.bottom_up_tail(i, 0, len, front, in_place);
        }
        if (found == kNoVertex<Id>) continue;
        parent_[i] = found;
        bits |= uint64_t(1) << j;
        ++awake;
      }
      next_.words()[w] = bits;
      if constexpr (Source::kDefers) deferred[w] = deferred_bits;
    }
    source_.check();
    io_.edges_storage += in_place;
    if constexpr (Source::kDefers) awake += bottom_up_deferred(front);
    examined = looked + io_.edges_storage;
    front_.swap(next_);
    return comm_.sum(awake);
  }

  // The marked tails, read by the source: the first neighbour in the frontier becomes the parent.
  uint64_t bottom_up_deferred(const uint64_t* front) {
    std::atomic<uint64_t> found{0};
    const uint64_t ids = g_.part.ids();
    auto claim_tail = [&](Id i, const Id* first, const Id* last) {
      if (parent_[i] != kNoVertex<Id>) return uint64_t(0);  // found in an earlier piece of a long tail
      const Id* it = first_marked_or_invalid(front, first, last, ids);  // read from storage: checked as scanned
      if (it == last) return uint64_t(last - first);
      if (*it >= ids) [[unlikely]] throw InvalidEntry{it};
      parent_[i] = *it;
      next_.set_atomic(i);
      found.fetch_add(1, std::memory_order_relaxed);
      return uint64_t(it - first + 1);
    };
    source_.bottom_up_finish(claim_tail, io_);
    return found.load();
  }

  const DistGraph<Id>& g_;
  const Comm& comm_;
  BfsOptions opt_;
  const BlockOffsets& off_;  // the local lists' ends
  Source source_;
  LevelIo io_;  // this level's storage traffic (out-of-core), or entries read in place (dax)
  uint64_t bytes_read_ = 0;
  std::vector<Id> parent_;  // local vertices' parents, distributed ids
  Bitmap front_, next_;  // this rank's vertices
  Bitmap global_;        // bottom-up: the whole frontier (the id space; holes never set)
  std::vector<uint64_t> first_word_, word_count_;  // each rank's part of global_
  uint64_t hub_count_ = 0;          // hubs a rank: its first ids
  std::vector<Id> hub_labels_;  // rank r's hub k's input label at r * hub_count_ + k
};

}  // namespace strata
