// Direction-optimizing BFS (Beamer et al.): top-down from a queue while the frontier is small, bottom-up
// over a bitmap frontier while it is large. Work is split into the partitions' vertex ranges; a thread
// serves its home part's chunks first (NUMA-local rows), then helps the others.
//
// The lists a step scans in DRAM are either the whole adjacency (in-core) or the edge cache's prefixes
// (out-of-core). In the latter case a step marks the vertices whose answer may lie in a list's tail --
// top-down: frontier vertices with a tail; bottom-up: unvisited vertices whose prefix found no parent --
// and then reads those tails from storage in offset order, merged into large requests, each thread with
// its own io_uring queue, scanning each buffer as it completes.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <span>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/ids.hpp"
#include "bfs/bitmap.hpp"
#include "engine/csr.hpp"
#include "engine/edge_cache.hpp"
#include "engine/topology.hpp"
#include "generators/edge_stream.hpp"
#include "bfs/tail_reads.hpp"
#include "storage/csr_files.hpp"

namespace strata {

enum class Direction { kHybrid, kTopDown, kBottomUp };

struct BfsOptions {
  // Switch to bottom-up when the frontier's edges exceed unexplored edges / alpha; back to top-down when the
  // frontier shrinks below n / beta. NETALX uses alpha=64, beta=4; on Kronecker graphs with degree-ordered
  // ids 15 and 18 measured faster here (bench/tune_alpha_beta.sh, figures in bench/README.md).
  double alpha = 15;
  double beta = 18;
  Direction direction = Direction::kHybrid;
  bool trace = false;
};

struct LevelTrace {
  bool bottom_up;
  uint64_t frontier;        // vertices in the frontier this level expanded
  uint64_t edges_examined;  // adjacency entries read (DRAM and storage)
  double seconds;
  LevelIo io;
};

struct SearchStats {
  std::vector<LevelTrace> levels;  // filled when options.trace
  uint64_t edges_examined = 0;     // in DRAM and from storage
  LevelIo io;                      // the storage part
};

template <class Id>
class HybridBfs {
 public:
  // In-core: every list in DRAM. The search keeps references to g and parts (not to temporaries).
  HybridBfs(const Csr<Id>& g, const Partitioning& parts, const BfsOptions& options)
      : HybridBfs(g, g.adj.data(), g.offsets, parts, options) {}
  HybridBfs(const Csr<Id>& g, Partitioning&& parts, const BfsOptions& options) = delete;

  // Out-of-core: the cache's prefixes in DRAM, the tails in the on-disk CSR's files (g holds its offsets).
  // The partitions must be the files' (one file per part).
  HybridBfs(const Csr<Id>& g, const EdgeCache<Id>& cache, const CsrFiles& files, const IoOptions& io,
            const Partitioning& parts, const BfsOptions& options)
      : HybridBfs(g, cache.adj.data(), cache.offsets, parts, options) {
    has_tails_ = cache.adj.size() < g.directed_edges();
    reads_ = std::make_unique<TailReads<Id>>(g, cache.offsets, files, io, parts, active_);
  }

  // DAX: the cache's prefixes in DRAM, the tails read in place from the mapped partition files (mapped[p] is
  // partition p's first entry); nothing is copied and nothing written.
  // Without a cache and with one partition the mapping is one array of whole lists: the in-core kernel runs
  // on it directly (no prefix/tail split per vertex).
  HybridBfs(const Csr<Id>& g, const EdgeCache<Id>& cache, std::vector<const Id*> mapped, const CsrLayout& layout,
            const Partitioning& parts, const BfsOptions& options)
      : HybridBfs(g, whole_mapping(cache, layout) ? mapped[0] : cache.adj.data(),
                  whole_mapping(cache, layout) ? g.offsets : cache.offsets, parts, options) {
    if (layout.bounds != parts.bounds) throw Error("internal error: search partitions differ from the CSR files'");
    mapped_dir_ = layout.dir;
    mapped_first_ = layout.part_first;
    if (whole_mapping(cache, layout)) {
      all_in_place_ = true;
      whole_base_ = mapped[0];
      if constexpr (sizeof(Id) == 4) {  // every 32-bit id a safe frontier lookup: no check per entry (9% at SCALE 20)
        front_ = Bitmap(g.n, uint64_t(1) << 32);
        next_ = Bitmap(g.n, uint64_t(1) << 32);
        place_bitmaps();
      }
      return;
    }
    mapped_ = std::move(mapped);
    has_tails_ = cache.adj.size() < g.directed_edges();
  }

  // DRAM taken by the I/O buffers (all threads).
  uint64_t io_buffer_bytes() const { return reads_ ? reads_->buffer_bytes() : 0; }
  bool registered_buffers() const { return reads_ && reads_->registered_buffers(); }

 private:
  void place_bitmaps() {
    for (int p = 0; p < parts_.parts(); ++p) {
      front_.prefer_node(parts_.begin(p) / 64, (parts_.end(p) + 63) / 64, parts_.node[p]);
      next_.prefer_node(parts_.begin(p) / 64, (parts_.end(p) + 63) / 64, parts_.node[p]);
    }
  }

  static bool whole_mapping(const EdgeCache<Id>& cache, const CsrLayout& layout) {
    return cache.adj.size() == 0 && layout.parts() == 1;
  }

  HybridBfs(const Csr<Id>& g, const Id* dram_adj, const BlockOffsets& dram_offsets, const Partitioning& parts,
            const BfsOptions& options)
      : g_(g), adj_(dram_adj), off_(dram_offsets), parts_(parts), opt_(options), parent_(g.n), front_(g.n), next_(g.n) {
    const int k = parts.parts();
    for (int p = 0; p < k; ++p) {
      cur_.emplace_back(parts.end(p) - parts.begin(p));
      next_queue_.emplace_back(parts.end(p) - parts.begin(p));
      parent_.prefer_node(parts.begin(p), parts.end(p), parts.node[p]);
    }
    place_bitmaps();
    cur_size_.assign(k, 0);
    next_size_ = std::vector<std::atomic<uint64_t>>(k);
    claim_ = std::vector<std::atomic<uint64_t>>(k);
    // Ids are ordered by degree, so vertices with no edge form a tail that bottom-up never needs to visit.
    active_ = g.n;
    while (active_ > 0 && g.degree(active_ - 1) == 0) --active_;
  }

 public:
  // Searches from internal vertex `root`; writes parent_out[input label] = parent's input label (root: itself,
  // unreached: kNoVertex<Id>). Resetting the state and translating labels are part of the search.
  SearchStats search(Id root, Id* parent_out) {
    SearchStats stats;
    reset();
    parent_[root] = root;
    const int home = parts_.part_of(root);
    cur_[home][0] = root;
    cur_size_[home] = 1;
    uint64_t frontier = 1, scout = g_.degree(root), edges_to_check = g_.directed_edges();
    while (frontier > 0) {
      const bool go_up = opt_.direction == Direction::kBottomUp ||
                         (opt_.direction == Direction::kHybrid && double(scout) > double(edges_to_check) / opt_.alpha);
      if (go_up) {
        queue_to_bitmap();
        uint64_t awake = frontier, old_awake;
        do {
          old_awake = awake;
          const double t0 = omp_get_wtime();
          uint64_t examined = 0;
          // Lists read in place from a mapping are range-checked; DRAM lists are not (one dispatch a step).
          awake = all_in_place_ ? bottom_up_step<true>(examined) : bottom_up_step<false>(examined);
          check_storage_ids();
          record(stats, true, old_awake, examined, t0);
          front_.swap(next_);
        } while (awake > 0 && (opt_.direction == Direction::kBottomUp || awake >= old_awake ||
                               double(awake) > double(g_.n) / opt_.beta));
        frontier = bitmap_to_queue();
        scout = 1;
      } else {
        edges_to_check -= std::min(edges_to_check, scout);
        const double t0 = omp_get_wtime();
        uint64_t examined = 0;
        const uint64_t expanded = frontier;
        frontier = all_in_place_ ? top_down_step<true>(scout, examined) : top_down_step<false>(scout, examined);
        check_storage_ids();
        record(stats, false, expanded, examined, t0);
      }
    }
    const Id* to_input = g_.to_input.data();
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < g_.n; ++v) {
      const Id p = parent_[v];
      parent_out[to_input[v]] = p == kNoVertex<Id> ? kNoVertex<Id> : to_input[p];
    }
    return stats;
  }

  // The internal parent array, idle between searches (a search resets it): lent out, e.g. to validation,
  // so that work between searches adds nothing to the peak. Read reached_raw_degree_sum() first.
  std::span<int32_t> idle_memory() {
    return {reinterpret_cast<int32_t*>(parent_.data()), parent_.bytes() / sizeof(int32_t)};
  }

  // Sum of raw degrees over reached vertices of the last search: 2 * nedge by the reference rule.
  uint64_t reached_raw_degree_sum() const {
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (uint64_t v = 0; v < g_.n; ++v) sum += parent_[v] != kNoVertex<Id> ? g_.raw_degree(v) : 0;
    return sum;
  }

 private:
  static constexpr uint64_t kQueueChunk = 64;   // frontier vertices per top-down work item
  static constexpr uint64_t kWordChunk = 16;    // bitmap words (1024 vertices) per bottom-up work item
  static constexpr size_t kLocalQueue = 512;    // discovered vertices buffered per thread before publishing

  void record(SearchStats& s, bool up, uint64_t frontier, uint64_t examined, double t0) {
    if (all_in_place_) level_io_.edges_storage = examined;
    s.edges_examined += examined;
    s.io.edges_storage += level_io_.edges_storage;
    s.io.bytes_read += level_io_.bytes_read;
    s.io.requests += level_io_.requests;
    if (opt_.trace) s.levels.push_back({up, frontier, examined, omp_get_wtime() - t0, level_io_});
    level_io_ = LevelIo{};
  }

  void reset() {
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < g_.n; ++v) parent_[v] = kNoVertex<Id>;
    if (reads_) reads_->clear();  // a search ended by a read error leaves marks
    bad_entry_.store(nullptr, std::memory_order_relaxed);
    level_io_ = LevelIo{};
    std::fill(cur_size_.begin(), cur_size_.end(), 0);
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

  // An entry read in place from a mapping (DAX) that is no vertex id: the file changed after it was checked
  // at load. Such an entry is never used; the first one found ends the search with the file and offset.
  void note_bad(const Id* at) {
    const Id* none = nullptr;
    bad_entry_.compare_exchange_strong(none, at, std::memory_order_relaxed);
  }
  // Bottom-up over a tail read in place from a mapping: the first neighbour in the frontier (kNoVertex<Id> if none,
  // or if an entry is no vertex id, which is noted). Out of line: it is the cold path of the in-core loop,
  // whose code it would otherwise slow down (measured: 7% at SCALE 20).
  [[gnu::noinline]] Id mapped_tail_parent(const uint64_t* front, const Id* first, const Id* last, uint64_t& scanned) {
    const Id* it = first_marked_or_invalid(front, first, last, g_.n);
    scanned += uint64_t(std::min(it + 1, last) - first);
    if (it == last) return kNoVertex<Id>;
    const Id found = *it;
    if (found < g_.n) return found;
    note_bad(it);
    return kNoVertex<Id>;
  }

  // Whether every id in [first, last) (read in place from a mapping) is a vertex; notes the first that is not.
  bool ids_in_range(const Id* first, const Id* last) {
    Id max = 0;
    for (const Id* it = first; it != last; ++it) max = std::max(max, *it);
    if (max < g_.n) [[likely]] return true;
    const Id* bad = std::find_if(first, last, [&](Id v) { return v >= g_.n; });
    note_bad(bad == last ? first : bad);  // (changed again meanwhile: report where the list starts)
    return false;
  }
  void check_storage_ids() const {
    const Id* at = bad_entry_.load(std::memory_order_relaxed);
    if (!at) return;
    const Id value = *at;
    auto fail = [&](int p, const Id* base) {
      throw Error(fmt::format("{}/{} is corrupted: the entry at offset {} holds {}, not a vertex id (the file changed "
                              "after it was checked at load); remove {} to rebuild it",
                              mapped_dir_, CsrFiles::adj_name(p), uint64_t(at - base) * sizeof(Id), uint64_t(value),
                              mapped_dir_));
    };
    if (whole_base_) fail(0, whole_base_);
    for (size_t p = 0; p < mapped_.size(); ++p)
      if (at >= mapped_[p] && at < mapped_[p] + (mapped_first_[p + 1] - mapped_first_[p])) fail(int(p), mapped_[p]);
    throw Error(fmt::format("internal error: adjacency entry {} is no vertex id", uint64_t(value)));
  }

  void reset_claims() {
    for (auto& c : claim_) c.store(0, std::memory_order_relaxed);
  }

  // kChecked: adj_ is a mapping (DAX without a cache), so its ids are checked before use.
  template <bool kChecked>
  uint64_t top_down_step(uint64_t& scout, uint64_t& examined) {
    const int k = parts_.parts();
    std::vector<uint64_t> chunks(k);
    for (int p = 0; p < k; ++p) {
      chunks[p] = (cur_size_[p] + kQueueChunk - 1) / kQueueChunk;
      next_size_[p].store(0, std::memory_order_relaxed);
    }
    reset_claims();
    const int threads = omp_get_max_threads();
    std::vector<std::vector<std::vector<Id>>> local(threads, std::vector<std::vector<Id>>(k));
    auto publish = [&](std::vector<Id>& l, int q) {
      if (l.empty()) return;
      const uint64_t at = next_size_[q].fetch_add(l.size(), std::memory_order_relaxed);
      std::memcpy(next_queue_[q].data() + at, l.data(), l.size() * sizeof(Id));
      l.clear();
    };
    // Claims the unvisited among v's neighbours [first, last); returns the degrees it adds to the frontier.
    auto expand = [&](Id u, const Id* first, const Id* last) {
      std::vector<std::vector<Id>>& mine = local[omp_get_thread_num()];
      uint64_t added = 0;
      for (const Id* it = first; it != last; ++it) {
        const Id v = *it;
        if (std::atomic_ref<Id>(parent_[v]).load(std::memory_order_relaxed) != kNoVertex<Id>) continue;
        Id expected = kNoVertex<Id>;
        if (std::atomic_ref<Id>(parent_[v]).compare_exchange_strong(expected, u, std::memory_order_relaxed)) {
          const int q = k == 1 ? 0 : parts_.part_of(v);
          mine[q].push_back(v);
          if (mine[q].size() == kLocalQueue) publish(mine[q], q);
          added += g_.degree(v);
        }
      }
      return added;
    };
    uint64_t new_scout = 0, new_examined = 0, in_place = 0;
    const bool tails = has_tails_, mapped = !mapped_.empty();
#pragma omp parallel reduction(+ : new_scout, new_examined, in_place)
    for_each_chunk(chunks, [&](int p, uint64_t c) {
      const uint64_t end = std::min(cur_size_[p], (c + 1) * kQueueChunk);
      for (uint64_t i = c * kQueueChunk; i < end; ++i) {
        const Id u = cur_[p][i];
        const uint64_t b = off_[u], e = off_[u + 1];
        new_examined += e - b;
        if (!kChecked || ids_in_range(adj_ + b, adj_ + e)) new_scout += expand(u, adj_ + b, adj_ + e);
        if (tails && e - b < g_.degree(u)) {
          if (mapped) {
            const Id* list = mapped_[p] + (g_.offsets[u] - mapped_first_[p]);  // u's whole list, in place
            const uint64_t degree = g_.degree(u);
            in_place += degree - (e - b);
            if (ids_in_range(list + (e - b), list + degree)) new_scout += expand(u, list + (e - b), list + degree);
          } else {
            reads_->mark(u);
          }
        }
      }
    });
    level_io_.edges_storage += in_place;
    new_examined += in_place;
    if (tails && !mapped) {
      std::atomic<uint64_t> tail_scout{0};
      reads_->read([&](Id u, const Id* first, const Id* last) {
        tail_scout.fetch_add(expand(u, first, last), std::memory_order_relaxed);  // checked by reads_
        return uint64_t(last - first);
      }, level_io_);
      new_scout += tail_scout.load();
      new_examined += level_io_.edges_storage;
    }
    for (auto& mine : local)
      for (int q = 0; q < k; ++q) publish(mine[q], q);
    scout = new_scout;
    examined = new_examined;
    uint64_t total = 0;
    for (int p = 0; p < k; ++p) {
      std::swap(cur_[p], next_queue_[p]);
      cur_size_[p] = next_size_[p].load();
      total += cur_size_[p];
    }
    return total;
  }

  template <bool kChecked>
  uint64_t bottom_up_step(uint64_t& examined) {
    const int k = parts_.parts();
    std::vector<uint64_t> chunks(k);
    for (int p = 0; p < k; ++p) chunks[p] = (word_end(p) - word_begin(p) + kWordChunk - 1) / kWordChunk;
    reset_claims();
    uint64_t awake = 0, new_examined = 0;
    const uint64_t* front = front_.words();
    uint64_t* next = next_.words();
    uint64_t* tails = has_tails_ && reads_ ? reads_->mark_words() : nullptr;
    const bool mapped = has_tails_ && !mapped_.empty();
    const uint64_t n = g_.n;
    uint64_t in_place = 0;
#pragma omp parallel reduction(+ : awake, new_examined, in_place)
    for_each_chunk(chunks, [&](int p, uint64_t c) {
      const uint64_t w_end = std::min(word_end(p), word_begin(p) + (c + 1) * kWordChunk);
      const Id* part_lists = mapped ? mapped_[p] : nullptr;
      const uint64_t part_first = mapped ? mapped_first_[p] : 0;
      for (uint64_t w = word_begin(p) + c * kWordChunk; w < w_end; ++w) {
        uint64_t bits = 0, tail_bits = 0;
        const uint64_t v_end = std::min(active_, w * 64 + 64);
        // Vertices in order: each list ends where the next begins, one offsets lookup per vertex.
        uint64_t begin = w * 64 < v_end ? off_[w * 64] : 0;
        for (uint64_t v = w * 64; v < v_end; ++v) {
          const uint64_t end = off_[v + 1];
          if (parent_[v] == kNoVertex<Id>) {
            const Id* hit;
            if constexpr (kChecked && sizeof(Id) == 8) hit = first_marked_or_invalid(front, adj_ + begin, adj_ + end, n);
            else hit = first_marked(front, adj_ + begin, adj_ + end);  // 32-bit ids: the bitmaps' guard makes it safe
            const uint64_t i = uint64_t(hit - adj_);
            new_examined += std::min(i + 1, end) - begin;
            if (kChecked && i < end && adj_[i] >= n) [[unlikely]] {
              note_bad(adj_ + i);
            } else if (i < end) {
              parent_[v] = adj_[i];
              bits |= uint64_t(1) << (v & 63);
              ++awake;
            } else if (tails && end - begin < g_.degree(v)) {
              tail_bits |= uint64_t(1) << (v & 63);
            } else if (mapped && end - begin < g_.degree(v)) {  // the tail, in place
              const Id found = mapped_tail_parent(front, part_lists + (g_.offsets[v] - part_first) + (end - begin),
                                                  part_lists + (g_.offsets[v + 1] - part_first), in_place);
              if (found != kNoVertex<Id>) {
                parent_[v] = found;
                bits |= uint64_t(1) << (v & 63);
                ++awake;
              }
            }
          }
          begin = end;
        }
        next[w] = bits;
        if (tails) tails[w] = tail_bits;
      }
    });
    level_io_.edges_storage += in_place;
    new_examined += in_place;
    if (tails) {
      std::atomic<uint64_t> found{0};
      reads_->read([&](Id v, const Id* first, const Id* last) {
        if (parent_[v] != kNoVertex<Id>) return uint64_t(0);  // found in an earlier piece of a long list
        const Id* it = first_marked(front, first, last);
        if (it == last) return uint64_t(last - first);
        parent_[v] = *it;
        next_.set_atomic(v);
        found.fetch_add(1, std::memory_order_relaxed);
        return uint64_t(it - first + 1);
      }, level_io_);
      awake += found.load();
      new_examined += level_io_.edges_storage;
    }
    examined = new_examined;
    return awake;
  }

  // Parts own whole words; only the last non-empty part may end mid-word (at n), and parts after it are empty.
  uint64_t word_begin(int p) const { return (parts_.begin(p) + 63) / 64; }
  uint64_t word_end(int p) const { return (parts_.end(p) + 63) / 64; }

  void queue_to_bitmap() {
    front_.clear_words(0, front_.word_count());
    for (int p = 0; p < parts_.parts(); ++p) {
      const Id* q = cur_[p].data();
#pragma omp parallel for schedule(static)
      for (uint64_t i = 0; i < cur_size_[p]; ++i) front_.set_atomic(q[i]);
    }
  }

  uint64_t bitmap_to_queue() {
    uint64_t total = 0;
    for (int p = 0; p < parts_.parts(); ++p) {
      std::atomic<uint64_t> size{0};
      const uint64_t* words = front_.words();
      Id* q = cur_[p].data();
#pragma omp parallel
      {
        std::vector<Id> local;
#pragma omp for schedule(static) nowait
        for (uint64_t w = word_begin(p); w < word_end(p); ++w)
          for (uint64_t bits = words[w]; bits; bits &= bits - 1) local.push_back(Id(w * 64 + __builtin_ctzll(bits)));
        const uint64_t at = size.fetch_add(local.size());
        if (!local.empty()) std::memcpy(q + at, local.data(), local.size() * sizeof(Id));
      }
      cur_size_[p] = size.load();
      total += cur_size_[p];
    }
    return total;
  }

  const Csr<Id>& g_;
  const Id* adj_;             // the lists (or prefixes) in DRAM
  const BlockOffsets& off_;   // their bounds
  const Partitioning& parts_;
  BfsOptions opt_;
  NumaArray<Id> parent_;  // internal ids; kNoVertex<Id> = not reached
  Bitmap front_, next_;
  std::vector<NumaArray<Id>> cur_, next_queue_;  // per-part frontier queues (a vertex enters once)
  std::vector<uint64_t> cur_size_;
  std::vector<std::atomic<uint64_t>> next_size_, claim_;
  uint64_t active_ = 0;  // vertices [0, active_) have edges
  bool has_tails_ = false;                  // out-of-core or DAX with lists beyond the DRAM prefixes
  std::unique_ptr<TailReads<Id>> reads_;    // out-of-core
  bool all_in_place_ = false;               // DAX without a cache: every list read from the mapping
  const Id* whole_base_ = nullptr;          // that mapping
  std::string mapped_dir_;                  // DAX: the CSR directory (for error messages)
  std::atomic<const Id*> bad_entry_{nullptr};  // DAX: the first mapped entry found out of range this search
  // DAX only: each partition's mapped file, and its first entry's index.
  std::vector<const Id*> mapped_;
  std::vector<uint64_t> mapped_first_;
  LevelIo level_io_;
};

}  // namespace strata
