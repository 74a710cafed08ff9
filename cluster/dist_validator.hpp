// Graph500 validation across the ranks, independent of kernel 1 and of the search: the parents are moved to
// a block partition of the input labels, levels are derived from the parents alone (rule 1: each round asks
// the parents' owners for their levels; a vertex whose chain never reaches the root is on a cycle or hangs off
// an unreached parent), then one pass over the input tuples, each rank its own share, checks rules 3-5 and
// recounts nedge (reference 3.0 rule) in two hops: a tuple (u, v) goes to u's owner, which adds u's level and
// forwards it to v's owner. Every rank returns the same verdict: the first rule broken anywhere, its witness.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "core/ids.hpp"
#include "validate/validator.hpp"

namespace strata {

class DistValidator {
 public:
  DistValidator(uint64_t n, const Comm& comm)
      : n_(n), comm_(comm), block_((n + comm.size() - 1) / comm.size()), a_(std::min(n, block_ * comm.rank())),
        b_(std::min(n, a_ + block_)), parent_(b_ - a_), level_(b_ - a_), tree_edge_((b_ - a_ + 63) / 64) {}

  // Checks one search (collective): out[v - g.lo] is the parent's input label of local internal vertex v.
  template <class Source>
  Verdict check(const DistGraph& g, const DistId* out, uint64_t root, uint64_t nedge, const TupleShare<Source>& tuples) {
    failure_ = {};
    gather_parents(g, out);
    derive_levels(root);
    const uint64_t counted = check_tuples(tuples);
    check_tree_edges(root);
    Verdict v;
    v.nedge = comm_.sum(counted);
    if (failure_.rule == 0 && v.nedge != nedge)
      fail(6, "nedge mismatch: the search counted " + std::to_string(nedge) + ", the input tuples give " + std::to_string(v.nedge));
    agree(v);
    return v;
  }

 private:
  struct Failure {
    int rule = 0;  // 0: none
    std::string what;
  };
  int owner(uint64_t label) const { return int(label / block_); }
  void fail(int rule, std::string what) {
    if (failure_.rule == 0 || rule < failure_.rule) failure_ = {rule, std::move(what)};
  }

  // The search's output, by input label: each local internal vertex's (label, parent label) to the label's owner.
  void gather_parents(const DistGraph& g, const DistId* out) {
    std::vector<std::vector<IdPair>> send(comm_.size());
    for (uint64_t v = g.lo; v < g.hi; ++v) {
      const DistId label = g.to_input[v];
      send[owner(label)].push_back({label, out[v - g.lo]});
    }
    std::fill(parent_.begin(), parent_.end(), kNoVertex<DistId>);
    for (const auto& [label, parent] : comm_.exchange(send)) parent_[label - a_] = parent;
  }

  // Rule 1: level[v] = depth of v in the parent tree, by rounds of asking the parents' owners.
  void derive_levels(uint64_t root) {
    constexpr int32_t kUnknown = -2;
    for (uint64_t i = 0; i < parent_.size(); ++i) {
      const DistId p = parent_[i];
      level_[i] = p == kNoVertex<DistId> ? kNoLevel : kUnknown;
      if (p != kNoVertex<DistId> && p >= n_) fail(1, "vertex " + std::to_string(a_ + i) + " has parent " + std::to_string(p) + ", not a vertex");
    }
    if (root >= a_ && root < b_) {
      if (parent_[root - a_] != root) fail(1, "root " + std::to_string(root) + " is not its own parent");
      else level_[root - a_] = 0;
    }
    if (comm_.sum(failure_.rule != 0)) return;
    for (;;) {
      std::vector<std::vector<DistId>> ask(comm_.size());
      std::vector<uint64_t> asking;
      for (uint64_t i = 0; i < parent_.size(); ++i)
        if (level_[i] == kUnknown) {
          ask[owner(parent_[i])].push_back(parent_[i]);
          asking.push_back(i);
        }
      const std::vector<DistId> asked = comm_.exchange(ask);
      const std::vector<uint64_t> counts = comm_.received_counts();
      std::vector<int32_t> answers(asked.size());
      for (size_t k = 0; k < asked.size(); ++k) answers[k] = level_[asked[k] - a_];
      const std::vector<int32_t> got = comm_.exchange(answers, counts);  // back in the order asked, rank by rank
      // The asking order was by rank of the parent's owner; walk it the same way.
      std::vector<size_t> at(comm_.size(), 0), start(comm_.size(), 0);
      for (int r = 1; r < comm_.size(); ++r) start[r] = start[r - 1] + ask[r - 1].size();
      uint64_t resolved = 0;
      for (uint64_t i : asking) {
        const int r = owner(parent_[i]);
        const int32_t lp = got[start[r] + at[r]++];
        if (lp >= 0) {
          level_[i] = lp + 1;
          ++resolved;
        }
      }
      if (comm_.sum(resolved) == 0) break;
    }
    for (uint64_t i = 0; i < parent_.size(); ++i)
      if (level_[i] == kUnknown) {
        fail(1, "vertex " + std::to_string(a_ + i) + "'s parent chain never reaches the root (a cycle, or a parent that "
                "was not reached)");
        break;
      }
    for (auto& l : level_) l = l == kUnknown ? kNoLevel : l;
  }

  // Rules 3 and 4 and nedge over this rank's share of the tuples; rule 5's tree edges marked as seen.
  template <class Source>
  uint64_t check_tuples(const TupleShare<Source>& tuples) {
    struct Hop {
      DistId v, u;
      int32_t level_u;
    };
    std::fill(tree_edge_.begin(), tree_edge_.end(), 0);
    const int threads = omp_get_max_threads();
    uint64_t nedge = 0;
    tuples.for_each_round([&](std::span<const Edge> edges) {
      RankBuffers<IdPair> first(threads, comm_.size());
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < edges.size(); ++i)
        if (edges[i].u != edges[i].v) first.mine(owner(edges[i].u)).push_back({DistId(edges[i].u), DistId(edges[i].v)});
      const std::vector<IdPair> at_u = comm_.exchange(first.merge());
      RankBuffers<Hop> second(threads, comm_.size());
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < at_u.size(); ++i) {
        const auto [u, v] = at_u[i];
        if (parent_[u - a_] == v) mark(u);
        second.mine(owner(v)).push_back({v, u, level_[u - a_]});
      }
      const std::vector<Hop> at_v = comm_.exchange(second.merge());
      std::vector<Failure> found(threads);
      uint64_t counted = 0;
#pragma omp parallel for schedule(static) reduction(+ : counted)
      for (size_t i = 0; i < at_v.size(); ++i) {
        const Hop& h = at_v[i];
        const int32_t lv = level_[h.v - a_];
        if (parent_[h.v - a_] == h.u) mark(h.v);
        Failure& f = found[omp_get_thread_num()];
        if ((h.level_u >= 0) != (lv >= 0)) {
          if (f.rule == 0 || f.rule > 4)
            f = {4, "edge (" + std::to_string(h.u) + ", " + std::to_string(h.v) + ") joins a reached and an unreached vertex"};
        } else if (lv >= 0 && (h.level_u - lv > 1 || lv - h.level_u > 1)) {
          if (f.rule == 0)
            f = {3, "edge (" + std::to_string(h.u) + ", " + std::to_string(h.v) + ") joins levels " +
                        std::to_string(h.level_u) + " and " + std::to_string(lv)};
        }
        counted += lv >= 0 && h.level_u >= 0;
      }
      nedge += counted;
      for (Failure& f : found)
        if (f.rule) fail(f.rule, std::move(f.what));
    });
    return nedge;
  }

  void mark(uint64_t label) {
    const uint64_t i = label - a_;
    std::atomic_ref<uint64_t>(tree_edge_[i >> 6]).fetch_or(uint64_t(1) << (i & 63), std::memory_order_relaxed);
  }

  // Rule 5: every reached vertex but the root met its parent in some input tuple.
  void check_tree_edges(uint64_t root) {
    for (uint64_t i = 0; i < parent_.size(); ++i)
      if (level_[i] > 0 && a_ + i != root && !((tree_edge_[i >> 6] >> (i & 63)) & 1)) {
        fail(5, "vertex " + std::to_string(a_ + i) + " and its parent " + std::to_string(parent_[i]) +
                    " are joined by no input edge");
        return;
      }
  }

  // Every rank's verdict made one: the lowest rule broken on any rank, in the words of the lowest such rank.
  void agree(Verdict& v) {
    const uint64_t mine = failure_.rule ? uint64_t(failure_.rule) * 65536 + uint64_t(comm_.rank()) : UINT64_MAX;
    const uint64_t first = ~comm_.max(~mine);  // the minimum
    if (first == UINT64_MAX) return;
    const int from = int(first % 65536);
    v.valid = false;
    v.rule = int(first / 65536);
    const std::string what = comm_.broadcast(failure_.what, from);
    v.message = v.rule <= 5 ? "rule " + std::to_string(v.rule) + ": " + what : what;  // 6: nedge, not a spec rule
  }

  static constexpr int32_t kNoLevel = -1;
  uint64_t n_;
  const Comm& comm_;
  uint64_t block_, a_, b_;  // this rank checks input labels [a_, b_)
  std::vector<DistId> parent_;
  std::vector<int32_t> level_;
  std::vector<uint64_t> tree_edge_;
  Failure failure_;
};

}  // namespace strata
