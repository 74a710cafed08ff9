// Distributed direction-optimizing BFS over a 1-D partition (Beamer, Buluç, Asanović, Patterson, IPDPS 2013):
// top-down, each rank expands its frontier vertices and sends (child, parent) pairs to the children's owners
// (one alltoallv a level); bottom-up, the ranks first share the frontier as one global bitmap (an allgather
// of N bits) and each looks for parents of its own unvisited vertices without further messages. The direction
// switch is the single-process policy on global counts, so both take the same turns on the same graph.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "bfs/bitmap.hpp"
#include "bfs/graph_search.hpp"
#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "cluster/rank_rows.hpp"
#include "core/ids.hpp"

namespace strata {

template <class Id>
class DistBfs {
 public:
  // stored: the rank's rows on its storage (out-of-core), else g's rows in DRAM. Collective: the ranks share
  // their hubs' labels.
  DistBfs(const DistGraph<Id>& g, const Comm& comm, const BfsOptions& options, RankRows<Id>* stored = nullptr)
      : g_(g), comm_(comm), opt_(options), stored_(stored), parent_(g.local_count()),
        front_(g.local_count()), next_(g.local_count()), global_(g.part.ids()) {
    for (int r = 0; r < comm.size(); ++r) {
      first_word_.push_back(g.part.begin(r) / 64);
      word_count_.push_back((g.part.count(r) + 63) / 64);
    }
    share_hub_labels();
  }

  // Searches from internal vertex root (collective); out[v - lo] = the input label of local v's parent (the
  // root's: itself; unreached: kNoVertex). Translating labels is part of the search, as single-process; a
  // rank knows only its own vertices' labels, so the other parents' are asked of their owners.
  SearchStats search(Id root, Id* out) {
    SearchStats stats;
    std::fill(parent_.begin(), parent_.end(), kNoVertex<Id>);
    front_.clear();
    uint64_t scout = 0;
    if (g_.owns(root)) {
      parent_[root - g_.lo] = root;
      front_.set_atomic(root - g_.lo);
      scout = g_.degree(root);
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
    return parent_.size() * sizeof(Id) + hub_labels_.size() * sizeof(Id) +
           (front_.word_count() + next_.word_count() + global_.word_count()) * sizeof(uint64_t);
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
    std::copy_n(g_.labels.begin(), std::min(hub_count_, g_.local_count()), mine.begin());
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

  // Local vertex i's list as the search sees it: whole (DRAM), or its cached prefix, the tail on storage (dax:
  // in place at `tail`; out-of-core: read by TailReads).
  struct List {
    const Id* first;
    uint64_t length, degree;
    const Id* tail = nullptr;
    const Id* tail_end() const { return tail + (degree - length); }
  };
  // prefix: where i's cached prefix starts (walks that visit a word's vertices in order keep it as they go).
  List list(uint64_t i, uint64_t prefix) const {
    const uint64_t begin = g_.offsets[i], degree = g_.offsets[i + 1] - begin;
    if (!stored_) return {g_.adj.data() + begin, degree, degree};
    const EdgeCache<Id>& c = stored_->cache();
    const uint64_t length = c.index.length(degree);
    const Id* mapped = stored_->mapped();
    return {c.adj.data() + prefix, length, degree, mapped ? mapped + begin + length : nullptr};
  }
  List list(uint64_t i) const { return list(i, stored_ ? stored_->prefix_begin(i) : 0); }
  // dax: the first id of [first, last) that is no vertex (the mapping changed after its checksums were checked),
  // noted to end the search after the step (an exception may not leave an OpenMP loop); last if none.
  const Id* first_bad(const Id* first, const Id* last) {
    for (const Id* it = first; it != last; ++it)
      if (!g_.part.is_vertex(*it)) [[unlikely]] {
        const Id* none = nullptr;
        bad_.compare_exchange_strong(none, it, std::memory_order_relaxed);
        return it;
      }
    return last;
  }
  void check_bad() {
    if (const Id* at = bad_.exchange(nullptr, std::memory_order_relaxed)) throw stored_->corrupted(at);
  }
  // An id read from storage: a vertex of the id space, or the file changed after its checksums were checked.
  void check_stored(const Id* first, const Id* last) const {
    for (const Id* it = first; it != last; ++it)
      if (!g_.part.is_vertex(*it)) [[unlikely]] throw InvalidEntry{it};
  }

  // Claims local vertex v for parent u; returns v's degree if this call claimed it, else 0.
  uint64_t claim(Id v, Id u) {
    Id& p = parent_[v - g_.lo];
    if (std::atomic_ref<Id>(p).load(std::memory_order_relaxed) != kNoVertex<Id>) return 0;
    Id expected = kNoVertex<Id>;
    if (!std::atomic_ref<Id>(p).compare_exchange_strong(expected, u, std::memory_order_relaxed)) return 0;
    next_.set_atomic(v - g_.lo);
    return g_.degree(v);
  }

  // TopDownStep: local children claimed at once, remote ones sent to their owners as (child, parent).
  uint64_t top_down_step(uint64_t& scout, uint64_t& examined, uint64_t& sent) {
    next_.clear();
    RankBuffers<IdPair<Id>> remote(omp_get_max_threads(), comm_.size());
    auto expand = [&](Id u, const Id* first, const Id* last) {
      uint64_t added = 0;
      for (const Id* it = first; it != last; ++it) {
        const Id v = *it;
        if (g_.owns(v)) added += claim(v, u);
        else remote.mine(g_.part.owner(v)).push_back({v, u});
      }
      return added;
    };
    uint64_t new_scout = 0, looked = 0, in_place = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : new_scout, looked, in_place)
    for (uint64_t w = 0; w < front_.word_count(); ++w)
      for (uint64_t bits = front_.words()[w]; bits; bits &= bits - 1) {
        const uint64_t i = w * 64 + uint64_t(__builtin_ctzll(bits));
        const List l = list(i);
        looked += l.length;
        new_scout += expand(Id(g_.lo + i), l.first, l.first + l.length);
        if (l.length == l.degree) continue;
        if (!l.tail) {
          stored_->tails().mark(i);
        } else if (first_bad(l.tail, l.tail_end()) == l.tail_end()) {
          in_place += l.degree - l.length;
          new_scout += expand(Id(g_.lo + i), l.tail, l.tail_end());
        }
      }
    check_bad();
    io_.edges_storage += in_place;
    looked += in_place;
    if (stored_ && !stored_->mapped()) {  // the marked tails, read in file order
      std::atomic<uint64_t> added{0};
      stored_->tails().read([&](Id i, const Id* first, const Id* last) {
        check_stored(first, last);
        added.fetch_add(expand(Id(g_.lo + i), first, last), std::memory_order_relaxed);
        return uint64_t(last - first);
      }, io_);
      new_scout += added.load();
      looked += io_.edges_storage;
    }
    const std::vector<IdPair<Id>> got = remote.exchange(comm_, &sent);
#pragma omp parallel for schedule(static) reduction(+ : new_scout)
    for (size_t i = 0; i < got.size(); ++i) new_scout += claim(got[i].first, got[i].second);
    scout = comm_.sum(new_scout);
    examined = looked;
    front_.swap(next_);
    return comm_.sum(front_.count());
  }

  // BottomUpStep: the frontier gathered into one global bitmap, then each unvisited local vertex takes the
  // first neighbour found in it (lists start with the highest-degree neighbours).
  uint64_t bottom_up_step(uint64_t& examined, uint64_t& sent) {
    std::copy(front_.words(), front_.words() + front_.word_count(), global_.words() + first_word_[comm_.rank()]);
    comm_.allgather_words(global_.words(), first_word_, word_count_, &sent);
    const uint64_t* front = global_.words();
    uint64_t awake = 0, looked = 0, in_place = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : awake, looked, in_place)
    for (uint64_t w = 0; w < front_.word_count(); ++w) {
      uint64_t bits = 0;
      const uint64_t end = std::min<uint64_t>(64, g_.local_count() - w * 64);
      uint64_t prefix = stored_ ? stored_->cache().index.word_begin(w) : 0;  // vertex 64w + j's, as j goes
      for (uint64_t j = 0; j < end; ++j) {
        const uint64_t i = w * 64 + j;
        const List l = list(i, prefix);
        prefix += l.length;
        if (parent_[i] != kNoVertex<Id>) continue;
        const Id* it = first_marked(front, l.first, l.first + l.length);
        looked += uint64_t(std::min(it + 1, l.first + l.length) - l.first);
        if (it != l.first + l.length) {
          parent_[i] = *it;
          bits |= uint64_t(1) << j;
          ++awake;
        } else if (l.length < l.degree && !l.tail) {
          stored_->tails().mark(i);
        } else if (l.length < l.degree) {  // dax: the tail in place, each id checked as it is scanned
          const Id* bad = first_bad(l.tail, l.tail_end());
          const Id* hit = first_marked(front, l.tail, bad);
          in_place += uint64_t(std::min(hit + 1, bad) - l.tail);
          if (hit != bad) {
            parent_[i] = *hit;
            bits |= uint64_t(1) << j;
            ++awake;
          }
        }
      }
      next_.words()[w] = bits;
    }
    check_bad();
    io_.edges_storage += in_place;
    looked += in_place;
    if (stored_ && !stored_->mapped()) awake += bottom_up_tails(front, looked);
    examined = looked;
    front_.swap(next_);
    return comm_.sum(awake);
  }

  // Out-of-core: the tails of the vertices not found in their prefix, read from storage, each searched for
  // its first neighbour in the frontier. Returns the vertices found; adds the entries read to `looked`.
  uint64_t bottom_up_tails(const uint64_t* front, uint64_t& looked) {
    std::atomic<uint64_t> found{0};
    stored_->tails().read([&](Id i, const Id* first, const Id* last) {
      if (parent_[i] != kNoVertex<Id>) return uint64_t(0);  // found in an earlier piece of a long tail
      check_stored(first, last);
      const Id* it = first_marked(front, first, last);
      if (it == last) return uint64_t(last - first);
      parent_[i] = *it;
      next_.set_atomic(i);
      found.fetch_add(1, std::memory_order_relaxed);
      return uint64_t(it - first + 1);
    }, io_);
    looked += io_.edges_storage;
    return found.load();
  }

  const DistGraph<Id>& g_;
  const Comm& comm_;
  BfsOptions opt_;
  RankRows<Id>* stored_;
  LevelIo io_;  // this level's storage traffic (out-of-core), or entries read in place (dax)
  std::atomic<const Id*> bad_{nullptr};  // dax: an entry of the mapping that is no vertex id
  uint64_t bytes_read_ = 0;
  std::vector<Id> parent_;  // local vertices' parents, internal ids
  Bitmap front_, next_;  // this rank's vertices
  Bitmap global_;        // bottom-up: the whole frontier (the id space; holes never set)
  std::vector<uint64_t> first_word_, word_count_;  // each rank's part of global_
  uint64_t hub_count_ = 0;          // hubs a rank: its first ids
  std::vector<Id> hub_labels_;  // rank r's hub k's input label at r * hub_count_ + k
};

}  // namespace strata
