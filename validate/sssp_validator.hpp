// Graph500 kernel 3 validation (SSSP.md section 4: the reference 3.0.1's rules, exact, float32) of one
// search's distances and parents, by input label, against a weighted CSR -- plus a check the reference lacks:
//   R1  every parent is unreached (kNoVertex) or a vertex
//   R2  every distance is -1 (unreached) or >= 0
//   R3  a vertex has no parent exactly when its distance is -1
//   R4  the root is its own parent, at distance 0
//   R5  over every CSR entry (v,u,w) with v or u reached: both are (R5a: the result spans the component); u is
//       confirmed when its parent is v and dist[u] == fl32(dist[v] + w) (R5b); fl32(dist[v] + w) >= dist[u]
//       (R5c, the triangle rule)
//   R6  every reached vertex but the root is confirmed
//   R7  nedge is the raw degrees of the reached vertices over 2 (the reference's count, as for BFS)
//   R8  the parents form a tree: no cycle (with absorption, fl32(d + w) == d for a tiny w, a parent cycle whose
//       edges all confirm is possible from about SCALE 16, and R1-R7 pass it)
// The CSR holds the lightest copy of each edge; the reference checks every copy. For any result the verdicts
// agree: a heavier copy that confirms a parent makes the lightest confirm it too or break R5c, and R5c holds
// for every copy when it holds for the lightest (fl32(d + w) grows with w).
#pragma once
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/ids.hpp"
#include "core/error.hpp"
#include "engine/csr.hpp"
#include "engine/csr_blocks.hpp"
#include "storage/csr_files.hpp"
#include "storage/spill_file.hpp"
#include "validate/validator.hpp"

namespace strata {

// A kernel-3 result to check, by input label: dist (-1 unreached) and parent (kNoVertex unreached).
template <class Id>
struct SsspToCheck {
  uint64_t root;
  const float* dist;
  const Id* parent;
  uint64_t nedge;  // the search's count, to be confirmed
};

// Each rule's message, written once for every checker (in DRAM, on storage, across MPI ranks).
namespace sssp_rules {
inline std::string num(float x) { return fmt::format("{:.9g}", x); }
inline std::string message(int rule, const std::string& what) { return "rule R" + std::to_string(rule) + ": " + what; }
inline std::string parent_out_of_range(uint64_t v, uint64_t p) {
  return "parent " + std::to_string(p) + " of vertex " + std::to_string(v) + " is out of range";
}
inline std::string distance_out_of_range(uint64_t v, float d) {
  return "distance " + num(d) + " of vertex " + std::to_string(v) + " is out of range";
}
inline std::string inconsistent(uint64_t v, int64_t p, float d) {
  return "vertex " + std::to_string(v) + " has inconsistent parent " + std::to_string(p) + " and distance " + num(d);
}
inline std::string bad_root(uint64_t root, const std::string& has) { return "root " + std::to_string(root) + " has parent " + has; }
inline std::string spans(uint64_t v, uint64_t u) {
  return "edge (" + std::to_string(v) + "," + std::to_string(u) + ") connects visited and unvisited vertices";
}
inline std::string triangle(uint64_t v, uint64_t u, float w, float via, float du) {
  return "triangle rule violated: edge (" + std::to_string(v) + "," + std::to_string(u) + ") of weight " + num(w) +
         " gives " + num(via) + " < distance " + num(du);
}
inline std::string not_confirmed(uint64_t v, uint64_t p, float d) {
  return "path to vertex " + std::to_string(v) + " not confirmed from parent " + std::to_string(p) + " with distance " + num(d);
}
inline std::string wrong_nedge(uint64_t counted, uint64_t correct) {
  return "wrong nedge " + std::to_string(counted) + " (the correct number is " + std::to_string(correct) + ")";
}
inline std::string no_tree(const std::string& why) { return "the parents form no tree: " + why; }
}  // namespace sssp_rules

namespace sssp_check_detail {

// Rules R1-R8 over a result, R5 on every adjacency entry that `lists` hands out: lists(entry) calls
// entry(iv, iu, w) for every entry (u of weight w in v's list, internal ids) -- concurrently, once each.
// spare: room for 2n int32 (R5's words, then R8's walk), e.g. the search's idle state; allocated when smaller.
template <class Id, class Lists>
Verdict check(const Csr<Id>& g, Lists&& lists, const SsspToCheck<Id>& s, std::span<int32_t> spare) {
  static_assert(sizeof(Id) == 4, "a distance and a parent share one 64-bit word: 32-bit ids");
  const uint64_t n = g.n;
  const float* dist = s.dist;
  const Id* parent = s.parent;
  Verdict verdict;
  std::mutex mutex;
  auto fail = [&](int rule, const std::string& what) {
    std::lock_guard lock(mutex);
    if (verdict.valid || rule < verdict.rule) verdict = {false, rule, sssp_rules::message(rule, what), 0};
  };
  const bool root_ok = s.root < n && parent[s.root] == Id(s.root) && dist[s.root] == 0.0f;
  if (!root_ok)
    fail(4, sssp_rules::bad_root(s.root, s.root < n ? std::to_string(uint64_t(parent[s.root])) + " and distance " +
                                                         sssp_rules::num(dist[s.root])
                                                   : "none"));
#pragma omp parallel for schedule(static)
  for (uint64_t v = 0; v < n; ++v) {
    const bool no_parent = parent[v] == kNoVertex<Id>, no_dist = dist[v] == -1.0f;
    if (!no_parent && uint64_t(parent[v]) >= n) [[unlikely]]
      fail(1, sssp_rules::parent_out_of_range(v, uint64_t(parent[v])));
    else if (!no_dist && !(dist[v] >= 0.0f)) [[unlikely]]
      fail(2, sssp_rules::distance_out_of_range(v, dist[v]));
    else if (no_parent != no_dist) [[unlikely]]
      fail(3, sssp_rules::inconsistent(v, int64_t(parent[v]), dist[v]));
  }
  if (!verdict.valid) return verdict;
  // R5 over the CSR's entries, by internal id; R6 from the marks it leaves. Each vertex's (distance bits,
  // parent label) is first copied into internal order (the spare's 8 bytes a vertex, or memory of its own),
  // so an entry costs one random word instead of its end's label, parent and distance.
  std::vector<uint64_t> own_words(spare.size() / 2 < n ? n : 0);
  uint64_t* word = own_words.empty() ? reinterpret_cast<uint64_t*>(spare.data()) : own_words.data();
#pragma omp parallel for schedule(static)
  for (uint64_t iv = 0; iv < n; ++iv) {
    const uint64_t v = g.to_input[iv];
    word[iv] = uint64_t(std::bit_cast<uint32_t>(dist[v])) << 32 | uint32_t(parent[v]);
  }
  auto dist_of = [&](uint64_t iu) { return std::bit_cast<float>(uint32_t(word[iu] >> 32)); };
  auto parent_of = [&](uint64_t iu) { return Id(uint32_t(word[iu])); };
  std::vector<std::atomic<uint8_t>> confirmed(n);  // by internal id
  lists([&](uint64_t iv, uint64_t iu, float w) {
    const Id pv = parent_of(iv), pu = parent_of(iu);
    const bool reached = pv != kNoVertex<Id>;
    if (reached != (pu != kNoVertex<Id>)) [[unlikely]] {
      fail(5, sssp_rules::spans(uint64_t(g.to_input[iv]), uint64_t(g.to_input[iu])));
      return;
    }
    if (!reached) return;
    const float via = dist_of(iv) + w;  // float + float: fl32, exactly as the reference checks
    const float du = dist_of(iu);
    if (pu == g.to_input[iv] && du == via) confirmed[iu].store(1, std::memory_order_relaxed);
    if (via < du) [[unlikely]]
      fail(5, sssp_rules::triangle(uint64_t(g.to_input[iv]), uint64_t(g.to_input[iu]), w, via, du));
  });
  if (!verdict.valid) return verdict;
  uint64_t twice_nedge = 0;
#pragma omp parallel for schedule(static) reduction(+ : twice_nedge)
  for (uint64_t iv = 0; iv < n; ++iv) {
    const uint64_t v = g.to_input[iv];
    if (parent[v] == kNoVertex<Id>) continue;
    twice_nedge += g.raw_degree(iv);
    if (v != s.root && !confirmed[iv].load(std::memory_order_relaxed)) [[unlikely]]
      fail(6, sssp_rules::not_confirmed(v, uint64_t(parent[v]), dist[v]));
  }
  verdict.nedge = twice_nedge / 2;
  if (verdict.valid && verdict.nedge != s.nedge)
    fail(7, sssp_rules::wrong_nedge(s.nedge, verdict.nedge));
  if (!verdict.valid) return verdict;
  std::string why;
  int32_t* level = own_words.empty() ? spare.data() : reinterpret_cast<int32_t*>(own_words.data());  // R5's words spent
  if (!validate_detail::tree_levels(n, parent, s.root, level, why))
    fail(8, sssp_rules::no_tree(why));
  return verdict;
}

}  // namespace sssp_check_detail

// Against the weighted CSR in DRAM: weights, one per entry of g's adjacency.
template <class Id>
Verdict check_sssp(const Csr<Id>& g, const float* weights, const SsspToCheck<Id>& s, std::span<int32_t> spare = {}) {
  auto lists = [&](auto&& entry) {
#pragma omp parallel for schedule(dynamic, 1024)
    for (uint64_t iv = 0; iv < g.n; ++iv) {
      const auto ids = g.neighbors(iv);
      const float* ws = weights + g.offsets[iv];
      for (size_t j = 0; j < ids.size(); ++j) entry(iv, uint64_t(ids[j]), ws[j]);
    }
  };
  return sssp_check_detail::check<Id>(g, lists, s, spare);
}

// Against kernel 1's weighted CSR on storage (out-of-core and DAX; g: its O(N) arrays): one pass over its files,
// each 4 MiB block read with O_DIRECT where it can be and checked against its checksum, blocks in parallel. A
// storage fault is an Error; an entry that is no vertex id fails the run's validation.
template <class Id>
Verdict check_sssp_stored(const Csr<Id>& g, const CsrFiles& files, const SsspToCheck<Id>& s,
                          std::span<int32_t> spare = {}) {
  const CsrLayout& L = files.layout();
  if (!L.weighted || L.entry_bytes() != sizeof(NodeWeight<Id>))
    throw Error("internal error: kernel 3 checked against an unweighted CSR");
  const std::vector<std::pair<int, uint64_t>> blocks = csr_blocks(L);
  std::atomic<uint64_t> bad{UINT64_MAX};  // the first entry found that is no vertex id
  auto lists = [&](auto&& entry) {
    FirstError errors;
#pragma omp parallel
    {
      AlignedBuffer buffer(kCsrHashBlock);
#pragma omp for schedule(dynamic, 1)
      for (size_t b = 0; b < blocks.size(); ++b)
        errors.run([&] {
          const auto [p, off] = blocks[b];
          const uint64_t len = csr_block_bytes(L, p, off);
          files.adj(p).file.pread_all(buffer.data(), len, off);
          const auto [e0, e1, lo] = checked_block(g, files, p, off, buffer.data(), len, "kernel 3's validation");
          const NodeWeight<Id>* es = reinterpret_cast<const NodeWeight<Id>*>(buffer.data());
          for (uint64_t iv = lo, e = e0; e < e1; ++e) {
            while (g.offsets[iv + 1] <= e) ++iv;
            const NodeWeight<Id>& x = es[e - e0];
            if (uint64_t(x.v) >= g.n) [[unlikely]] {
              uint64_t none = UINT64_MAX;
              bad.compare_exchange_strong(none, e, std::memory_order_relaxed);
              continue;
            }
            entry(iv, uint64_t(x.v), x.w);
          }
        });
    }
    errors.rethrow();
  };
  Verdict v = sssp_check_detail::check<Id>(g, lists, s, spare);
  if (const uint64_t e = bad.load(); e != UINT64_MAX && (v.valid || v.rule > 5))
    v = {false, 5, fmt::format("rule R5: adjacency entry {} of {} is no vertex id", e, files.path()), 0};
  return v;
}

template <class Id>
Verdict check_sssp(const Csr<Id, float>& g, const SsspToCheck<Id>& s, std::span<int32_t> spare = {}) {
  return check_sssp<Id>(g, g.weights.data(), s, spare);
}

}  // namespace strata
