// Graph500 validation of BFS parent arrays against the input tuples (GRAPH500.md section 5), untimed:
//   rule 1  the parents form a tree rooted at the root: every parent in range, no cycle anywhere
//   rule 2  tree edges join levels that differ by one (levels are tree depths, so 1+3+5 imply it)
//   rule 3  every input edge joins levels that differ by at most one, or two unreached vertices
//   rule 4  no input edge joins a reached and an unreached vertex (the tree spans the component)
//   rule 5  every reached vertex but the root is joined to its parent by an input edge
// plus nedge (reference 3.0 rule) recounted from the tuples and compared with the search's count.
// One streaming pass over the tuples checks a whole batch of searches: 2 bytes, a bit and a parent a vertex a search.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/ids.hpp"
#include "generators/kronecker.hpp"
#include "storage/numa_array.hpp"

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

// How every BFS validator words a broken rule: "rule N: ..." for the spec's rules 1-5; 6, nedge, is the
// reference's count, not a spec rule, and says itself.
inline std::string rule_message(int rule, const std::string& what) {
  return rule <= 5 ? "rule " + std::to_string(rule) + ": " + what : what;
}
// What each BFS rule's breach says (rule_message puts "rule N: " before it), written once for every validator --
// the tuples', the in-core CSR's, the on-disk CSR's and the ranks' -- so that a fault reads the same whichever
// one finds it. Vertices are named by input label.
namespace bfs_rules {
inline std::string root_not_own_parent(const std::string& root) { return "root " + root + " is not its own parent"; }
inline std::string parent_not_vertex(uint64_t v, uint64_t p) {
  return "vertex " + std::to_string(v) + " has parent " + std::to_string(p) + ", not a vertex";
}
inline std::string joins_levels(uint64_t u, uint64_t v, int64_t lu, int64_t lv) {
  return "input edge (" + std::to_string(u) + "," + std::to_string(v) + ") joins levels " + std::to_string(lu) +
         " and " + std::to_string(lv);
}
inline std::string joins_reached_and_unreached(uint64_t u, uint64_t v, bool u_reached) {
  return "input edge (" + std::to_string(u) + "," + std::to_string(v) + ") joins reached vertex " +
         std::to_string(u_reached ? u : v) + " and unreached vertex " + std::to_string(u_reached ? v : u) +
         ": the tree does not span the component";
}
inline std::string parent_without_edge(uint64_t v, uint64_t p) {
  return "vertex " + std::to_string(v) + " has parent " + std::to_string(p) + " but no input edge joins them";
}
inline std::string parent_without_edge(uint64_t v) {  // where the parent is not at hand (a vertex without edges)
  return "vertex " + std::to_string(v) + " has a parent but no input edge";
}
}  // namespace bfs_rules

// Records a broken rule in v unless v already holds a lower one (the verdict names the first rule broken).
inline void note_failure(Verdict& v, int rule, const std::string& what) {
  if (!v.valid && rule >= v.rule) return;
  v.valid = false;
  v.rule = rule;
  v.message = rule_message(rule, what);
}

namespace validate_detail {
inline constexpr int32_t kNoLevel = -1;
inline constexpr int32_t kOnPath = -2;  // being resolved: meeting it again means a cycle
inline uint8_t byte_hash(uint64_t v) { return uint8_t((v * 0x9E3779B97F4A7C15ull) >> 56); }
// A bijection of 64-bit words (splitmix64's finalizer): distinct words stay distinct, and bits mix nonlinearly.
inline uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Vertex `label`'s entry `parent` as a term of a multiset hash (a sum of terms mod 2^64): for one label, distinct
// parents give distinct terms, so an array that differs from another in one entry always sums differently;
// entries changed together cancel only by chance (about 2^-64 with a key they were not chosen against).
template <class Id>
uint64_t entry_term(uint64_t label, Id parent, uint64_t key) {
  if constexpr (sizeof(Id) <= 4) return mix64(((label << 32) | uint64_t(parent)) ^ key);
  else return mix64(label ^ mix64(uint64_t(parent) ^ key));
}

// Rule 1: fills level[v] with v's depth in the parent tree (kNoLevel: unreached), or returns false and says why
// (a parent out of range or unreached, a cycle anywhere, a root that is not its own parent). names: how the
// message names vertex x (ids other than the input's: names[x] is x's input label); none: x itself.
// parent: anything indexed by vertex that gives its parent (an array, or ParentsOfWords); Id: what it gives.
template <class Parents>
using ParentId = std::remove_cvref_t<decltype(std::declval<const Parents&>()[0])>;

template <class Parents, class Id = ParentId<Parents>>
bool tree_levels_serial(uint64_t n, const Parents& parent, uint64_t root, int32_t* level, std::string& why,
                        const Id* names = nullptr) {
  auto name = [&](uint64_t x) { return std::to_string(names && x < n ? uint64_t(names[x]) : x); };
  std::fill(level, level + n, kNoLevel);
  if (root >= n || parent[root] != root) {
    why = bfs_rules::root_not_own_parent(name(root));
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
        why = "vertex " + name(path.back()) + " has parent " + name(u) + ", which is not reached";
        return false;
      }
      if (uint64_t(parent[u]) >= n) {
        why = "vertex " + name(u) + " has out-of-range parent " + std::to_string(uint64_t(parent[u]));
        return false;
      }
      level[u] = kOnPath;
      path.push_back(u);
      u = parent[u];
    }
    if (level[u] == kOnPath) {
      why = "parent pointers form a cycle through vertex " + name(u);
      return false;
    }
    for (int32_t lvl = level[u] + 1; !path.empty(); path.pop_back(), ++lvl) level[path.back()] = lvl;
  }
  return true;
}

// tree_levels' walks shared by the team (a SCALE 28 tree took seconds alone). A walk marks its path with its
// thread's own mark (kOnPath - t): meeting its own mark again is a cycle; it goes on through another thread's
// without marking (that thread resolves the same levels: a tree's are unique, so a level written twice is
// written the same). False on anything broken, left for the serial walk to name.
template <class Parents, class Id = ParentId<Parents>>
bool tree_levels_parallel(uint64_t n, const Parents& parent, uint64_t root, int32_t* level) {
  constexpr uint64_t kAhead = 32;
  if (root >= n || parent[root] != root) return false;
#pragma omp parallel for schedule(static)
  for (uint64_t v = 0; v < n; ++v) level[v] = kNoLevel;
  level[root] = 0;
  std::atomic<bool> broken{false};
#pragma omp parallel
  {
    const int32_t mark = kOnPath - omp_get_thread_num();
    auto at = [level](uint64_t v) { return std::atomic_ref<int32_t>(level[v]); };
    std::vector<uint64_t> path;
#pragma omp for schedule(dynamic, 65536)
    for (uint64_t v = 0; v < n; ++v) {
      // The level of a parent kAhead on fetched now: a hub's (low ids) is in cache, any other's a miss each.
      if (v + kAhead < n)
        if (const uint64_t q = uint64_t(parent[v + kAhead]); q < n) __builtin_prefetch(level + q);
      if (parent[v] == kNoVertex<Id> || at(v).load(std::memory_order_relaxed) >= 0 || broken.load(std::memory_order_relaxed))
        continue;
      if (const uint64_t p = uint64_t(parent[v]); p < n) {  // most parents are resolved already (hubs: low ids)
        if (const int32_t lp = at(p).load(std::memory_order_relaxed); lp >= 0) {
          at(v).store(lp + 1, std::memory_order_relaxed);  // final: p's walk resolved every vertex on its path
          continue;
        }
      }
      path.clear();
      uint64_t u = v;
      int32_t l;
      while ((l = at(u).load(std::memory_order_relaxed)) < 0) {
        if (l == mark || parent[u] == kNoVertex<Id> || uint64_t(parent[u]) >= n || path.size() > n ||
            broken.load(std::memory_order_relaxed)) {
          broken.store(true, std::memory_order_relaxed);
          break;
        }
        if (l == kNoLevel) at(u).store(mark, std::memory_order_relaxed);
        path.push_back(u);
        u = parent[u];
      }
      if (l < 0) continue;
      for (int32_t lvl = l + 1; !path.empty(); path.pop_back(), ++lvl) at(path.back()).store(lvl, std::memory_order_relaxed);
    }
  }
  return !broken.load();
}

// Rule 1 (see tree_levels_serial), on the team; a broken tree is named by the serial walk.
template <class Parents, class Id = ParentId<Parents>>
bool tree_levels(uint64_t n, const Parents& parent, uint64_t root, int32_t* level, std::string& why,
                 const Id* names = nullptr) {
  return tree_levels_parallel(n, parent, root, level) || tree_levels_serial(n, parent, root, level, why, names);
}
}  // namespace validate_detail

// A batch of searches checked in one pass over the tuples. Their levels and parents are stored vertex-major: a
// vertex's row holds every search's level, parent hash (a byte each) and tree-edge-seen bit, and a second row
// every search's parent, read only where a hash matches; so each tuple end costs one random access (a cache
// line holds about 30 searches' row) for the whole batch instead of three per search, and the pass over the
// tuples is shared.
// A tree deeper than 254 is checked on its own.
// Checked in place (Level = int32_t, one search): its parents where the search wrote them, its levels in the
// rule-1 scratch (e.g. the search's idle memory), so that validation adds only a bitmap to the run's peak.
template <class Id, class Level = uint8_t>
class BatchValidator {
  static constexpr bool kPacked = std::is_same_v<Level, uint8_t>;
  static_assert(kPacked || std::is_same_v<Level, int32_t>, "byte levels packed, or 4-byte levels in place");

 public:
  static constexpr Level kUnreached = kPacked ? Level(255) : Level(validate_detail::kNoLevel);
  // DRAM a packed batch of `slots` searches takes for n vertices: 2 bytes, a bit and a parent per vertex each.
  static uint64_t batch_bytes(uint64_t n, int slots) { return n * (row_bytes(slots) + uint64_t(slots) * sizeof(Id)); }

  BatchValidator(uint64_t n, int slots) : n_(n), slots_(kPacked ? slots : 1) {
    if constexpr (kPacked) {
      rows_ = NumaArray<uint8_t>(n * row_bytes(slots));
      parents_ = NumaArray<Id>(n * uint64_t(slots));
      level_ = rows_.data();
      parent_ = parents_.data();
    } else {
      bits_ = std::vector<std::atomic<uint64_t>>((n + 63) / 64);
    }
    nedge_ = std::vector<std::atomic<uint64_t>>(slots_);
    verdict_.resize(slots_);
    search_.resize(slots_);
    tree_broken_.resize(slots_);
  }

  int size() const { return size_; }
  bool full() const { return size_ == slots_; }

  // Rule 1 for one more search: its levels from its parent tree (into scratch, n int32), then into the next
  // slot. Returns false, taking nothing, when its tree is deeper than a Level holds.
  bool add(const SearchToCheck<Id>& s, std::span<int32_t> scratch);
  // Rules 3 and 4, nedge and the tree edges seen, for every search of the batch: call for every chunk of
  // the tuple list (concurrently from the OpenMP team).
  void check_edges(std::span<const Edge> edges);
  // Rule 5 and nedge: one verdict per search, in the order added; empties the batch.
  std::vector<Verdict> finish();

 private:
  void check_edges_in_place(std::span<const Edge> edges);
  void say_why(uint64_t u, uint64_t v);  // the rules 3 and 4 a tuple breaks, search by search
  // A packed row, eight searches a group (the last one padded): the levels, a byte hash of each parent (so
  // that a tuple looks at a parent only where the hash matches), then a byte of seen bits per group.
  static uint64_t row_bytes(int slots) { return kPacked ? (uint64_t(slots) + 7) / 8 * 17 : 1; }
  uint64_t hash_at() const { return (uint64_t(slots_) + 7) / 8 * 8; }  // offsets in a row
  uint64_t seen_at() const { return (uint64_t(slots_) + 7) / 8 * 16; }
  uint64_t stride() const { return kPacked ? row_bytes(slots_) : 1; }
  void fail(int i, int rule, const std::string& what) {
    std::lock_guard lock(mutex_);
    note_failure(verdict_[i], rule, what);
  }
  void saw_tree_edge(int i, uint64_t child) {  // an input edge joins child to its parent
    if constexpr (kPacked) {
      uint8_t& byte = level_[child * stride() + seen_at() + uint64_t(i) / 8];
      const uint8_t bit = uint8_t(1u << (i % 8));
      if (!(std::atomic_ref<uint8_t>(byte).load(std::memory_order_relaxed) & bit))
        std::atomic_ref<uint8_t>(byte).fetch_or(bit, std::memory_order_relaxed);
    } else {
      std::atomic<uint64_t>& w = bits_[child >> 6];
      const uint64_t bit = uint64_t(1) << (child & 63);
      if (!(w.load(std::memory_order_relaxed) & bit)) w.fetch_or(bit, std::memory_order_relaxed);
    }
  }
  bool seen(int i, uint64_t v) const {
    if constexpr (kPacked) return (level_[v * stride() + seen_at() + uint64_t(i) / 8] >> (i % 8)) & 1;
    else return (bits_[v >> 6].load(std::memory_order_relaxed) >> (v & 63)) & 1;
  }
  Level level(int i, uint64_t v) const { return level_[v * stride() + i]; }
  Id parent(int i, uint64_t v) const { return parent_[v * slots_ + i]; }

  uint64_t n_;
  int slots_, size_ = 0;
  NumaArray<uint8_t> rows_;   // packed: [v * stride]: slots levels, then the seen bits
  NumaArray<Id> parents_;     // packed: [v * slots + i], input labels
  Level* level_ = nullptr;    // kUnreached for unreached
  const Id* parent_ = nullptr;
  std::vector<std::atomic<uint64_t>> bits_;  // in place: tree edges seen
  std::vector<std::atomic<uint64_t>> nedge_;
  std::vector<Verdict> verdict_;
  std::vector<SearchToCheck<Id>> search_;
  std::vector<char> tree_broken_;  // rule 1 failed: no levels to check edges against
  std::mutex mutex_;
};

template <class Id, class Level>
bool BatchValidator<Id, Level>::add(const SearchToCheck<Id>& s, std::span<int32_t> scratch) {
  const int i = size_;
  verdict_[i] = Verdict{};
  search_[i] = s;
  nedge_[i] = 0;
  std::string why;
  tree_broken_[i] = !validate_detail::tree_levels(n_, s.parent, s.root, scratch.data(), why);
  if constexpr (kPacked) {
    int64_t deepest = 0;
    const int32_t* depth = scratch.data();
    uint8_t* rows = rows_.data();
    Id* parent = parents_.data();
    const uint64_t row = stride(), seen_byte = seen_at() + uint64_t(i) / 8, hash_byte = hash_at() + uint64_t(i);
    const uint8_t keep = uint8_t(~(1u << (i % 8)));
    const bool broken = tree_broken_[i];
#pragma omp parallel for reduction(max : deepest)
    for (uint64_t v = 0; v < n_; ++v) {
      rows[v * row + seen_byte] &= keep;
      if (broken) continue;
      deepest = std::max<int64_t>(deepest, depth[v]);
      rows[v * row + i] = depth[v] < 0 ? kUnreached : uint8_t(depth[v]);
      rows[v * row + hash_byte] = validate_detail::byte_hash(s.parent[v]);
      parent[v * uint64_t(slots_) + i] = s.parent[v];
    }
    if (deepest >= int64_t(kUnreached)) return false;
  } else {
    level_ = scratch.data();
    parent_ = s.parent;
#pragma omp parallel for
    for (uint64_t w = 0; w < bits_.size(); ++w) bits_[w].store(0, std::memory_order_relaxed);
  }
  if (tree_broken_[i]) fail(i, 1, why);
  ++size_;
  return true;
}

namespace validate_detail {
// Eight searches' level bytes of one vertex, compared lane by lane (GCC vector extension: a comparison gives
// all-ones lanes where true).
using Lanes = uint8_t __attribute__((vector_size(8)));
inline Lanes load_lanes(const uint8_t* p) {
  Lanes x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
inline uint8_t lane_bits(Lanes m) {  // lane i's top bit -> bit i
  uint64_t x;
  std::memcpy(&x, &m, sizeof x);
  return uint8_t(((x & 0x8080808080808080ull) * 0x0002040810204081ull) >> 56);
}
}  // namespace validate_detail

// Per tuple, eight searches at a time: both levels compared as byte lanes (differences wrap, so d == 1,
// d == 255 and d + 1 > 2 test adjacency and a gap), a parent looked at only where the levels are adjacent and
// its byte hash matches (a tree edge, or 1 in 256 others), and only where some search breaks a rule the slow
// path that says which and why.
template <class Id, class Level>
void BatchValidator<Id, Level>::check_edges(std::span<const Edge> edges) {
  if constexpr (!kPacked) {
    check_edges_in_place(edges);
    return;
  } else {
    using validate_detail::Lanes;
    using validate_detail::lane_bits;
    using validate_detail::load_lanes;
    const uint64_t groups = (uint64_t(size_) + 7) / 8, row = stride(), hashes = hash_at();
    std::vector<uint8_t> live(groups, 0);  // searches with levels to check, a bit each
    for (int i = 0; i < size_; ++i) live[i / 8] |= uint8_t(!tree_broken_[i]) << (i % 8);
    std::vector<Lanes> count(groups, Lanes{});  // nedge of the last 255 tuples at most, a byte a search
    std::vector<uint64_t> nedge(groups * 8, 0);
    auto flush = [&] {
      for (uint64_t g = 0; g < groups; ++g)
        for (int k = 0; k < 8; ++k) nedge[g * 8 + k] += count[g][k];
      std::fill(count.begin(), count.end(), Lanes{});
    };
    constexpr size_t kAhead = 16;  // the lookups are random: start them well before they are needed
    for (size_t j = 0; j < edges.size(); ++j) {
      if (j + kAhead < edges.size()) {
        const Edge& f = edges[j + kAhead];
        for (uint64_t at = 0; at < row; at += 64) {
          __builtin_prefetch(&level_[f.u * row + at]);
          __builtin_prefetch(&level_[f.v * row + at]);
        }
      }
      if (j % 255 == 254) flush();
      const uint64_t u = edges[j].u, v = edges[j].v;
      if (u == v) continue;
      const uint8_t* lu = &level_[u * row];
      const uint8_t* lv = &level_[v * row];
      const uint8_t hu = validate_detail::byte_hash(u), hv = validate_detail::byte_hash(v);
      bool broken = false;
      for (uint64_t g = 0; g < groups; ++g) {
        const Lanes a = load_lanes(lu + 8 * g), c = load_lanes(lv + 8 * g);
        const Lanes ru = a != kUnreached, rv = c != kUnreached, both = ru & rv, d = a - c;
        count[g] -= both;  // all-ones lanes: + 1
        const uint8_t mask = lane_bits(both) & live[g];
        broken |= ((lane_bits(ru ^ rv) | (lane_bits(Lanes(d + 1) > 2) & mask)) & live[g]) != 0;
        // v one level below u and v's parent hashed like u: is u v's parent? (and the other way round)
        const uint8_t below_u = lane_bits(d == 255) & mask & lane_bits(load_lanes(lv + hashes + 8 * g) == hu);
        const uint8_t below_v = lane_bits(d == 1) & mask & lane_bits(load_lanes(lu + hashes + 8 * g) == hv);
        for (uint32_t m = below_u; m; m &= m - 1) {
          const int i = int(8 * g) + __builtin_ctz(m);
          if (parent(i, v) == Id(u)) saw_tree_edge(i, v);
        }
        for (uint32_t m = below_v; m; m &= m - 1) {
          const int i = int(8 * g) + __builtin_ctz(m);
          if (parent(i, u) == Id(v)) saw_tree_edge(i, u);
        }
      }
      if (broken) say_why(u, v);
    }
    flush();
    for (int i = 0; i < size_; ++i) nedge_[i].fetch_add(nedge[i], std::memory_order_relaxed);
  }
}

// One search in place: its levels and parents where tree_levels and the search left them.
template <class Id, class Level>
void BatchValidator<Id, Level>::check_edges_in_place(std::span<const Edge> edges) {
  if (tree_broken_[0]) return;
  uint64_t nedge = 0;
  constexpr size_t kAhead = 16;
  for (size_t j = 0; j < edges.size(); ++j) {
    if (j + kAhead < edges.size()) {
      const Edge& f = edges[j + kAhead];
      __builtin_prefetch(&level_[f.u]);
      __builtin_prefetch(&level_[f.v]);
      __builtin_prefetch(&parent_[f.u]);
      __builtin_prefetch(&parent_[f.v]);
    }
    const uint64_t u = edges[j].u, v = edges[j].v;
    if (u == v) continue;
    const Level a = level_[u], c = level_[v];
    if ((a == kUnreached) != (c == kUnreached)) {
      say_why(u, v);
      continue;
    }
    if (a == kUnreached) continue;
    ++nedge;
    if (a - c > 1 || c - a > 1) say_why(u, v);
    if (parent_[v] == Id(u)) saw_tree_edge(0, v);
    if (parent_[u] == Id(v)) saw_tree_edge(0, u);
  }
  nedge_[0].fetch_add(nedge, std::memory_order_relaxed);
}

template <class Id, class Level>
void BatchValidator<Id, Level>::say_why(uint64_t u, uint64_t v) {
  for (int i = 0; i < size_; ++i) {
    if (tree_broken_[i]) continue;
    const Level a = level(i, u), c = level(i, v);
    if ((a == kUnreached) != (c == kUnreached)) {
      fail(i, 4, bfs_rules::joins_reached_and_unreached(u, v, a != kUnreached));
    } else if (a != kUnreached && (int32_t(a) - int32_t(c) > 1 || int32_t(c) - int32_t(a) > 1)) {
      fail(i, 3, bfs_rules::joins_levels(u, v, a, c));
    }
  }
}

template <class Id, class Level>
std::vector<Verdict> BatchValidator<Id, Level>::finish() {
  std::vector<Verdict> out;
  for (int i = 0; i < size_; ++i) {
    const SearchToCheck<Id>& s = search_[i];
    if (!tree_broken_[i]) {
      uint64_t first = n_;  // the first reached vertex whose tree edge no tuple gave
#pragma omp parallel for reduction(min : first)
      for (uint64_t v = 0; v < n_; ++v)
        if (v != s.root && level(i, v) != kUnreached && !seen(i, v)) first = std::min(first, v);
      if (first < n_)
        fail(i, 5, bfs_rules::parent_without_edge(first, uint64_t(parent(i, first))));
    }
    Verdict& v = verdict_[i];
    v.nedge = nedge_[i].load();
    if (v.valid && v.nedge != s.nedge)
      fail(i, 6, "nedge mismatch: the search counted " + std::to_string(s.nedge) + ", the input tuples give " +
                     std::to_string(v.nedge));
    out.push_back(v);
  }
  size_ = 0;
  return out;
}

// One pass over the tuples of `source` for a batch; on_chunk() after each chunk (e.g. progress).
template <class Source, class Batch, class OnChunk>
void check_pass(const Source& source, Batch& batch, OnChunk&& on_chunk) {
  source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
    batch.check_edges(edges);
    on_chunk();
  });
}

// Checks a search on its own, in place, in one pass over the tuples (a deep tree, or a batch of one);
// on_chunk() after each chunk.
template <class Id, class Source, class OnChunk = void (*)()>
Verdict validate_search_in_place(const Source& source, const SearchToCheck<Id>& s, std::span<int32_t> scratch,
                                 OnChunk&& on_chunk = [] {}) {
  BatchValidator<Id, int32_t> v(source.spec().vertex_count(), 1);
  v.add(s, scratch);
  check_pass(source, v, on_chunk);
  return v.finish()[0];
}

// Validates searches against an edge source (GeneratedEdges, GraphDir): all in one packed pass (a deep tree
// in one of its own), or one in place. scratch: n int32 for the rule-1 levels; allocated if smaller.
template <class Id, class Source>
std::vector<Verdict> validate_searches(const Source& source, std::span<const SearchToCheck<Id>> searches,
                                       std::span<int32_t> scratch = {}) {
  const uint64_t n = source.spec().vertex_count();
  std::vector<int32_t> own;
  if (scratch.size() < n) {
    own.resize(n);
    scratch = own;
  }
  if (searches.size() == 1) return {validate_search_in_place(source, searches[0], scratch)};
  std::vector<Verdict> out(searches.size());
  std::vector<size_t> packed;
  BatchValidator<Id> batch(n, int(searches.size()));
  for (size_t k = 0; k < searches.size(); ++k) {
    if (batch.add(searches[k], scratch)) packed.push_back(k);
    else out[k] = validate_search_in_place(source, searches[k], scratch);
  }
  if (!packed.empty()) {
    check_pass(source, batch, [] {});
    const std::vector<Verdict> verdicts = batch.finish();
    for (size_t j = 0; j < packed.size(); ++j) out[packed[j]] = verdicts[j];
  }
  return out;
}

}  // namespace strata
