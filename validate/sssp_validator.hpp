// Graph500 kernel 3 validation (SSSP.md section 4: the reference 3.0.1's rules, exact, float32) of one
// search's distances and parents (its words by internal id, named by input label), against a weighted CSR --
// plus a check the reference lacks:
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
#include <cstring>
#include <memory>
#include <cstdint>
#include <mutex>
#include <optional>
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

// A kernel-3 result to check, by input label: dist (-1 unreached) and parent (kNoVertex unreached) -- the form a
// test or a peer writes; check_sssp turns it into words (LabelWords).
template <class Id>
struct SsspToCheck {
  uint64_t root;
  const float* dist;
  const Id* parent;
  uint64_t nedge;  // the search's count, to be confirmed
};

// A kernel-3 result as a search leaves it, a word a vertex by internal id: the distance's bits above, the
// parent's internal id below; unreached: parent kNoVertex and distance +inf (kUnreachedBits). The answer by input
// label is it read through the graph's to_input, so no second copy is kept: the run's peak is the graph, the
// words, and the validator's n int32 of levels (SSSP.md asks 17 bytes a tuple).
template <class Id>
struct SsspWords {
  uint64_t root;           // input label
  uint64_t internal_root;  // its internal id as the caller found it (engine/csr.hpp internal_ids); checked here
  const uint64_t* word;    // g.n words
  uint64_t nedge;          // the search's count, to be confirmed
};
inline constexpr uint32_t kUnreachedBits = 0x7f800000u;  // +inf

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

// R5's marks, a bit a (vertex, search), set by whichever thread confirms it: a reached vertex is confirmed about
// once (its parent's entry), so the shared words see little contention, and a vertex costs a bit, not a byte.
struct ConfirmedBits {
  uint64_t* bits;
  uint64_t first = 0;  // a batch's search j: bits j, j + k, j + 2k, ...
  static uint64_t words(uint64_t count) { return (count + 63) / 64; }
  void set(uint64_t i) const {
    i += first;
    std::atomic_ref<uint64_t>(bits[i >> 6]).fetch_or(uint64_t(1) << (i & 63), std::memory_order_relaxed);
  }
  bool test(uint64_t i) const {
    i += first;
    return (std::atomic_ref<uint64_t>(bits[i >> 6]).load(std::memory_order_relaxed) >> (i & 63)) & 1;
  }
};

// One result's check in phases, so that a batch can check R5 for several results in one pass over the lists.
// A result's words (SsspWords): an entry costs one random word a end. The verdict keeps the lowest rule broken.
template <class Id>
struct ResultCheck {
  static_assert(sizeof(Id) == 4, "a distance and a parent share one 64-bit word: 32-bit ids");
  Verdict verdict;
  std::mutex mutex;
  uint64_t root = UINT64_MAX;  // the root's internal id, confirmed by vertices()

  void fail(int rule, const std::string& what) {
    std::lock_guard lock(mutex);
    if (verdict.valid || rule < verdict.rule) verdict = {false, rule, sssp_rules::message(rule, what), 0};
  }
  static float dist_of(uint64_t word) { return std::bit_cast<float>(uint32_t(word >> 32)); }
  static Id parent_of(uint64_t word) { return Id(uint32_t(word)); }
  static bool unreached_dist(uint64_t word) { return uint32_t(word >> 32) == kUnreachedBits; }

  // R1-R4 on the words; root_label: the input label the search was asked from, internal_root its internal id
  // as the caller found it (not trusted: it must carry that label).
  void vertices(const Csr<Id>& g, const uint64_t* word, uint64_t root_label, uint64_t internal_root) {
    const uint64_t n = g.n;
    const Id* to_input = g.to_input.data();
    root = internal_root < n && uint64_t(to_input[internal_root]) == root_label ? internal_root : UINT64_MAX;
    if (root == UINT64_MAX || parent_of(word[root]) != Id(root) || dist_of(word[root]) != 0.0f) {
      const std::string has = root == UINT64_MAX ? "none"
                              : parent_of(word[root]) == kNoVertex<Id>
                                  ? "none and distance -1"
                                  : label(g, parent_of(word[root])) + " and distance " + sssp_rules::num(dist_of(word[root]));
      fail(4, sssp_rules::bad_root(root_label, has));
    }
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t w = word[i];
      const Id p = parent_of(w);
      const float d = dist_of(w);
      const bool no_parent = p == kNoVertex<Id>, no_dist = unreached_dist(w);
      if (!no_parent && uint64_t(p) >= n) [[unlikely]]
        fail(1, sssp_rules::parent_out_of_range(to_input[i], uint64_t(p)));
      else if (!no_dist && !(d >= 0.0f)) [[unlikely]]
        fail(2, sssp_rules::distance_out_of_range(to_input[i], d));
      else if (no_parent != no_dist) [[unlikely]]
        fail(3, sssp_rules::inconsistent(to_input[i], no_parent ? -1 : int64_t(to_input[p]), no_dist ? -1.0f : d));
    }
  }
  // Internal id x by the name the result's reader knows it by.
  static std::string label(const Csr<Id>& g, Id x) {
    return uint64_t(x) < g.n ? std::to_string(uint64_t(g.to_input[x])) : std::to_string(uint64_t(x));
  }
  // R5 on entry (iv, iu, w): both ends reached or neither; iu confirmed when its parent is iv and the edge is
  // tight; the triangle rule. stride: a batch's words and marks are vertex-major (one line serves every search).
  void entry(const Csr<Id>& g, const uint64_t* word, ConfirmedBits confirmed, uint64_t iv, uint64_t iu, float w,
             uint64_t stride = 1) {
    const uint64_t wv = word[iv * stride], wu = word[iu * stride];
    const Id pv = parent_of(wv), pu = parent_of(wu);
    const bool reached = pv != kNoVertex<Id>;
    if (reached != (pu != kNoVertex<Id>)) [[unlikely]] {
      fail(5, sssp_rules::spans(uint64_t(g.to_input[iv]), uint64_t(g.to_input[iu])));
      return;
    }
    if (!reached) return;
    const float via = dist_of(wv) + w;  // float + float: fl32, exactly as the reference checks
    const float du = dist_of(wu);
    if (uint64_t(pu) == iv && du == via) confirmed.set(iu * stride);
    if (via < du) [[unlikely]]
      fail(5, sssp_rules::triangle(uint64_t(g.to_input[iv]), uint64_t(g.to_input[iu]), w, via, du));
  }
  // R6 from R5's marks; R7: nedge is the reached vertices' raw degrees over 2.
  void confirmed_and_nedge(const Csr<Id>& g, const uint64_t* word, ConfirmedBits confirmed, uint64_t nedge,
                           uint64_t stride = 1) {
    uint64_t twice_nedge = 0;
#pragma omp parallel for schedule(static) reduction(+ : twice_nedge)
    for (uint64_t iv = 0; iv < g.n; ++iv) {
      const Id p = parent_of(word[iv * stride]);
      if (p == kNoVertex<Id>) continue;
      twice_nedge += g.raw_degree(iv);
      if (iv != root && !confirmed.test(iv * stride)) [[unlikely]]
        fail(6, sssp_rules::not_confirmed(uint64_t(g.to_input[iv]), uint64_t(g.to_input[p]), dist_of(word[iv * stride])));
    }
    const uint64_t counted = twice_nedge / 2;
    if (verdict.valid) verdict.nedge = counted;
    if (counted != nedge) fail(7, sssp_rules::wrong_nedge(nedge, counted));
  }
  // R8 on the words' parents (internal ids, named by label); level: n int32 of scratch.
  void tree(const Csr<Id>& g, const uint64_t* word, int32_t* level) {
    std::string why;
    if (!validate_detail::tree_levels(g.n, ParentsOfWords{word}, root, level, why, g.to_input.data()))
      fail(8, sssp_rules::no_tree(why));
  }
  struct ParentsOfWords {
    const uint64_t* word;
    Id operator[](uint64_t v) const { return parent_of(word[v]); }
  };
};

// Rules R1-R8 over a result, R5 on every adjacency entry that `lists` hands out: lists(entry) calls
// entry(iv, iu, w) for every entry (u of weight w in v's list, internal ids) -- concurrently, once each.
// level: room for n int32 (R8's walk), e.g. the driver's by-label scratch; allocated when smaller.
template <class Id, class Lists>
Verdict check(const Csr<Id>& g, Lists&& lists, const SsspWords<Id>& s, std::span<int32_t> level) {
  const uint64_t n = g.n;
  ResultCheck<Id> c;
  c.vertices(g, s.word, s.root, s.internal_root);
  if (!c.verdict.valid) return c.verdict;
  {
    std::vector<uint64_t> marks(ConfirmedBits::words(n));  // by internal id
    const ConfirmedBits confirmed{marks.data()};
    lists([&](uint64_t iv, uint64_t iu, float w) { c.entry(g, s.word, confirmed, iv, iu, w); });
    if (!c.verdict.valid) return c.verdict;
    c.confirmed_and_nedge(g, s.word, confirmed, s.nedge);
    if (!c.verdict.valid) return c.verdict;
  }
  std::vector<int32_t> own(level.size() < n ? n : 0);
  c.tree(g, s.word, own.empty() ? level.data() : own.data());
  return c.verdict;
}

// A result by input label (SsspToCheck) as words, for check(): each label's internal id found once (n Id of
// scratch beside the n words; the driver checks its searches' words directly). One fault by label has no word:
// a vertex without a parent at distance +inf, not -1, breaks R3 by the label rules, yet its word is the
// unreached one -- kept aside as `r3` (the lowest such label), for lower() to weigh against the words' verdict.
template <class Id>
struct LabelWords {
  std::vector<uint64_t> word;
  uint64_t internal_root = UINT64_MAX;
  std::optional<Verdict> r3;

  LabelWords(const Csr<Id>& g, const SsspToCheck<Id>& s) : word(g.n) {
    const uint64_t n = g.n;
    std::vector<Id> internal(n);
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; ++i) internal[g.to_input[i]] = Id(i);
    if (s.root < n) internal_root = internal[s.root];
    uint64_t infinite = UINT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : infinite)
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t v = g.to_input[i];
      const Id p = s.parent[v];
      const float d = s.dist[v];
      const uint32_t dist_bits = d == -1.0f ? kUnreachedBits : std::bit_cast<uint32_t>(d);
      if (p == kNoVertex<Id> && dist_bits == kUnreachedBits && d != -1.0f) infinite = std::min(infinite, v);
      const Id pi = p == kNoVertex<Id> || uint64_t(p) >= n ? p : internal[p];
      word[i] = uint64_t(dist_bits) << 32 | uint32_t(pi);
    }
    if (infinite != UINT64_MAX)
      r3 = Verdict{false, 3, sssp_rules::message(3, sssp_rules::inconsistent(infinite, -1, s.dist[infinite])), 0};
  }
  SsspWords<Id> of(const SsspToCheck<Id>& s) const { return {s.root, internal_root, word.data(), s.nedge}; }
};

// The verdict naming the lower rule broken.
inline Verdict lower(const Verdict& a, const std::optional<Verdict>& b) {
  return b && (a.valid || b->rule < a.rule) ? *b : a;
}

}  // namespace sssp_check_detail

// Against the weighted CSR in DRAM: weights, one per entry of g's adjacency. level: n int32 of scratch.
template <class Id>
Verdict check_sssp(const Csr<Id>& g, const float* weights, const SsspWords<Id>& s, std::span<int32_t> level = {}) {
  auto lists = [&](auto&& entry) {
#pragma omp parallel for schedule(dynamic, 1024)
    for (uint64_t iv = 0; iv < g.n; ++iv) {
      const auto ids = g.neighbors(iv);
      const float* ws = weights + g.offsets[iv];
      for (size_t j = 0; j < ids.size(); ++j) entry(iv, uint64_t(ids[j]), ws[j]);
    }
  };
  return sssp_check_detail::check<Id>(g, lists, s, level);
}
template <class Id>
Verdict check_sssp(const Csr<Id>& g, const float* weights, const SsspToCheck<Id>& s) {
  const sssp_check_detail::LabelWords<Id> w(g, s);
  return sssp_check_detail::lower(check_sssp<Id>(g, weights, w.of(s)), w.r3);
}

// Every entry of the weighted CSR on storage (g: its O(N) arrays), concurrently, once each: entry(iv, iu, w), each
// 4 MiB block read with O_DIRECT where it can be and checked against its checksum, blocks in parallel. A storage
// fault is an Error; returns the first entry found that is no vertex id (UINT64_MAX: none), which is skipped.
template <class Id, class Entry>
uint64_t for_each_stored_entry(const Csr<Id>& g, const CsrFiles& files, Entry&& entry) {
  const CsrLayout& L = files.layout();
  if (!L.weighted || L.entry_bytes() != sizeof(NodeWeight<Id>))
    throw Error("internal error: kernel 3 checked against an unweighted CSR");
  const std::vector<std::pair<int, uint64_t>> blocks = csr_blocks(L);
  std::atomic<uint64_t> bad{UINT64_MAX};
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
  return bad.load();
}

namespace sssp_check_detail {
// An entry of the stored lists that is no vertex id fails R5 (unless a lower rule already failed).
inline void note_bad_entry(Verdict& v, uint64_t e, const CsrFiles& files) {
  if (e != UINT64_MAX && (v.valid || v.rule > 5))
    v = {false, 5, fmt::format("rule R5: adjacency entry {} of {} is no vertex id", e, files.path()), 0};
}
}  // namespace sssp_check_detail

// Against kernel 1's weighted CSR on storage (out-of-core and DAX; g: its O(N) arrays): one pass over its files.
template <class Id>
Verdict check_sssp_stored(const Csr<Id>& g, const CsrFiles& files, const SsspWords<Id>& s, std::span<int32_t> level = {}) {
  uint64_t bad = UINT64_MAX;
  auto lists = [&](auto&& entry) { bad = for_each_stored_entry(g, files, entry); };
  Verdict v = sssp_check_detail::check<Id>(g, lists, s, level);
  sssp_check_detail::note_bad_entry(v, bad, files);
  return v;
}
template <class Id>
Verdict check_sssp_stored(const Csr<Id>& g, const CsrFiles& files, const SsspToCheck<Id>& s) {
  const sssp_check_detail::LabelWords<Id> w(g, s);
  return sssp_check_detail::lower(check_sssp_stored<Id>(g, files, w.of(s)), w.r3);
}

// Kernel 3's results on storage checked several at a time, one pass over the stored lists for the batch: each
// result's R1-R4 and R8 when it is added (on its words), its words spilled to a scratch file
// while the next searches run (storage/spill_file.hpp: unlinked, reserved up front); the pass loads the batch's
// words and checks R5 for all of them, then R6 and R7 each. DRAM during the pass: rows_bytes.
template <class Id>
class SsspStoredBatch {
 public:
  static constexpr int kMaxSlots = 64;
  static constexpr uint64_t kChunk = uint64_t(1) << 18;  // words a spill write
  static uint64_t pass_vertices(const Csr<Id>& g) { return g.n; }  // every vertex's word
  static uint64_t rows_bytes(uint64_t n, int slots) {
    return uint64_t(slots) * n * sizeof(uint64_t) + sssp_check_detail::ConfirmedBits::words(uint64_t(slots) * n) * 8;
  }
  // Besides the rows: the spill's write buffer (the pass's 4 MiB block a thread is what checking one search
  // alone takes too).
  static uint64_t buffer_bytes(uint64_t, uint64_t, int) { return kChunk * sizeof(uint64_t); }
  static uint64_t spill_bytes(uint64_t, uint64_t held, int slots) { return uint64_t(slots) * align_up(held * sizeof(uint64_t)); }

  SsspStoredBatch(const Csr<Id>& g, const CsrFiles& files, const std::string& scratch_dir, int slots)
      : g_(g), files_(files), slots_(std::clamp(slots, 1, kMaxSlots)),
        spill_(scratch_dir, spill_bytes(g.n, g.n, slots_), "kernel 3's validation"), buffer_(kChunk * sizeof(uint64_t)) {}

  int size() const { return int(pending_.size()); }
  bool full() const { return size() == slots_; }
  int slots() const { return slots_; }

  // R1-R4 and R8 now (level: n int32 of scratch); a result that breaks one of R1-R4 is decided at once (false,
  // its verdict in v); otherwise its words are spilled for the batch's pass (a broken R8 is kept: the pass may
  // find a lower rule broken, which the verdict names instead).
  bool add(const SsspWords<Id>& s, std::span<int32_t> level, Verdict& v) {
    auto c = std::make_unique<sssp_check_detail::ResultCheck<Id>>();
    c->vertices(g_, s.word, s.root, s.internal_root);
    if (c->verdict.valid) {
      std::vector<int32_t> own(level.size() < g_.n ? g_.n : 0);
      c->tree(g_, s.word, own.empty() ? level.data() : own.data());
    }
    if (!c->verdict.valid && c->verdict.rule < 5) {
      v = c->verdict;
      return false;
    }
    const uint64_t base = uint64_t(size()) * align_up(g_.n * sizeof(uint64_t));
    uint64_t* word = reinterpret_cast<uint64_t*>(buffer_.data());
    for (uint64_t first = 0; first < g_.n; first += kChunk) {
      const uint64_t count = std::min(kChunk, g_.n - first);
      std::memcpy(word, s.word + first, count * sizeof(uint64_t));  // the spill writes aligned buffers (O_DIRECT)
      std::memset(word + count, 0, align_up(count * sizeof(uint64_t)) - count * sizeof(uint64_t));
      spill_.write(base + first * sizeof(uint64_t), word, align_up(count * sizeof(uint64_t)));
    }
    pending_.push_back({s.nedge, std::move(c)});
    return true;
  }
  bool add(const SsspToCheck<Id>& s, std::span<int32_t> level, Verdict& v) {
    const sssp_check_detail::LabelWords<Id> w(g_, s);
    if (w.r3) {
      sssp_check_detail::ResultCheck<Id> c;  // R3 decided now, unless R1 or R2 is broken too
      c.vertices(g_, w.word.data(), s.root, w.internal_root);
      v = sssp_check_detail::lower(c.verdict, w.r3);
      return false;
    }
    return add(w.of(s), level, v);
  }

  // The pass for the batch: R5 for every result, then R6 and R7 each; the verdicts in the order added. The
  // batch's words and marks are vertex-major (a vertex's searches share a cache line), so an entry costs about one
  // random line for the whole batch: with a column a search, a batch of 3 at SCALE 24 took 12.7 s a search against
  // 10 s checked alone (the pass is compute-bound here, not read-bound).
  std::vector<Verdict> check() {
    const uint64_t n = g_.n, k = uint64_t(size());
    NumaArray<uint64_t> words(n * k);
    std::vector<uint64_t> marks(sssp_check_detail::ConfirmedBits::words(n * k));
    for (uint64_t j = 0; j < k; ++j) {
      const uint64_t base = j * align_up(n * sizeof(uint64_t));
      for (uint64_t first = 0; first < n; first += kChunk) {
        const uint64_t count = std::min(kChunk, n - first);
        spill_.read(base + first * sizeof(uint64_t), buffer_.data(), align_up(count * sizeof(uint64_t)));
        const uint64_t* got = reinterpret_cast<const uint64_t*>(buffer_.data());
#pragma omp parallel for schedule(static)
        for (uint64_t i = 0; i < count; ++i) words[(first + i) * k + j] = got[i];
      }
    }
    const uint64_t bad = for_each_stored_entry(g_, files_, [&](uint64_t iv, uint64_t iu, float w) {
      for (uint64_t j = 0; j < k; ++j) pending_[j].check->entry(g_, words.data() + j, {marks.data(), j}, iv, iu, w, k);
    });
    std::vector<Verdict> verdicts;
    for (uint64_t j = 0; j < k; ++j) {
      sssp_check_detail::ResultCheck<Id>& c = *pending_[j].check;
      if (c.verdict.valid || c.verdict.rule > 7)
        c.confirmed_and_nedge(g_, words.data() + j, {marks.data(), j}, pending_[j].nedge, k);
      sssp_check_detail::note_bad_entry(c.verdict, bad, files_);
      verdicts.push_back(c.verdict);
    }
    pending_.clear();
    return verdicts;
  }

 private:
  struct Pending {
    uint64_t nedge;
    std::unique_ptr<sssp_check_detail::ResultCheck<Id>> check;  // holds a mutex: not movable
  };
  const Csr<Id>& g_;
  const CsrFiles& files_;
  int slots_;
  SpillFile spill_;
  AlignedBuffer buffer_;
  std::vector<Pending> pending_;
};

template <class Id>
Verdict check_sssp(const Csr<Id, float>& g, const SsspToCheck<Id>& s) {
  return check_sssp<Id>(g, g.weights.data(), s);
}

}  // namespace strata
