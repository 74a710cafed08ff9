// Graph500 validation against kernel 1's CSR instead of the tuples (like the reference's
// -DREUSE_CSR_FOR_VALIDATION), with what the reference leaves out: a certificate, checked once in one pass over
// the tuples, that the CSR is exactly the tuples' graph. After it, each search costs one parallel pass over the
// CSR in DRAM instead of a pass over the tuples (regenerated or read: 4-10x slower), and checks the same rules
// (validator.hpp) on the search's output in input labels:
//   certificate  labels are a permutation; every non-self-loop tuple (a,b) is in the CSR; every CSR entry
//                is some tuple (so no extra, duplicate or self-loop entries); every raw degree (duplicates
//                counted, for nedge) equals the tuples' count at that vertex; weighted (kernel 3), every entry
//                holds the lightest of its tuples' weights, the same both ways (see certify())
//   rule 1       levels from the parent tree (the tuple validator's own walk)
//   rules 3, 4   every CSR entry joins levels that differ by at most one, never reached and unreached
//   rule 5       each reached vertex's parent is in its list (binary search: lists are sorted)
//   nedge        the raw degrees of the reached vertices over 2 (rule 4 keeps every such tuple inside)
#pragma once
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.hpp"
#include "engine/csr.hpp"
#include "generators/kronecker.hpp"
#include "validate/validator.hpp"

namespace strata {

template <class Id>
class CsrValidator {
 public:
  // Certifies g against the tuples of `source` (GeneratedEdges, GraphDir): throws Error naming the first
  // difference. g must hold its whole adjacency (an in-core graph).
  // weights: kernel 3's, one per entry of g's adjacency, certified too (each entry holds the lightest of its
  // tuples' weights, the same in both directions); null for an unweighted graph. light_below: the lists' light
  // part (Csr::light_below): each list is looked up as its light part and, by id, the rest.
  template <class Source>
  CsrValidator(const Csr<Id>& g, const Source& source, const float* weights = nullptr, float light_below = 0)
      : g_(g), weights_(weights), light_below_(weights ? light_below : 0), from_input_(g.n, kNoVertex<Id>) {
    invert_labels();
    certify(source);
    std::vector<Id>().swap(from_input_);  // check() rebuilds it in its spare: none held between searches
  }

  // Checks one search (parents in input labels). spare: memory for n int32 levels, e.g. the search's idle
  // state (allocated here when smaller): first the levels by input label, then the inverse label map. Besides
  // it, check() holds a byte a vertex (the levels by internal id; 4 bytes for a tree deeper than 254).
  Verdict check(const SearchToCheck<Id>& c, std::span<int32_t> spare = {}) const;

 private:
  void invert_labels();
  template <class Source>
  void certify(const Source& source);
  template <class Source>
  std::pair<uint64_t, uint64_t> first_wrong_raw_degree(const Source& source) const;
  // One tuple of the certificate's pass: its ends' internal ids, its index in the chunk, and where its entry
  // (max(a,b), min(a,b)) sits in the CSR (-1: nowhere).
  struct Lookup {
    uint64_t a, b;
    size_t tuple;
    int64_t at = -1;
  };
  // find() for a group of tuples in lockstep: each round takes one step of every unfinished search and
  // prefetches its next probe.
  template <size_t kGroup>
  void find_group(Lookup (&group)[kGroup], size_t size) const {
    const Id* base[kGroup];
    uint64_t len[kGroup], key[kGroup];
    bool more = false;
    uint64_t first[kGroup];
    for (size_t k = 0; k < size; ++k) {
      const uint64_t x = std::max(group[k].a, group[k].b);
      key[k] = std::min(group[k].a, group[k].b);
      first[k] = g_.offsets[x];
      len[k] = g_.offsets[x + 1] - first[k];
      if (light_below_ > 0) {  // the light parts' loads in flight together, before any is scanned
        __builtin_prefetch(weights_ + first[k]);
        __builtin_prefetch(g_.adj.data() + first[k]);
      }
    }
    for (size_t k = 0; k < size; ++k) {
      const auto [at, light] = in_light_part(first[k], len[k], key[k]);
      group[k].at = at;
      base[k] = g_.adj.data() + first[k] + light;
      len[k] = at >= 0 ? 0 : len[k] - light;
      __builtin_prefetch(base[k] + len[k] / 2);
      more |= len[k] > 1;
    }
    while (more) {
      more = false;
      for (size_t k = 0; k < size; ++k) {
        if (len[k] <= 1) continue;
        const uint64_t half = len[k] / 2;
        base[k] = base[k][half - 1] < key[k] ? base[k] + half : base[k];
        len[k] -= half;
        __builtin_prefetch(base[k] + len[k] / 2);
        more |= len[k] > 1;
      }
    }
    for (size_t k = 0; k < size; ++k)
      if (group[k].at < 0) group[k].at = len[k] == 1 && *base[k] == key[k] ? int64_t(base[k] - g_.adj.data()) : -1;
  }

  // In the list adj[first, first + len), a light-first one's light part (light_below_ > 0): b's position there
  // (-1: not there) and the part's length, where the list by id begins; (-1, 0) for lists by id alone.
  std::pair<int64_t, uint64_t> in_light_part(uint64_t first, uint64_t len, uint64_t b) const {
    if (light_below_ <= 0) return {-1, 0};
    const uint64_t light = light_part(weights_ + first, len, light_below_);
    for (uint64_t i = first; i < first + light; ++i)
      if (g_.adj[i] == b) return {int64_t(i), light};
    return {-1, light};
  }

  // Position of b in a's list, or -1 (a branch-free binary search: the lookups are random).
  int64_t find(uint64_t a, uint64_t b) const {
    const auto [at, light] = in_light_part(g_.offsets[a], g_.degree(a), b);
    if (at >= 0) return at;
    const Id* base = g_.adj.data() + g_.offsets[a] + light;
    uint64_t len = g_.degree(a) - light;
    if (len == 0) return -1;
    while (len > 1) {
      const uint64_t half = len / 2;
      base = base[half - 1] < b ? base + half : base;
      len -= half;
    }
    return *base == b ? int64_t(base - g_.adj.data()) : -1;
  }

  const Csr<Id>& g_;
  const float* weights_;        // null: unweighted
  float light_below_;           // > 0: each list's light part comes first (Csr::light_below)
  std::vector<Id> from_input_;  // input label -> internal id, while certifying
};

template <class Id>
void CsrValidator<Id>::invert_labels() {
  const uint64_t n = g_.n;
  std::atomic<uint64_t> bad{UINT64_MAX};
#pragma omp parallel for schedule(static)
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t label = g_.to_input[v];
    Id none = kNoVertex<Id>;
    if (label >= n || !std::atomic_ref<Id>(from_input_[label]).compare_exchange_strong(none, Id(v)))
      bad.store(v, std::memory_order_relaxed);
  }
  if (const uint64_t v = bad.load(); v != UINT64_MAX)
    throw Error("kernel 1's graph does not match the tuples: internal vertex " + std::to_string(v) + "'s label " +
                std::to_string(uint64_t(g_.to_input[v])) + " is out of range or shared");
}

// One pass over the tuples: each non-self-loop tuple is looked up in the list of its endpoint with the larger
// internal id (the lower degree: a short list) and its entry marked covered. Then one pass over the CSR: every
// entry (v,u) with u < v is covered, no entry is a self-loop, the entries are symmetric -- so each (u,v) with
// u > v is the mirror of a covered entry -- and the raw degrees are the tuples' ends at each vertex. The last
// two compare sums of keyed hashes (keys drawn per run: a wrong CSR passes with probability about 2^-64):
// (v,u) against (u,v) over all entries, which saves a lookup in the long list of every tuple; and the hash of
// each tuple's two ends against raw degree x the hash of v, which saves a count a vertex (n x 4 bytes at the
// run's peak). Only a failed comparison counts the ends, to name the vertex.
// Weighted, an entry is covered only by a tuple of its weight, no tuple may be lighter than its entry, and the
// symmetry hashes include the weight: so each entry holds the lightest of its tuples, in both directions.
template <class Id>
template <class Source>
void CsrValidator<Id>::certify(const Source& source) {
  const uint64_t n = g_.n, entries = g_.directed_edges();
  const uint64_t k1 = uint64_t(std::random_device{}()) << 32 | std::random_device{}(), k2 = k1 * 0x9e3779b97f4a7c15u + 1;
  auto mix = [&](uint64_t x, uint64_t y) {  // keyed, order-dependent: mix(x,y) != mix(y,x) in general
    uint64_t h = (x * 0xff51afd7ed558ccdu + k1) ^ (y * 0xc4ceb9fe1a85ec53u + k2);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    return h ^ (h >> 29);
  };
  std::vector<std::atomic<uint64_t>> covered((entries + 63) / 64);
  std::atomic<uint64_t> tuple_ends{0};  // the sum of mix(v, v) over both ends of every found tuple
  std::atomic<bool> missing{false};     // the first tuple not found, kept for the message:
  std::atomic<uint64_t> missing_u{0}, missing_v{0};
  std::atomic<bool> lighter{false};     // the first tuple lighter than its entry, kept for the message:
  std::atomic<uint64_t> lighter_at{0}, lighter_u{0}, lighter_v{0};
  std::atomic<float> lighter_w{0};
  auto chunk = [&](std::span<const Edge> edges, const float* weight) {
    // Every lookup is random, so tuples go through in groups, each stage's loads started a group ahead:
    // labels two groups early, list bounds one group early, and the groups' binary searches in lockstep
    // (kGroup independent misses in flight instead of one).
    constexpr size_t kGroup = 32;  // SCALE 22 certificate, medians of 3: 16: 7.6 s, 32: 5.8 s, 64: 6.4 s
    const size_t count = edges.size();
    Lookup next[kGroup], now[kGroup];
    size_t next_size = 0;
    uint64_t ends = 0;
    auto prefetch_labels = [&](size_t first) {
      for (size_t j = first; j < std::min(count, first + kGroup); ++j) {
        __builtin_prefetch(&from_input_[edges[j].u]);
        __builtin_prefetch(&from_input_[edges[j].v]);
      }
    };
    auto label_group = [&](size_t first) {  // the group's non-self-loop tuples, their bounds prefetched
      next_size = 0;
      for (size_t j = first; j < std::min(count, first + kGroup); ++j) {
        const Edge& e = edges[j];
        if (e.u == e.v) continue;
        const uint64_t a = from_input_[e.u], b = from_input_[e.v];
        g_.offsets.prefetch(std::max(a, b));
        g_.offsets.prefetch(std::max(a, b) + 1);
        next[next_size++] = {a, b, j};
      }
    };
    prefetch_labels(0);
    prefetch_labels(kGroup);
    label_group(0);
    for (size_t first = 0; first < count; first += kGroup) {
      const size_t size = next_size;
      std::copy(next, next + size, now);
      prefetch_labels(first + 2 * kGroup);
      label_group(first + kGroup);
      find_group(now, size);
      for (size_t k = 0; k < size; ++k)
        if (now[k].at >= 0) __builtin_prefetch(&covered[uint64_t(now[k].at) >> 6], 1);
      for (size_t k = 0; k < size; ++k) {
        const Lookup& l = now[k];
        if (l.at < 0) [[unlikely]] {
          if (!missing.exchange(true)) missing_u = edges[l.tuple].u, missing_v = edges[l.tuple].v;
          continue;
        }
        ends += mix(l.a, l.a) + mix(l.b, l.b);
        if (weight && weight[l.tuple] < weights_[l.at]) [[unlikely]] {
          if (!lighter.exchange(true))
            lighter_at = uint64_t(l.at), lighter_u = edges[l.tuple].u, lighter_v = edges[l.tuple].v, lighter_w = weight[l.tuple];
        }
        if (!weight || weight[l.tuple] == weights_[l.at])
          covered[uint64_t(l.at) >> 6].fetch_or(uint64_t(1) << (l.at & 63), std::memory_order_relaxed);
      }
    }
    tuple_ends.fetch_add(ends, std::memory_order_relaxed);
  };
  constexpr bool kHasWeights = requires(const Source& s) {
    s.for_each_weighted_chunk([](uint64_t, std::span<const Edge>, std::span<const float>) {});
  };
  if constexpr (kHasWeights) {
    if (weights_)
      source.for_each_weighted_chunk([&](uint64_t, std::span<const Edge> e, std::span<const float> w) { chunk(e, w.data()); });
  } else if (weights_) {
    throw Error("a weighted graph is certified against weighted tuples: this edge source has none");
  }
  if (!weights_) source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> e) { chunk(e, nullptr); });
  if (missing.load())
    throw Error("kernel 1's graph does not match the tuples: input edge (" + std::to_string(missing_u.load()) + "," +
                std::to_string(missing_v.load()) + ") is missing");
  if (lighter.load())
    throw Error(fmt::format("kernel 1's graph does not match the tuples: input edge ({},{}) weighs {:.9g}, less than "
                            "the CSR's {:.9g} (each entry must hold the lightest copy)",
                            lighter_u.load(), lighter_v.load(), lighter_w.load(), weights_[lighter_at.load()]));
  std::atomic<uint64_t> extra{UINT64_MAX};
  uint64_t forward = 0, backward = 0, degrees = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : forward, backward, degrees)
  for (uint64_t v = 0; v < n; ++v) {
    for (uint64_t i = g_.offsets[v]; i < g_.offsets[v + 1]; ++i) {
      const uint64_t u = g_.adj[i];
      if (weights_) {
        const uint32_t w = std::bit_cast<uint32_t>(weights_[i]);
        forward += mix(mix(v, u), w);
        backward += mix(mix(u, v), w);
      } else {
        forward += mix(v, u);
        backward += mix(u, v);
      }
      if (u == v || (u < v && !((covered[i >> 6].load(std::memory_order_relaxed) >> (i & 63)) & 1)))
        extra.store(v, std::memory_order_relaxed);
    }
    degrees += g_.raw_degree(v) * mix(v, v);
  }
  auto label = [&](uint64_t v) { return std::to_string(uint64_t(g_.to_input[v])); };
  if (const uint64_t v = extra.load(); v != UINT64_MAX)
    throw Error("kernel 1's graph does not match the tuples: vertex " + label(v) + "'s list holds an entry that is no input edge (or a repeated one" +
                (weights_ ? ", or one whose weight no copy of its tuple has)" : ")"));
  if (forward != backward)
    throw Error(std::string("kernel 1's graph does not match the tuples: its lists are not symmetric (an entry (u,v) without (v,u)") +
                (weights_ ? " of the same weight)" : ")"));
  if (degrees != tuple_ends.load()) {
    std::vector<std::atomic<uint64_t>>().swap(covered);  // spent: room to count
    const auto [v, ends] = first_wrong_raw_degree(source);
    throw Error("kernel 1's graph does not match the tuples: vertex " + label(v) + " has " +
                std::to_string(g_.raw_degree(v)) + " tuple ends in the CSR, " + std::to_string(ends) + " in the tuples");
  }
}

// A failed certificate's second pass over the tuples: the first vertex whose raw degree is not its count of
// tuple ends, with that count.
template <class Id>
template <class Source>
std::pair<uint64_t, uint64_t> CsrValidator<Id>::first_wrong_raw_degree(const Source& source) const {
  std::vector<std::atomic<uint32_t>> count(g_.n);
  source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
    for (const Edge& e : edges)
      if (e.u != e.v) {
        count[from_input_[e.u]].fetch_add(1, std::memory_order_relaxed);
        count[from_input_[e.v]].fetch_add(1, std::memory_order_relaxed);
      }
  });
  for (uint64_t v = 0; v < g_.n; ++v)
    if (g_.raw_degree(v) != count[v].load()) return {v, count[v].load()};
  return {0, count[0].load()};  // unreachable while the hashes are sound (about 2^-64)
}

template <class Id>
Verdict CsrValidator<Id>::check(const SearchToCheck<Id>& c, std::span<int32_t> spare) const {
  const uint64_t n = g_.n;
  std::vector<int32_t> own(spare.size() < n ? n : 0);
  int32_t* level_by_label = spare.size() < n ? own.data() : spare.data();
  Verdict verdict;
  std::mutex mutex;
  auto fail = [&](int rule, const std::string& what) {
    std::lock_guard lock(mutex);
    note_failure(verdict, rule, what);
  };
  std::string why;
  if (!validate_detail::tree_levels(n, c.parent, c.root, level_by_label, why)) {
    fail(1, why);
    return verdict;
  }
  int32_t depth = 0;
#pragma omp parallel for schedule(static) reduction(max : depth)
  for (uint64_t v = 0; v < n; ++v) depth = std::max(depth, level_by_label[v]);
  // The levels by internal id (the CSR pass reads them in its own order): a byte each (255: unreached) while
  // the tree allows, which keeps an in-core run within 9 bytes a tuple; else 4 bytes.
  std::vector<uint8_t> small(depth < 255 ? n : 0);
  std::vector<int32_t> large(depth < 255 ? 0 : n);
#pragma omp parallel for schedule(static)
  for (uint64_t v = 0; v < n; ++v) {
    const int32_t l = level_by_label[g_.to_input[v]];
    if (depth < 255) small[v] = uint8_t(l < 0 ? 255 : l);
    else large[v] = l;
  }
  // The levels by label are spent: the same memory holds the inverse label map (certified a permutation once).
  std::vector<Id> own_inverse(sizeof(Id) * n > sizeof(int32_t) * std::max<uint64_t>(spare.size(), own.size()) ? n : 0);
  Id* from_input = own_inverse.empty() ? reinterpret_cast<Id*>(level_by_label) : own_inverse.data();
#pragma omp parallel for schedule(static)
  for (uint64_t v = 0; v < n; ++v) from_input[g_.to_input[v]] = Id(v);
  auto level = [&](uint64_t v) -> int32_t { return depth < 255 ? (small[v] == 255 ? -1 : small[v]) : large[v]; };
  auto label = [&](uint64_t v) { return uint64_t(g_.to_input[v]); };
  uint64_t twice_nedge = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : twice_nedge)
  for (uint64_t v = 0; v < n; ++v) {
    const int32_t lv = level(v);
    for (const Id u : g_.neighbors(v)) {
      const int32_t lu = level(u);
      if ((lv < 0) != (lu < 0)) [[unlikely]]
        fail(4, bfs_rules::joins_reached_and_unreached(label(v), label(u), lv >= 0));
      else if (lv - lu > 1 || lu - lv > 1) [[unlikely]]
        fail(3, bfs_rules::joins_levels(label(v), label(u), lv, lu));
    }
    if (lv < 0) continue;
    twice_nedge += g_.raw_degree(v);
    const uint64_t p = c.parent[g_.to_input[v]];
    if (lv > 0 && find(v, from_input[p]) < 0) [[unlikely]]
      fail(5, bfs_rules::parent_without_edge(label(v), p));
  }
  if (verdict.valid && twice_nedge / 2 != c.nedge)
    fail(6, "nedge mismatch: the search counted " + std::to_string(c.nedge) + ", the input tuples give " +
                std::to_string(twice_nedge / 2));
  verdict.nedge = twice_nedge / 2;
  return verdict;
}

}  // namespace strata
