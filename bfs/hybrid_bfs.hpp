// Direction-optimizing BFS (Beamer et al.), written once over a neighbour source (neighbour_sources.hpp):
// top-down while the frontier is small, bottom-up while it is large, both over a frontier bitmap (no queues:
// O(N) state is what limits an out-of-core graph). Work is split into the partitions' vertex ranges; a thread
// serves its home part's chunks first (NUMA-local rows), then helps the others. The source supplies each
// list's DRAM prefix and reaches its tail; the choice of source is made once, at construction, so the hot
// loops pay nothing for it. The same search serves each MPI rank (cluster/dist_bfs.hpp): a Claims policy says
// whose vertices it claims, and OneProcess, every vertex, costs nothing.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "bfs/bitmap.hpp"
#include "bfs/graph_search.hpp"
#include "bfs/neighbour_sources.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "engine/csr.hpp"
#include "engine/topology.hpp"

namespace strata {

// Whose vertices a search claims. OneProcess: every vertex of g. A rank's search (cluster/dist_bfs.hpp, RankClaims)
// holds vertices [lo, lo + g.n) of a larger id space that its lists name, and sends the claims of the others':
//   lo, owns(v)          this search's first id (its vertex i is lo + i); whether v is one of its own
//   kRemote              lists name vertices held elsewhere; then also:
//     send(v, u)         claims v for parent u at v's owner (from any OpenMP thread)
//     take(claim)        after a top-down step: claim(i, u) for each claim sent here; returns what they added
//   frontier(front)      the frontier bottom-up looks parents up in (a rank: every rank's, gathered)
//   sum(x)               a count over the whole search (a rank: over every rank; collective)
//   level(examined, io)  a level's counts summed likewise; returns the bytes the level sent
//   ids(n)               the id space the lists name (n: g's vertices); the search bounds its source's ids by it
struct OneProcess {
  static constexpr bool kRemote = false;
  static constexpr uint64_t lo = 0;
  static constexpr bool owns(uint64_t) { return true; }
  const uint64_t* frontier(const Bitmap& front) const { return front.words(); }
  uint64_t sum(uint64_t x) const { return x; }
  uint64_t level(uint64_t&, LevelIo&) const { return 0; }
  uint64_t ids(uint64_t n) const { return n; }
};

template <class Id, class Source = WholeLists<Id>, class Claims = OneProcess>
class HybridBfs final : public GraphSearch<Id> {
 public:
  // In-core: every list of g in DRAM. The search keeps references to g and parts (not to temporaries).
  HybridBfs(const Csr<Id>& g, const Partitioning& parts, const BfsOptions& options)
    requires std::is_same_v<Source, WholeLists<Id>>
      : HybridBfs(g, WholeLists<Id>(g.adj.data(), g.offsets), parts, options) {}
  HybridBfs(const Csr<Id>& g, Partitioning&& parts, const BfsOptions& options) = delete;

  HybridBfs(const Csr<Id>& g, Source source, const Partitioning& parts, const BfsOptions& options, Claims claims = {})
      : g_(g), source_(std::move(source)), parts_(parts), opt_(options), claims_(std::move(claims)), parent_(g.n),
        // Bottom-up over 32-bit ids read in place from a mapping looks each one up unchecked: the bitmaps
        // read as zero up to 2^32 (address space only), so a changed file is never an out-of-bounds load.
        front_(frontier_bitmap(g.n)), next_(frontier_bitmap(g.n)), reached_(g) {
    const int k = parts.parts();
    for (int p = 0; p < k; ++p) {
      parent_.prefer_node(parts.begin(p), parts.end(p), parts.node[p]);
      front_.prefer_node(parts.begin(p) / 64, (parts.end(p) + 63) / 64, parts.node[p]);
      next_.prefer_node(parts.begin(p) / 64, (parts.end(p) + 63) / 64, parts.node[p]);
    }
    claim_ = std::vector<std::atomic<uint64_t>>(k);
    vertices_ = claims_.sum(g.n);
    edges_ = claims_.sum(g.directed_edges());
    ids_ = claims_.ids(g.n);
    if constexpr (requires { source_.limit_ids(ids_); }) source_.limit_ids(ids_);
  }

  // Searches from internal vertex `root`; writes parent_out[input label] = parent's input label (root: itself,
  // unreached: kNoVertex). Resetting the state and translating labels are part of the search.
  SearchStats search(Id root, Id* parent_out) override {
    if constexpr (Claims::kRemote) throw Error("internal error: a rank's search names parents by its driver");
    SearchStats stats = levels(root);
    to_input_labels(parent_out);
    return stats;
  }

  // The search itself, from `root` (an id of the whole space; collective across ranks), leaving the parents by
  // internal id (internal_parents(): vertex i's, as an id of the whole space).
  SearchStats levels(Id root) {
    SearchStats stats;
    reset();
    uint64_t scout = 0;
    if (claims_.owns(root)) {
      const uint64_t i = root - claims_.lo;
      parent_[i] = root;
      front_.set_atomic(i);
      scout = g_.degree(i);
    }
    scout = claims_.sum(scout);
    uint64_t frontier = 1, edges_to_check = edges_;
    while (frontier > 0) {
      if (go_bottom_up(scout, edges_to_check)) {
        frontier = bottom_up_levels(frontier, stats);
        scout = 1;
      } else {
        edges_to_check -= std::min(edges_to_check, scout);
        const double t0 = omp_get_wtime();
        uint64_t examined = 0;
        const uint64_t expanded = frontier;
        frontier = top_down_step(scout, examined);
        record(stats, false, expanded, examined, t0);
      }
    }
    return stats;
  }
  const Claims& claims() const { return claims_; }

  std::span<int32_t> idle_memory() override {
    return {reinterpret_cast<int32_t*>(parent_.data()), parent_.bytes() / sizeof(int32_t)};
  }

  const Id* internal_parents() const override { return parent_.data(); }
  void release_idle_memory() override {
    parent_.release(0, parent_.size());
    front_.release();
    next_.release();
  }

  uint64_t reached_raw_degree_sum() const override {
    const Id* parent = parent_.data();
    return reached_.sum([parent](uint64_t v) { return parent[v] == kNoVertex<Id>; });
  }

  uint64_t state_bytes() const override {
    uint64_t bytes = parent_.bytes() + (front_.word_count() + next_.word_count()) * sizeof(uint64_t);
    if constexpr (requires { source_.state_bytes(); }) bytes += source_.state_bytes();
    return bytes;
  }
  uint64_t io_buffer_bytes() const override {
    if constexpr (requires { source_.io_buffer_bytes(); }) return source_.io_buffer_bytes();
    return 0;
  }
  bool registered_buffers() const override {
    if constexpr (requires { source_.registered_buffers(); }) return source_.registered_buffers();
    return false;
  }

 private:
  static constexpr uint64_t kWordChunk = 16;     // bitmap words (1024 vertices) per bottom-up work item
  static constexpr uint64_t kSparseChunk = 256;  // per top-down item: the frontier is sparse

  static Bitmap frontier_bitmap(uint64_t n) {
    if constexpr (Source::kChecked && sizeof(Id) == 4) return Bitmap(n, uint64_t(1) << 32);
    return Bitmap(n);
  }

  bool go_bottom_up(uint64_t scout, uint64_t edges_to_check) const { return strata::go_bottom_up(opt_, scout, edges_to_check); }
  bool stay_bottom_up(uint64_t awake, uint64_t old_awake) const { return strata::stay_bottom_up(opt_, awake, old_awake, vertices_); }

  uint64_t bottom_up_levels(uint64_t frontier, SearchStats& stats) {
    uint64_t awake = frontier, old_awake;
    do {
      old_awake = awake;
      const double t0 = omp_get_wtime();
      uint64_t examined = 0;
      awake = bottom_up_step(examined);
      record(stats, true, old_awake, examined, t0);
      front_.swap(next_);
    } while (stay_bottom_up(awake, old_awake));
    return awake;
  }

  void record(SearchStats& s, bool up, uint64_t frontier, uint64_t examined, double t0) {
    source_.check();
    if constexpr (Source::kChecked) level_io_.edges_storage = examined;  // every list read in place
    const uint64_t sent = claims_.level(examined, level_io_);
    s.edges_examined += examined;
    s.io.edges_storage += level_io_.edges_storage;
    s.io.bytes_read += level_io_.bytes_read;
    s.io.requests += level_io_.requests;
    s.bytes_sent += sent;
    if (opt_.trace) s.levels.push_back({up, frontier, examined, omp_get_wtime() - t0, level_io_, sent});
    level_io_ = LevelIo{};
  }

  void reset() {
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < g_.n; ++v) parent_[v] = kNoVertex<Id>;
    if constexpr (requires { source_.reset(); }) source_.reset();
    level_io_ = LevelIo{};
    front_.clear();
  }

  void to_input_labels(Id* parent_out) const {
    const Id* to_input = g_.to_input.data();
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < g_.n; ++v) {
      const Id p = parent_[v];
      parent_out[to_input[v]] = p == kNoVertex<Id> ? kNoVertex<Id> : to_input[p];
    }
  }

  // Claims work items (part, chunk) home part first, then the others in turn.
  template <class Body>
  void for_each_chunk(const std::vector<uint64_t>& chunks, Body&& body) {
    const int k = parts_.parts(), t = omp_get_thread_num(), threads = omp_get_num_threads();
    const int home = parts_.home_part(t, threads);
    for (int i = 0; i < k; ++i) {
      const int p = (home + i) % k;
      for (uint64_t c; (c = claim_[p].fetch_add(1, std::memory_order_relaxed)) < chunks[p];) body(p, c);
    }
  }
  std::vector<uint64_t> claim_chunks(const std::vector<uint64_t>& items, uint64_t per_chunk) {
    for (auto& c : claim_) c.store(0, std::memory_order_relaxed);
    std::vector<uint64_t> chunks(items.size());
    for (size_t p = 0; p < items.size(); ++p) chunks[p] = (items[p] + per_chunk - 1) / per_chunk;
    return chunks;
  }

  // Claims vertex i for parent u (an id of the whole space) if it is unvisited, marking it in the next frontier;
  // returns the degree it added.
  uint64_t claim(uint64_t i, Id u) {
    if (std::atomic_ref<Id>(parent_[i]).load(std::memory_order_relaxed) != kNoVertex<Id>) return 0;
    Id expected = kNoVertex<Id>;
    if (!std::atomic_ref<Id>(parent_[i]).compare_exchange_strong(expected, u, std::memory_order_relaxed)) return 0;
    next_.set_atomic(i);
    return g_.degree(i);
  }
  // Claims the unvisited among vertex i's neighbours [first, last) (another's sent to its owner); returns the
  // degrees added to the next frontier.
  uint64_t claim_children(Id i, const Id* first, const Id* last) {
    const Id u = Id(claims_.lo + i);
    uint64_t added = 0;
    for (const Id* it = first; it != last; ++it) {
      if constexpr (Claims::kRemote) {
        if (!claims_.owns(*it)) {
          claims_.send(*it, u);
          continue;
        }
      }
      added += claim(*it - claims_.lo, u);
    }
    return added;
  }

  // Where a vertex's prefix starts, found walking g's offsets from the start of its 64-vertex word (the
  // source keeps only a base per word); in-core (the prefix is the whole list), straight from the offsets.
  struct PrefixWalk {
    const HybridBfs& bfs;
    BlockOffsets::WordEnds ends;
    uint64_t i = 0, start, prefix;  // vertex 64w + i's list starts at start in g, its prefix at prefix
    PrefixWalk(const HybridBfs& b, uint64_t w)
        : bfs(b), ends(b.g_.offsets.word(w)), start(ends.begin()), prefix(b.source_.word_prefix(w)) {}
    // Moves to vertex 64w + j (j >= i); returns its degree.
    uint64_t reach(uint64_t j) {
      if constexpr (!Source::kHasTails) {
        start = prefix = j == 0 ? ends.begin() : ends(j - 1);
      } else {
        for (; i < j; ++i) {
          const uint64_t next = ends(i);
          prefix += bfs.source_.prefix_length(next - start);
          start = next;
        }
      }
      i = j;
      return ends(j) - start;
    }
  };

  // Top-down from the frontier bitmap (a queue would cost 2 ids a vertex of O(N) state; scanning the bitmap
  // costs n / 64 words a level, about 1% of a search at SCALE 20).
  uint64_t top_down_step(uint64_t& scout, uint64_t& examined) {
    next_.clear();
    const std::vector<uint64_t> chunks = claim_chunks(word_items(), kSparseChunk);
    const uint64_t* front = front_.words();
    auto expand = [&](Id u, const Id* first, const Id* last) { return claim_children(u, first, last); };
    uint64_t new_scout = 0, new_examined = 0, in_place = 0;
#pragma omp parallel reduction(+ : new_scout, new_examined, in_place)
    for_each_chunk(chunks, [&](int p, uint64_t c) {
      const uint64_t w0 = word_begin(p) + c * kSparseChunk, w_end = std::min(word_end(p), w0 + kSparseChunk);
      for (uint64_t w = w0; w < w_end; ++w) {
        if (front[w] == 0) continue;
        PrefixWalk at(*this, w);
        for (uint64_t bits = front[w]; bits; bits &= bits - 1) {
          const uint64_t j = uint64_t(__builtin_ctzll(bits));
          const Id u = Id(w * 64 + j);
          const uint64_t degree = at.reach(j), len = source_.prefix_length(degree);
          const Id* first = source_.adj() + at.prefix;
          new_examined += len;
          if (!Source::kChecked || source_.in_range(first, first + len, ids_)) new_scout += expand(u, first, first + len);
          if constexpr (Source::kHasTails)
            if (len < degree) new_scout += source_.top_down_tail(u, p, len, expand, in_place);
        }
      }
    });
    if constexpr (Source::kHasTails) new_scout += source_.top_down_finish(expand, level_io_);
    if constexpr (Claims::kRemote) new_scout += claims_.take([&](uint64_t i, Id u) { return claim(i, u); });
    level_io_.edges_storage += in_place;
    scout = claims_.sum(new_scout);
    examined = new_examined + level_io_.edges_storage;
    front_.swap(next_);
    return claims_.sum(front_.count());
  }

  // Bottom-up over one work item, words [w, w_end) of part p (each word owned by this thread): an unvisited
  // vertex takes the first neighbour found in the frontier as its parent. Out of line on purpose: inlined into
  // the parallel region, the loop shared registers with it and spilled its pointers (out-of-core 7% slower).
  struct WordCounts {
    uint64_t awake = 0, examined = 0, in_place = 0;
  };
  [[gnu::noinline]] void bottom_up_chunk(uint64_t w, uint64_t w_end, int p, const uint64_t* front, uint64_t* next,
                                         uint64_t* deferred, WordCounts& counts) {
    const Id* adj = source_.adj();
    const BlockOffsets& off = g_.offsets;
    Id* parent = parent_.data();
    const uint64_t ids = ids_;  // a parent read in place must name a vertex of the id space
    uint64_t awake = 0, examined = 0;
    for (; w < w_end; ++w) {
      uint64_t bits = 0, deferred_bits = 0;
      const uint64_t v_end = std::min(reached_.listed(), w * 64 + 64);
      if (w * 64 >= v_end) {
        next[w] = 0;
        if constexpr (Source::kDefers) deferred[w] = 0;
        continue;
      }
      // Each list ends where the next begins, in g and in the source's prefixes alike.
      const BlockOffsets::WordEnds ends = off.word(w);
      uint64_t start = ends.begin(), begin = source_.word_prefix(w);
      for (uint64_t v = w * 64; v < v_end; ++v) {
        const uint64_t next_start = ends(v - w * 64);
        uint64_t end = next_start;  // whole lists: the prefix is the list
        if constexpr (Source::kHasTails) end = begin + source_.prefix_length(next_start - start);
        if (parent[v] == kNoVertex<Id>) {
          const uint64_t i = uint64_t(first_in_frontier(front, adj + begin, adj + end) - adj);
          examined += std::min(i + 1, end) - begin;
          if (i < end) {
            if (!Source::kChecked || adj[i] < ids) [[likely]] {
              parent[v] = adj[i];
              bits |= uint64_t(1) << (v & 63);
              ++awake;
            } else {
              source_.note_bad(adj + i);  // a mapped file changed under the search: never used
            }
          } else if constexpr (Source::kDefers) {  // read after the step, with the other deferred tails
            if (end - begin < next_start - start) deferred_bits |= uint64_t(1) << (v & 63);
          } else if constexpr (Source::kHasTails) {
            if (end - begin < next_start - start) bits |= bottom_up_tail_now(v, p, end - begin, front, counts);
          }
        }
        start = next_start;
        begin = end;
      }
      next[w] = bits;
      if constexpr (Source::kDefers) deferred[w] = deferred_bits;
    }
    counts.awake += awake;
    counts.examined += examined;
  }
  const Id* first_in_frontier(const uint64_t* front, const Id* first, const Id* last) const {
    // 32-bit mapped ids in one process: the frontier bitmap's guard makes any id safe; a rank's frontier is the
    // ranks' gathered bitmap (Claims::frontier), which has none.
    if constexpr (Source::kChecked && (sizeof(Id) == 8 || Claims::kRemote))
      return first_marked_or_invalid(front, first, last, ids_);
    return first_marked(front, first, last);
  }
  // A tail the source reads in place (DAX): v's bit in the next frontier if a parent was found there.
  [[gnu::noinline]] uint64_t bottom_up_tail_now(uint64_t v, int p, uint64_t len, const uint64_t* front,
                                                WordCounts& counts) {
    const Id found = source_.bottom_up_tail(v, p, len, front, counts.in_place);
    if (found == kNoVertex<Id>) return 0;
    parent_[v] = found;
    ++counts.awake;
    return uint64_t(1) << (v & 63);
  }

  uint64_t bottom_up_step(uint64_t& examined) {
    const std::vector<uint64_t> chunks = claim_chunks(word_items(), kWordChunk);
    const uint64_t* front = claims_.frontier(front_);
    uint64_t* next = next_.words();
    uint64_t* deferred = nullptr;
    if constexpr (Source::kDefers) deferred = source_.deferred_words();
    uint64_t awake = 0, new_examined = 0, in_place = 0;
#pragma omp parallel reduction(+ : awake, new_examined, in_place)
    {
      WordCounts counts;
      for_each_chunk(chunks, [&](int p, uint64_t c) {
        const uint64_t w = word_begin(p) + c * kWordChunk;
        bottom_up_chunk(w, std::min(word_end(p), w + kWordChunk), p, front, next, deferred, counts);
      });
      awake += counts.awake;
      new_examined += counts.examined;
      in_place += counts.in_place;
    }
    level_io_.edges_storage += in_place;
    if constexpr (Source::kDefers) awake += bottom_up_deferred(front);
    examined = new_examined + level_io_.edges_storage;
    return claims_.sum(awake);
  }

  // The deferred tails, read by the source: the first neighbour in the frontier becomes the parent.
  uint64_t bottom_up_deferred(const uint64_t* front) {
    std::atomic<uint64_t> found{0};
    auto claim = [&](Id v, const Id* first, const Id* last) {
      if (parent_[v] != kNoVertex<Id>) return uint64_t(0);  // found in an earlier piece of a long list
      const Id* it = first_marked_or_invalid(front, first, last, ids_);  // read from storage: checked as scanned
      if (it == last) return uint64_t(last - first);
      if (*it >= ids_) [[unlikely]] throw InvalidEntry{it};
      parent_[v] = *it;
      next_.set_atomic(v);
      found.fetch_add(1, std::memory_order_relaxed);
      return uint64_t(it - first + 1);
    };
    source_.bottom_up_finish(claim, level_io_);
    return found.load();
  }

  // Parts own whole words; only the last non-empty part may end mid-word (at n), and parts after it are empty.
  uint64_t word_begin(int p) const { return (parts_.begin(p) + 63) / 64; }
  uint64_t word_end(int p) const { return (parts_.end(p) + 63) / 64; }

  std::vector<uint64_t> word_items() const {
    std::vector<uint64_t> items(parts_.parts());
    for (int p = 0; p < parts_.parts(); ++p) items[p] = word_end(p) - word_begin(p);
    return items;
  }
  const Csr<Id>& g_;
  Source source_;
  const Partitioning& parts_;
  BfsOptions opt_;
  Claims claims_;
  uint64_t vertices_ = 0, edges_ = 0;      // of the whole search (a rank's: every rank's)
  uint64_t ids_ = 0;                       // the id space the lists name
  NumaArray<Id> parent_;                   // internal ids
  Bitmap front_, next_;                    // the frontier and the next, both directions
  std::vector<std::atomic<uint64_t>> claim_;
  ReachedDegrees<Id> reached_;             // nedge; and vertices [reached_.listed(), n) have no list
  LevelIo level_io_;                       // this level's storage traffic (out-of-core and DAX)
};

}  // namespace strata
