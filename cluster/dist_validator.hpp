// Graph500 validation across the ranks, independent of kernel 1 and of the search: each search's parents are
// moved to a block partition of the input labels and its levels derived from the parents alone (rule 1: each
// round asks the parents' owners for their levels; a vertex whose chain never reaches the root is on a cycle
// or hangs off an unreached parent). Then one pass over the input tuples, each rank its own share, checks
// rules 3-5 and recounts nedge (reference 3.0 rule) for a whole batch of searches, in two hops: a tuple (u, v)
// goes to u's owner, which adds u's level in every search of the batch and forwards it to v's owner. Every
// rank returns the same verdicts: per search, the first rule broken anywhere and its witness.
// Kernel 3's results (a validator made `weighted`) are checked by SSSP.md's rules R1-R8 with the messages of
// validate/sssp_validator.hpp: R1-R4 where each vertex's label lives, R8 (no parent cycle, which the reference
// lacks) as the depths are derived, and R5-R7 in the pass over the weighted tuples, each tuple in both
// directions: (x, y, w) goes to x's owner, which adds x's distance in every search and forwards it to y's
// owner, which checks the triangle rule and confirms y's parent edge.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "core/ids.hpp"
#include "validate/sssp_validator.hpp"
#include "validate/validator.hpp"

namespace strata {

template <class Id>
class DistValidator {
 public:
  // DRAM a rank needs for a batch of `slots` searches of a graph of n vertices over `ranks` ranks.
  static uint64_t batch_bytes(uint64_t n, int ranks, int slots, bool weighted = false) {
    return uint64_t(slots) * ((n + ranks - 1) / ranks) * (sizeof(Id) + sizeof(int32_t) + 1 + (weighted ? 4 : 0));
  }

  // weighted: kernel 3's results (add_sssp), checked against a weighted share's tuples.
  DistValidator(uint64_t n, const Comm& comm, int slots, bool weighted = false)
      : n_(n), comm_(comm), block_((n + comm.size() - 1) / comm.size()), a_(std::min(n, block_ * comm.rank())),
        b_(std::min(n, a_ + block_)), slots_(slots), weighted_(weighted), parent_((b_ - a_) * slots),
        level_((b_ - a_) * slots), tree_edge_((b_ - a_) * slots), dist_(weighted ? (b_ - a_) * slots : 0) {}

  int size() const { return int(searches_.size()); }
  bool full() const { return size() == slots_; }

  // Adds one search to the batch (collective): out[v - g.lo] is the parent's input label of local vertex v, by
  // distributed id; its levels are derived now, so `out` may be reused at once.
  void add(const DistGraph<Id>& g, const Id* out, uint64_t root, uint64_t nedge) {
    Search& s = searches_.emplace_back(*this, size());
    s.root = root;
    s.nedge = nedge;
    gather_parents(s, g, out);
    derive_levels(s);
  }

  // Adds one kernel-3 search (collective): dist[v - g.lo] (-1 unreached) and out[v - g.lo] (the parent's input
  // label) of local vertex v; R1-R4 are checked now and R8 as the depths are derived, so both may be reused.
  void add_sssp(const DistGraph<Id>& g, const float* dist, const Id* out, uint64_t root, uint64_t nedge) {
    Search& s = searches_.emplace_back(*this, size());
    s.root = root;
    s.nedge = nedge;
    struct Result {
      Id label, parent;
      float d;
    };
    std::vector<std::vector<Result>> send(comm_.size());
    for (uint64_t v = g.lo; v < g.hi; ++v) send[owner(g.label(v))].push_back({g.label(v), out[v - g.lo], dist[v - g.lo]});
    for (const Result& x : comm_.exchange(send)) {
      s.parent[x.label - a_] = x.parent;
      s.dist[x.label - a_] = x.d;
    }
    for (uint64_t i = 0; i < s.count; ++i) {
      const Id p = s.parent[i];
      const float d = s.dist[i];
      const bool no_parent = p == kNoVertex<Id>, no_dist = d == -1.0f;
      if (!no_parent && p >= n_) fail(s, 1, sssp_rules::parent_out_of_range(a_ + i, p));
      else if (!no_dist && !(d >= 0.0f)) fail(s, 2, sssp_rules::distance_out_of_range(a_ + i, d));
      else if (no_parent != no_dist) fail(s, 3, sssp_rules::inconsistent(a_ + i, no_parent ? -1 : int64_t(p), d));
    }
    if (root >= a_ && root < b_ && !(s.parent[root - a_] == root && s.dist[root - a_] == 0.0f))
      fail(s, 4, sssp_rules::bad_root(root, std::to_string(int64_t(s.parent[root - a_] == kNoVertex<Id> ? -1 : int64_t(s.parent[root - a_]))) +
                                                " and distance " + sssp_rules::num(s.dist[root - a_])));
    derive_levels(s);
  }

  // One pass over this rank's tuples for the whole batch (collective; weighted: a weighted share's); the
  // verdicts in the order added, the same on every rank. Empties the batch.
  template <class Source>
  std::vector<Verdict> check(const TupleShare<Source>& tuples) {
    if constexpr (requires(ChunkBuffer& buffer) { tuples.source.read_weighted_chunk(0, buffer); }) {
      if (weighted_) check_tuples<true>(tuples);
      else check_tuples<false>(tuples);
    } else {
      if (weighted_) throw Error("internal error: kernel 3 validated against tuples without weights");
      check_tuples<false>(tuples);
    }
    std::vector<Verdict> verdicts;
    for (Search& s : searches_) {
      if (weighted_) check_confirmed(s);
      else check_tree_edges(s);
      Verdict v;
      v.nedge = comm_.sum(s.counted) / (weighted_ ? 2 : 1);  // weighted: each tuple counted both ways
      if (s.failure.rule == 0 && v.nedge != s.nedge)
        fail(s, weighted_ ? 7 : 6, weighted_ ? sssp_rules::wrong_nedge(s.nedge, v.nedge)
                                             : "nedge mismatch: the search counted " + std::to_string(s.nedge) +
                                                   ", the input tuples give " + std::to_string(v.nedge));
      agree(s, v);
      verdicts.push_back(std::move(v));
    }
    searches_.clear();
    return verdicts;
  }

 private:
  static constexpr int32_t kNoLevel = -1, kUnknown = -2;
  struct Failure {
    int rule = 0;  // 0: none
    std::string what;
  };
  // One search of the batch: its column of the vertex-major arrays (all of a vertex's searches share a line,
  // so the pass's random accesses serve the whole batch at once).
  template <class T>
  struct Column {
    T* base;
    size_t stride;
    T& operator[](uint64_t i) const { return base[i * stride]; }
  };
  struct Search {
    Search(DistValidator& v, int j)
        : parent{v.parent_.data() + j, size_t(v.slots_)}, level{v.level_.data() + j, size_t(v.slots_)},
          tree_edge{v.tree_edge_.data() + j, size_t(v.slots_)},
          dist{v.weighted_ ? v.dist_.data() + j : nullptr, size_t(v.slots_)},
          count(v.b_ - v.a_) {
      for (uint64_t i = 0; i < count; ++i) {
        parent[i] = kNoVertex<Id>;
        level[i] = kNoLevel;
        tree_edge[i] = 0;
        if (v.weighted_) dist[i] = -1.0f;
      }
    }
    Column<Id> parent;      // by input label - a_
    Column<int32_t> level;
    Column<uint8_t> tree_edge;  // the vertex met its parent in some tuple (rule 5; kernel 3: R5b confirmed it)
    Column<float> dist;         // kernel 3's distances (weighted)
    uint64_t count;
    uint64_t root = 0, nedge = 0, counted = 0;
    Failure failure;
  };
  int owner(uint64_t label) const { return int(label / block_); }
  static void fail(Search& s, int rule, std::string what) {
    if (s.failure.rule == 0 || rule < s.failure.rule) s.failure = {rule, std::move(what)};
  }

  // The search's output, by input label: each local vertex's (label, parent label) to the label's owner.
  void gather_parents(Search& s, const DistGraph<Id>& g, const Id* out) {
    std::vector<std::vector<IdPair<Id>>> send(comm_.size());
    for (uint64_t v = g.lo; v < g.hi; ++v) {
      const Id label = g.label(v);
      send[owner(label)].push_back({label, out[v - g.lo]});
    }
    for (const auto& [label, parent] : comm_.exchange(send)) s.parent[label - a_] = parent;
  }

  // Rule 1: level[v] = depth of v in the parent tree, by rounds of asking the parents' owners.
  void derive_levels(Search& s) {
    for (uint64_t i = 0; i < s.count; ++i) {
      const Id p = s.parent[i];
      s.level[i] = p == kNoVertex<Id> ? kNoLevel : kUnknown;
      if (p != kNoVertex<Id> && p >= n_ && !weighted_)  // kernel 3: R1, checked by add_sssp
        fail(s, 1, bfs_rules::parent_not_vertex(a_ + i, p));
    }
    if (s.root >= a_ && s.root < b_) {  // kernel 3's root: R4, checked by add_sssp
      if (s.parent[s.root - a_] != s.root) {
        if (!weighted_) fail(s, 1, bfs_rules::root_not_own_parent(std::to_string(s.root)));
      } else {
        s.level[s.root - a_] = 0;
      }
    }
    if (comm_.sum(s.failure.rule != 0) == 0) {
      for (;;) {
        RankBuffers<Id> ask(1, comm_.size());
        std::vector<uint64_t> asking, counts;
        for (uint64_t i = 0; i < s.count; ++i)
          if (s.level[i] == kUnknown) {
            ask.by_thread[0][owner(s.parent[i])].push_back(s.parent[i]);
            asking.push_back(i);
          }
        const std::vector<Id> keys = ask.take(counts);
        const std::vector<int32_t> got =  // by answering rank, as asked
            comm_.ask<int32_t>(keys, counts, [&](Id q) { return s.level[q - a_]; });
        std::vector<size_t> next(comm_.size(), 0);
        for (int r = 1; r < comm_.size(); ++r) next[r] = next[r - 1] + counts[r - 1];
        uint64_t resolved = 0;
        for (uint64_t i : asking) {
          const int32_t lp = got[next[owner(s.parent[i])]++];
          if (lp >= 0) {
            s.level[i] = lp + 1;
            ++resolved;
          }
        }
        if (comm_.sum(resolved) == 0) break;
      }
    }
    for (uint64_t i = 0; i < s.count; ++i)
      if (s.level[i] == kUnknown) {
        if (s.failure.rule == 0) {
          const std::string why = "vertex " + std::to_string(a_ + i) + "'s parent chain never reaches the root (a "
                                  "cycle, or a parent that was not reached)";
          fail(s, weighted_ ? 8 : 1, weighted_ ? sssp_rules::no_tree(why) : why);
        }
        s.level[i] = kNoLevel;
      }
  }

  // A tuple pass's findings, by thread and search, folded into each search: the entries counted, the first
  // failure (the lowest rule a thread found).
  void fold(std::vector<std::vector<Failure>>& found, const std::vector<std::vector<uint64_t>>& counted) {
    for (int j = 0; j < size(); ++j)
      for (size_t t = 0; t < found.size(); ++t) {
        searches_[j].counted += counted[t][size_t(j)];
        if (found[t][size_t(j)].rule) fail(searches_[j], found[t][size_t(j)].rule, std::move(found[t][size_t(j)].what));
      }
  }

  // One pass over this rank's share of the tuples for every search of the batch, in two hops: a tuple (x, y) goes
  // to x's owner, which adds x's word in each search (its level; kernel 3, its distance) and forwards it to y's
  // owner, which checks the tuple there (check_at_y). Hop 2 carries (y, x, [w,] x's words): kHead + slots words.
  // Kernel 2 sends each tuple once, as (u, v), and marks rule 5's tree edge at both ends; kernel 3 sends it both
  // ways, so that R5 is checked at each end.
  template <bool kWeighted, class Source>
  void check_tuples(const TupleShare<Source>& tuples) {
    using Pair = std::conditional_t<kWeighted, WeightedPair<Id>, IdPair<Id>>;
    constexpr size_t kHead = kWeighted ? 3 : 2;
    const int threads = omp_get_max_threads(), k = size();
    const size_t stride = kHead + size_t(k);
    std::vector<std::vector<Failure>> found(threads, std::vector<Failure>(k));
    std::vector<std::vector<uint64_t>> counted(threads, std::vector<uint64_t>(k, 0));
    auto round = [&](std::span<const Edge> edges, std::span<const float> weights) {
      RankBuffers<Pair> first(threads, comm_.size());
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < edges.size(); ++i) {
        const Edge& e = edges[i];
        if (e.u == e.v) continue;
        if constexpr (kWeighted) {
          first.mine(owner(e.u)).push_back({Id(e.u), Id(e.v), weights[i]});
          first.mine(owner(e.v)).push_back({Id(e.v), Id(e.u), weights[i]});
        } else {
          first.mine(owner(e.u)).push_back({Id(e.u), Id(e.v)});
        }
      }
      const std::vector<Pair> at_x = first.exchange(comm_);
      RankBuffers<Id> second(threads, comm_.size());
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < at_x.size(); ++i) {
        const Id x = at_x[i].first, y = at_x[i].second;
        std::vector<Id>& to = second.mine(owner(y));
        to.resize(to.size() + stride);
        Id* hop = to.data() + to.size() - stride;
        hop[0] = y;
        hop[1] = x;
        const uint64_t at = (x - a_) * uint64_t(slots_);
        if constexpr (kWeighted) {
          hop[2] = Id(std::bit_cast<uint32_t>(at_x[i].w));
          for (int j = 0; j < k; ++j) hop[kHead + j] = Id(std::bit_cast<uint32_t>(dist_[at + j]));
        } else {
          for (int j = 0; j < k; ++j) {
            if (parent_[at + j] == y) mark(at + j);
            hop[kHead + j] = Id(uint32_t(level_[at + j]));
          }
        }
      }
      check_at_y<kWeighted>(second.exchange(comm_), found, counted);
    };
    if constexpr (kWeighted) tuples.for_each_weighted_round(round);
    else tuples.for_each_round([&](std::span<const Edge> edges) { round(edges, {}); });
    fold(found, counted);
  }

  // Hop 2's end, at y's owner: each (y, x, [w,] x's words) checked against y's, by thread and search.
  template <bool kWeighted>
  void check_at_y(const std::vector<Id>& at_y, std::vector<std::vector<Failure>>& found,
                  std::vector<std::vector<uint64_t>>& counted) {
    constexpr size_t kHead = kWeighted ? 3 : 2;
    const int k = size();
    const size_t stride = kHead + size_t(k);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < at_y.size(); i += stride) {
      const Id y = at_y[i], x = at_y[i + 1];
      const int t = omp_get_thread_num();
      const uint64_t at = (y - a_) * uint64_t(slots_);
      for (int j = 0; j < k; ++j) {
        const uint32_t word = uint32_t(at_y[i + kHead + size_t(j)]);
        if constexpr (kWeighted)
          check_distances(x, y, std::bit_cast<float>(uint32_t(at_y[i + 2])), std::bit_cast<float>(word), at + j,
                          found[t][j], counted[t][j]);
        else
          check_levels(x, y, int32_t(word), at + j, found[t][j], counted[t][j]);
      }
    }
  }

  // Kernel 2's tuple (u, v) at v, search slot `at`: rules 3 and 4 against v's level, u marked as v's parent
  // where it is, the tuple counted for nedge where both ends are reached.
  void check_levels(Id u, Id v, int32_t lu, uint64_t at, Failure& f, uint64_t& counted) {
    const int32_t lv = level_[at];
    if (parent_[at] == u) mark(at);
    if ((lu >= 0) != (lv >= 0)) {
      if (f.rule == 0 || f.rule > 4) f = {4, bfs_rules::joins_reached_and_unreached(u, v, lu >= 0)};
    } else if (lv >= 0 && (lu - lv > 1 || lv - lu > 1)) {
      if (f.rule == 0) f = {3, bfs_rules::joins_levels(u, v, lu, lv)};
    }
    counted += lv >= 0 && lu >= 0;
  }

  // Kernel 3's tuple (x, y, w) at y, search slot `at`: R5a (both reached or neither), R5b (x confirms y's parent
  // edge), R5c (the triangle rule), the entry counted where both ends are reached.
  void check_distances(Id x, Id y, float w, float dx, uint64_t at, Failure& f, uint64_t& counted) {
    const float dy = dist_[at];
    if ((dx != -1.0f) != (dy != -1.0f)) {
      if (f.rule == 0) f = {5, sssp_rules::spans(x, y)};
      return;
    }
    if (dx == -1.0f) return;
    const float via = dx + w;  // float + float: fl32, exactly as the reference checks
    if (parent_[at] == x && dy == via) mark(at);
    if (via < dy && f.rule == 0) f = {5, sssp_rules::triangle(x, y, w, via, dy)};
    ++counted;
  }
  void mark(uint64_t at) { std::atomic_ref<uint8_t>(tree_edge_[at]).store(1, std::memory_order_relaxed); }

  // Rule 5: every reached vertex but the root met its parent in some input tuple.
  void check_tree_edges(Search& s) {
    for (uint64_t i = 0; i < s.count; ++i)
      if (s.level[i] > 0 && !s.tree_edge[i]) {
        fail(s, 5, bfs_rules::parent_without_edge(a_ + i, s.parent[i]));
        return;
      }
  }

  // R6: every reached vertex but the root had its parent edge confirmed.
  void check_confirmed(Search& s) {
    for (uint64_t i = 0; i < s.count; ++i)
      if (s.dist[i] != -1.0f && a_ + i != s.root && !s.tree_edge[i]) {
        fail(s, 6, sssp_rules::not_confirmed(a_ + i, s.parent[i], s.dist[i]));
        return;
      }
  }

  // Every rank's verdict made one: the lowest rule broken on any rank, in the words of the lowest such rank.
  void agree(const Search& s, Verdict& v) {
    const uint64_t mine = s.failure.rule ? uint64_t(s.failure.rule) * 65536 + uint64_t(comm_.rank()) : UINT64_MAX;
    const uint64_t first = ~comm_.max(~mine);  // the minimum
    if (first == UINT64_MAX) return;
    const int from = int(first % 65536);
    v.valid = false;
    v.rule = int(first / 65536);
    const std::string what = comm_.broadcast(s.failure.what, from);
    v.message = weighted_ ? sssp_rules::message(v.rule, what) : rule_message(v.rule, what);
  }

  uint64_t n_;
  const Comm& comm_;
  uint64_t block_, a_, b_;  // this rank checks input labels [a_, b_)
  int slots_;
  bool weighted_;
  std::vector<Id> parent_;      // vertex-major: slots_ searches a vertex
  std::vector<int32_t> level_;
  std::vector<uint8_t> tree_edge_;
  std::vector<float> dist_;     // weighted
  std::vector<Search> searches_;
};

}  // namespace strata
