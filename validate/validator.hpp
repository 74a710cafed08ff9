// Graph500 validation of BFS parent arrays against the input tuples (GRAPH500.md section 5), untimed:
//   rule 1  the parents form a tree rooted at the root: every parent in range, no cycle anywhere
//   rule 2  tree edges join levels that differ by one (levels are tree depths, so 1+3+5 imply it)
//   rule 3  every input edge joins levels that differ by at most one, or two unreached vertices
//   rule 4  no input edge joins a reached and an unreached vertex (the tree spans the component)
//   rule 5  every reached vertex but the root is joined to its parent by an input edge
// plus nedge (reference 3.0 rule) recounted from the tuples and compared with the search's count.
// One streaming pass over the tuples checks a whole batch of searches; memory is O(N) per search.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/ids.hpp"
#include "generators/kronecker.hpp"

namespace strata {

// A search result to check: parent[v] in input labels, kNoVertex for unreached.
template <class Id>
struct SearchToCheck {
  uint64_t root;     // input label
  const Id* parent;
  uint64_t nedge;    // the search's count, to be confirmed
};

struct Verdict {
  bool valid = true;
  int rule = 0;          // first rule broken (6 = nedge mismatch)
  std::string message;   // names the root, the rule and a witness
  uint64_t nedge = 0;    // recounted from the tuples
};

namespace validate_detail {
inline constexpr int32_t kNoLevel = -1;
inline constexpr int32_t kOnPath = -2;  // being resolved: meeting it again means a cycle
}  // namespace validate_detail

template <class Id>
class BatchValidator {
 public:
  // spare: optional memory for the first search's levels (at least n int32), e.g. the search's own state,
  // which is idle between searches; keeps validation from adding to the run's peak.
  BatchValidator(uint64_t n, std::span<const SearchToCheck<Id>> searches, std::span<int32_t> spare = {});

  // Rule 1 for every search (levels from the parent tree); call before the edge pass.
  void check_trees();
  // The edge pass: call for every chunk of the tuple list (concurrently from the OpenMP team).
  void check_edges(std::span<const Edge> edges);
  // Rule 5 and nedge; returns one verdict per search.
  std::vector<Verdict> finish();

 private:
  struct State {
    std::vector<int32_t> owned_level;
    int32_t* level = nullptr;             // -1 unreached; owned_level or the caller's spare memory
    std::vector<std::atomic<uint64_t>> tree_edge_seen;  // bit per vertex: an input edge joins it to its parent
    std::atomic<uint64_t> nedge{0};
    std::mutex mutex;
    Verdict verdict;
  };
  void fail(State& s, int rule, const std::string& what);

  uint64_t n_;
  std::span<const SearchToCheck<Id>> searches_;
  std::vector<std::unique_ptr<State>> states_;
};


template <class Id>
BatchValidator<Id>::BatchValidator(uint64_t n, std::span<const SearchToCheck<Id>> searches, std::span<int32_t> spare)
    : n_(n), searches_(searches) {
  for (size_t i = 0; i < searches.size(); ++i) {
    auto s = std::make_unique<State>();
    if (i == 0 && spare.size() >= n) {
      s->level = spare.data();
    } else {
      s->owned_level.resize(n);
      s->level = s->owned_level.data();
    }
    s->tree_edge_seen = std::vector<std::atomic<uint64_t>>((n + 63) / 64);
    states_.push_back(std::move(s));
  }
}

template <class Id>
void BatchValidator<Id>::fail(State& s, int rule, const std::string& what) {
  std::lock_guard lock(s.mutex);
  if (s.verdict.valid || rule < s.verdict.rule) {
    s.verdict.valid = false;
    s.verdict.rule = rule;
    s.verdict.message = rule <= 5 ? "rule " + std::to_string(rule) + ": " + what : what;  // 6: nedge, not a spec rule
  }
}

namespace validate_detail {
// Rule 1: fills level[v] with v's depth in the parent tree (kNoLevel: unreached), or returns false and says why
// (a parent out of range or unreached, a cycle anywhere, a root that is not its own parent).
template <class Id>
bool tree_levels(uint64_t n, const Id* parent, uint64_t root, int32_t* level, std::string& why) {
  std::fill(level, level + n, kNoLevel);
  if (root >= n || parent[root] != root) {
    why = "root " + std::to_string(root) + " is not its own parent";
    return false;
  }
  level[root] = 0;
  std::vector<uint64_t> path;
  for (uint64_t v = 0; v < n; ++v) {
    if (parent[v] == kNoVertex<Id> || level[v] != kNoLevel) continue;
    // Walk up until a vertex whose level is known, then assign levels back down the path.
    uint64_t u = v;
    path.clear();
    while (level[u] == kNoLevel) {
      if (parent[u] == kNoVertex<Id>) {
        why = "vertex " + std::to_string(path.back()) + " has parent " + std::to_string(u) + ", which is not reached";
        return false;
      }
      if (uint64_t(parent[u]) >= n) {
        why = "vertex " + std::to_string(u) + " has out-of-range parent " + std::to_string(parent[u]);
        return false;
      }
      level[u] = kOnPath;
      path.push_back(u);
      u = parent[u];
    }
    if (level[u] == kOnPath) {
      why = "parent pointers form a cycle through vertex " + std::to_string(u);
      return false;
    }
    for (int32_t lvl = level[u] + 1; !path.empty(); path.pop_back(), ++lvl) level[path.back()] = lvl;
  }
  return true;
}
}  // namespace validate_detail

template <class Id>
void BatchValidator<Id>::check_trees() {
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < searches_.size(); ++i) {
    std::string why;
    if (!validate_detail::tree_levels(n_, searches_[i].parent, searches_[i].root, states_[i]->level, why))
      fail(*states_[i], 1, why);
  }
}

template <class Id>
void BatchValidator<Id>::check_edges(std::span<const Edge> edges) {
  for (size_t i = 0; i < searches_.size(); ++i) {
    State& s = *states_[i];
    if (!s.verdict.valid && s.verdict.rule == 1) continue;  // no levels to check against
    const Id* parent = searches_[i].parent;
    uint64_t nedge = 0;
    constexpr size_t kAhead = 16;  // the lookups are random: start them well before they are needed
    for (size_t j = 0; j < edges.size(); ++j) {
      if (j + kAhead < edges.size()) {
        const Edge& f = edges[j + kAhead];
        __builtin_prefetch(&s.level[f.u]);
        __builtin_prefetch(&s.level[f.v]);
        __builtin_prefetch(&parent[f.u]);
        __builtin_prefetch(&parent[f.v]);
      }
      const Edge& e = edges[j];
      if (e.u == e.v) continue;
      const int32_t lu = s.level[e.u], lv = s.level[e.v];
      if ((lu < 0) != (lv < 0)) {
        const uint64_t in = lu < 0 ? e.v : e.u, out = lu < 0 ? e.u : e.v;
        fail(s, 4, "input edge (" + std::to_string(e.u) + "," + std::to_string(e.v) + ") joins reached vertex " +
                       std::to_string(in) + " and unreached vertex " + std::to_string(out) +
                       ": the tree does not span the component");
        continue;
      }
      if (lu < 0) continue;
      ++nedge;
      if (lu - lv > 1 || lv - lu > 1)
        fail(s, 3, "input edge (" + std::to_string(e.u) + "," + std::to_string(e.v) + ") joins levels " +
                       std::to_string(lu) + " and " + std::to_string(lv));
      if (parent[e.v] == e.u)
        s.tree_edge_seen[e.v >> 6].fetch_or(uint64_t(1) << (e.v & 63), std::memory_order_relaxed);
      if (parent[e.u] == e.v)
        s.tree_edge_seen[e.u >> 6].fetch_or(uint64_t(1) << (e.u & 63), std::memory_order_relaxed);
    }
    s.nedge.fetch_add(nedge, std::memory_order_relaxed);
  }
}

template <class Id>
std::vector<Verdict> BatchValidator<Id>::finish() {
  std::vector<Verdict> out;
  for (size_t i = 0; i < searches_.size(); ++i) {
    State& s = *states_[i];
    const SearchToCheck<Id>& c = searches_[i];
    if (s.verdict.valid || s.verdict.rule > 1) {
      for (uint64_t v = 0; v < n_; ++v) {
        if (v == c.root || c.parent[v] == kNoVertex<Id>) continue;
        if (!((s.tree_edge_seen[v >> 6].load(std::memory_order_relaxed) >> (v & 63)) & 1)) {
          fail(s, 5, "vertex " + std::to_string(v) + " has parent " + std::to_string(c.parent[v]) +
                         " but no input edge joins them");
          break;
        }
      }
    }
    s.verdict.nedge = s.nedge.load();
    if (s.verdict.valid && s.verdict.nedge != c.nedge)
      fail(s, 6, "nedge mismatch: the search counted " + std::to_string(c.nedge) + ", the input tuples give " +
                     std::to_string(s.verdict.nedge));
    out.push_back(s.verdict);
  }
  return out;
}

// Validates a batch against an edge source (GeneratedEdges, GraphDir).
template <class Id, class Source>
std::vector<Verdict> validate_searches(const Source& source, std::span<const SearchToCheck<Id>> searches,
                                       std::span<int32_t> spare = {}) {
  BatchValidator<Id> v(source.spec().vertex_count(), searches, spare);
  v.check_trees();
  source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) { v.check_edges(edges); });
  return v.finish();
}

}  // namespace strata
