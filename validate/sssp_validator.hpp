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
#include <cstring>
#include <memory>
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

// One result's check in phases, so that a batch can check R5 for several results in one pass over the lists.
// A result's words: (distance bits, parent label) by internal id, so an entry costs one random word instead of
// its end's label, parent and distance. The verdict keeps the lowest rule broken.
template <class Id>
struct ResultCheck {
  static_assert(sizeof(Id) == 4, "a distance and a parent share one 64-bit word: 32-bit ids");
  Verdict verdict;
  std::mutex mutex;

  void fail(int rule, const std::string& what) {
    std::lock_guard lock(mutex);
    if (verdict.valid || rule < verdict.rule) verdict = {false, rule, sssp_rules::message(rule, what), 0};
  }
  static float dist_of(uint64_t word) { return std::bit_cast<float>(uint32_t(word >> 32)); }
  static Id parent_of(uint64_t word) { return Id(uint32_t(word)); }

  // R1-R4 on the result by input label.
  void vertices(uint64_t n, const SsspToCheck<Id>& s) {
    const float* dist = s.dist;
    const Id* parent = s.parent;
    if (!(s.root < n && parent[s.root] == Id(s.root) && dist[s.root] == 0.0f))
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
  }
  // The result's words of internal ids [first, first + count) into word[0 ..).
  static void words(const Csr<Id>& g, const SsspToCheck<Id>& s, uint64_t first, uint64_t count, uint64_t* word) {
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t v = g.to_input[first + i];
      word[i] = uint64_t(std::bit_cast<uint32_t>(s.dist[v])) << 32 | uint32_t(s.parent[v]);
    }
  }
  // R5 on entry (iv, iu, w): both ends reached or neither; iu confirmed when its parent is iv and the edge is
  // tight; the triangle rule. stride: a batch's words and marks are vertex-major (one line serves every search).
  void entry(const Csr<Id>& g, const uint64_t* word, std::atomic<uint8_t>* confirmed, uint64_t iv, uint64_t iu, float w,
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
    if (pu == g.to_input[iv] && du == via) confirmed[iu * stride].store(1, std::memory_order_relaxed);
    if (via < du) [[unlikely]]
      fail(5, sssp_rules::triangle(uint64_t(g.to_input[iv]), uint64_t(g.to_input[iu]), w, via, du));
  }
  // R6 from R5's marks; R7: nedge is the reached vertices' raw degrees over 2.
  void confirmed_and_nedge(const Csr<Id>& g, const uint64_t* word, const std::atomic<uint8_t>* confirmed, uint64_t root,
                           uint64_t nedge, uint64_t stride = 1) {
    uint64_t twice_nedge = 0;
#pragma omp parallel for schedule(static) reduction(+ : twice_nedge)
    for (uint64_t iv = 0; iv < g.n; ++iv) {
      const Id p = parent_of(word[iv * stride]);
      if (p == kNoVertex<Id>) continue;
      twice_nedge += g.raw_degree(iv);
      const uint64_t v = g.to_input[iv];
      if (v != root && !confirmed[iv * stride].load(std::memory_order_relaxed)) [[unlikely]]
        fail(6, sssp_rules::not_confirmed(v, uint64_t(p), dist_of(word[iv * stride])));
    }
    const uint64_t counted = twice_nedge / 2;
    if (verdict.valid) verdict.nedge = counted;
    if (counted != nedge) fail(7, sssp_rules::wrong_nedge(nedge, counted));
  }
  // R8 on the parents by input label; level: n int32 of scratch.
  void tree(uint64_t n, const Id* parent, uint64_t root, int32_t* level) {
    std::string why;
    if (!validate_detail::tree_levels(n, parent, root, level, why)) fail(8, sssp_rules::no_tree(why));
  }
};

// Rules R1-R8 over a result, R5 on every adjacency entry that `lists` hands out: lists(entry) calls
// entry(iv, iu, w) for every entry (u of weight w in v's list, internal ids) -- concurrently, once each.
// spare: room for 2n int32 (R5's words, then R8's walk), e.g. the search's idle state; allocated when smaller.
template <class Id, class Lists>
Verdict check(const Csr<Id>& g, Lists&& lists, const SsspToCheck<Id>& s, std::span<int32_t> spare) {
  const uint64_t n = g.n;
  ResultCheck<Id> c;
  c.vertices(n, s);
  if (!c.verdict.valid) return c.verdict;
  std::vector<uint64_t> own_words(spare.size() / 2 < n ? n : 0);
  uint64_t* word = own_words.empty() ? reinterpret_cast<uint64_t*>(spare.data()) : own_words.data();
  ResultCheck<Id>::words(g, s, 0, n, word);
  std::vector<std::atomic<uint8_t>> confirmed(n);  // by internal id
  lists([&](uint64_t iv, uint64_t iu, float w) { c.entry(g, word, confirmed.data(), iv, iu, w); });
  if (!c.verdict.valid) return c.verdict;
  c.confirmed_and_nedge(g, word, confirmed.data(), s.root, s.nedge);
  if (!c.verdict.valid) return c.verdict;
  c.tree(n, s.parent, s.root, own_words.empty() ? spare.data() : reinterpret_cast<int32_t*>(own_words.data()));
  return c.verdict;
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
Verdict check_sssp_stored(const Csr<Id>& g, const CsrFiles& files, const SsspToCheck<Id>& s,
                          std::span<int32_t> spare = {}) {
  uint64_t bad = UINT64_MAX;
  auto lists = [&](auto&& entry) { bad = for_each_stored_entry(g, files, entry); };
  Verdict v = sssp_check_detail::check<Id>(g, lists, s, spare);
  sssp_check_detail::note_bad_entry(v, bad, files);
  return v;
}

// Kernel 3's results on storage checked several at a time, one pass over the stored lists for the batch: each
// result's R1-R4 and R8 when it is added (on its arrays by input label), its words spilled to a scratch file
// while the next searches run (storage/spill_file.hpp: unlinked, reserved up front); the pass loads the batch's
// words and checks R5 for all of them, then R6 and R7 each. DRAM during the pass: rows_bytes.
template <class Id>
class SsspStoredBatch {
 public:
  static constexpr int kMaxSlots = 64;
  static constexpr uint64_t kChunk = uint64_t(1) << 18;  // words a spill write
  static uint64_t pass_vertices(const Csr<Id>& g) { return g.n; }  // every vertex's word
  static uint64_t rows_bytes(uint64_t n, int slots) { return uint64_t(slots) * n * (sizeof(uint64_t) + 1); }
  // Besides the rows: the spill's write buffer (the pass's 4 MiB block a thread is what checking one search
  // alone takes too).
  static uint64_t buffer_bytes(uint64_t, uint64_t, int) { return kChunk * sizeof(uint64_t); }
  static uint64_t spill_bytes(uint64_t n, int slots) { return uint64_t(slots) * align_up(n * sizeof(uint64_t)); }

  SsspStoredBatch(const Csr<Id>& g, const CsrFiles& files, const std::string& scratch_dir, int slots)
      : g_(g), files_(files), slots_(std::clamp(slots, 1, kMaxSlots)),
        spill_(scratch_dir, spill_bytes(g.n, slots_), "kernel 3's validation"), buffer_(kChunk * sizeof(uint64_t)) {}

  int size() const { return int(pending_.size()); }
  bool full() const { return size() == slots_; }
  int slots() const { return slots_; }

  // R1-R4 and R8 now (level: n int32 of scratch, e.g. the search's idle state); a result that breaks one of
  // R1-R4 is decided at once (false, its verdict in v); otherwise its words are spilled for the batch's pass (a
  // broken R8 is kept: the pass may find a lower rule broken, which the verdict names instead).
  bool add(const SsspToCheck<Id>& s, std::span<int32_t> level, Verdict& v) {
    auto c = std::make_unique<sssp_check_detail::ResultCheck<Id>>();
    c->vertices(g_.n, s);
    if (c->verdict.valid) {
      std::vector<int32_t> own(level.size() < g_.n ? g_.n : 0);
      c->tree(g_.n, s.parent, s.root, own.empty() ? level.data() : own.data());
    }
    if (!c->verdict.valid && c->verdict.rule < 5) {
      v = c->verdict;
      return false;
    }
    const uint64_t base = uint64_t(size()) * align_up(g_.n * sizeof(uint64_t));
    uint64_t* word = reinterpret_cast<uint64_t*>(buffer_.data());
    for (uint64_t first = 0; first < g_.n; first += kChunk) {
      const uint64_t count = std::min(kChunk, g_.n - first);
      sssp_check_detail::ResultCheck<Id>::words(g_, s, first, count, word);
      std::memset(word + count, 0, align_up(count * sizeof(uint64_t)) - count * sizeof(uint64_t));
      spill_.write(base + first * sizeof(uint64_t), word, align_up(count * sizeof(uint64_t)));
    }
    pending_.push_back({s.root, s.nedge, std::move(c)});
    return true;
  }

  // The pass for the batch: R5 for every result, then R6 and R7 each; the verdicts in the order added. The
  // batch's words and marks are vertex-major (a vertex's searches share a cache line), so an entry costs about one
  // random line for the whole batch: with a column a search, a batch of 3 at SCALE 24 took 12.7 s a search against
  // 10 s checked alone (the pass is compute-bound here, not read-bound).
  std::vector<Verdict> check() {
    const uint64_t n = g_.n, k = uint64_t(size());
    NumaArray<uint64_t> words(n * k);
    std::vector<std::atomic<uint8_t>> confirmed(n * k);
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
      for (uint64_t j = 0; j < k; ++j) pending_[j].check->entry(g_, words.data() + j, confirmed.data() + j, iv, iu, w, k);
    });
    std::vector<Verdict> verdicts;
    for (uint64_t j = 0; j < k; ++j) {
      sssp_check_detail::ResultCheck<Id>& c = *pending_[j].check;
      if (c.verdict.valid || c.verdict.rule > 7)
        c.confirmed_and_nedge(g_, words.data() + j, confirmed.data() + j, pending_[j].root, pending_[j].nedge, k);
      sssp_check_detail::note_bad_entry(c.verdict, bad, files_);
      verdicts.push_back(c.verdict);
    }
    pending_.clear();
    return verdicts;
  }

 private:
  struct Pending {
    uint64_t root, nedge;
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
Verdict check_sssp(const Csr<Id, float>& g, const SsspToCheck<Id>& s, std::span<int32_t> spare = {}) {
  return check_sssp<Id>(g, g.weights.data(), s, spare);
}

}  // namespace strata
