// Direction-optimizing BFS (Beamer et al.): top-down from a queue while the frontier is small, bottom-up
// over a bitmap frontier while it is large. Work is split into the partitions' vertex ranges; a thread
// serves its home part's chunks first (NUMA-local rows), then helps the others.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <span>
#include <vector>

#include "bfs/bitmap.hpp"
#include "engine/csr.hpp"
#include "engine/topology.hpp"

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
  uint64_t edges_examined;  // adjacency entries read
  double seconds;
};

struct SearchStats {
  std::vector<LevelTrace> levels;  // filled when options.trace
  uint64_t edges_examined = 0;
};

template <class Id>
class HybridBfs {
 public:
  static constexpr Id kNone = Csr<Id>::kNone;

  HybridBfs(const Csr<Id>& g, const Partitioning& parts, const BfsOptions& options)
      : g_(g), parts_(parts), opt_(options), parent_(g.n), front_(g.n), next_(g.n) {
    const int k = parts.parts();
    for (int p = 0; p < k; ++p) {
      cur_.emplace_back(parts.end(p) - parts.begin(p));
      next_queue_.emplace_back(parts.end(p) - parts.begin(p));
      parent_.prefer_node(parts.begin(p), parts.end(p), parts.node[p]);
      front_.prefer_node(parts.begin(p) / 64, (parts.end(p) + 63) / 64, parts.node[p]);
      next_.prefer_node(parts.begin(p) / 64, (parts.end(p) + 63) / 64, parts.node[p]);
    }
    cur_size_.assign(k, 0);
    next_size_ = std::vector<std::atomic<uint64_t>>(k);
    claim_ = std::vector<std::atomic<uint64_t>>(k);
    // Ids are ordered by degree, so vertices with no edge form a tail that bottom-up never needs to visit.
    active_ = g.n;
    while (active_ > 0 && g.degree(active_ - 1) == 0) --active_;
  }

  // Searches from internal vertex `root`; writes parent_out[input label] = parent's input label (root: itself,
  // unreached: kNone). Resetting the state and translating labels are part of the search.
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
          awake = bottom_up_step(examined);
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
        frontier = top_down_step(scout, examined);
        record(stats, false, expanded, examined, t0);
      }
    }
    const Id* to_input = g_.to_input.data();
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < g_.n; ++v) {
      const Id p = parent_[v];
      parent_out[to_input[v]] = p == kNone ? kNone : to_input[p];
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
    for (uint64_t v = 0; v < g_.n; ++v) sum += parent_[v] != kNone ? g_.raw_degree(v) : 0;
    return sum;
  }

 private:
  static constexpr uint64_t kQueueChunk = 64;   // frontier vertices per top-down work item
  static constexpr uint64_t kWordChunk = 16;    // bitmap words (1024 vertices) per bottom-up work item
  static constexpr size_t kLocalQueue = 512;    // discovered vertices buffered per thread before publishing

  void record(SearchStats& s, bool up, uint64_t frontier, uint64_t examined, double t0) {
    s.edges_examined += examined;
    if (opt_.trace) s.levels.push_back({up, frontier, examined, omp_get_wtime() - t0});
  }

  void reset() {
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < g_.n; ++v) parent_[v] = kNone;
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

  void reset_claims() {
    for (auto& c : claim_) c.store(0, std::memory_order_relaxed);
  }

  uint64_t top_down_step(uint64_t& scout, uint64_t& examined) {
    const int k = parts_.parts();
    std::vector<uint64_t> chunks(k);
    for (int p = 0; p < k; ++p) {
      chunks[p] = (cur_size_[p] + kQueueChunk - 1) / kQueueChunk;
      next_size_[p].store(0, std::memory_order_relaxed);
    }
    reset_claims();
    uint64_t new_scout = 0, new_examined = 0;
#pragma omp parallel reduction(+ : new_scout, new_examined)
    {
      std::vector<std::vector<Id>> local(k);
      for (auto& l : local) l.reserve(kLocalQueue);
      auto publish = [&](int q) {
        if (local[q].empty()) return;
        const uint64_t at = next_size_[q].fetch_add(local[q].size(), std::memory_order_relaxed);
        std::memcpy(next_queue_[q].data() + at, local[q].data(), local[q].size() * sizeof(Id));
        local[q].clear();
      };
      for_each_chunk(chunks, [&](int p, uint64_t c) {
        const uint64_t end = std::min(cur_size_[p], (c + 1) * kQueueChunk);
        for (uint64_t i = c * kQueueChunk; i < end; ++i) {
          const Id u = cur_[p][i];
          const auto nbrs = g_.neighbors(u);
          new_examined += nbrs.size();
          for (const Id v : nbrs) {
            if (std::atomic_ref<Id>(parent_[v]).load(std::memory_order_relaxed) != kNone) continue;
            Id expected = kNone;
            if (std::atomic_ref<Id>(parent_[v]).compare_exchange_strong(expected, u, std::memory_order_relaxed)) {
              const int q = k == 1 ? 0 : parts_.part_of(v);
              local[q].push_back(v);
              if (local[q].size() == kLocalQueue) publish(q);
              new_scout += g_.degree(v);
            }
          }
        }
      });
      for (int q = 0; q < k; ++q) publish(q);
    }
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

  uint64_t bottom_up_step(uint64_t& examined) {
    const int k = parts_.parts();
    std::vector<uint64_t> chunks(k);
    for (int p = 0; p < k; ++p) chunks[p] = (word_end(p) - word_begin(p) + kWordChunk - 1) / kWordChunk;
    reset_claims();
    uint64_t awake = 0, new_examined = 0;
    const uint64_t* front = front_.words();
    uint64_t* next = next_.words();
#pragma omp parallel reduction(+ : awake, new_examined)
    for_each_chunk(chunks, [&](int p, uint64_t c) {
      const uint64_t w_end = std::min(word_end(p), word_begin(p) + (c + 1) * kWordChunk);
      const Id* adj = g_.adj.data();
      for (uint64_t w = word_begin(p) + c * kWordChunk; w < w_end; ++w) {
        uint64_t bits = 0;
        const uint64_t v_end = std::min(active_, w * 64 + 64);
        // Vertices in order: each list ends where the next begins, one offsets lookup per vertex.
        uint64_t begin = w * 64 < v_end ? g_.offsets[w * 64] : 0;
        for (uint64_t v = w * 64; v < v_end; ++v) {
          const uint64_t end = g_.offsets[v + 1];
          if (parent_[v] == kNone) {
            uint64_t i = begin;  // first neighbour in the frontier: highest degree first, so usually early
            while (i < end && !((front[adj[i] >> 6] >> (adj[i] & 63)) & 1)) ++i;
            new_examined += std::min(i + 1, end) - begin;
            if (i < end) {
              parent_[v] = adj[i];
              bits |= uint64_t(1) << (v & 63);
              ++awake;
            }
          }
          begin = end;
        }
        next[w] = bits;
      }
    });
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
  const Partitioning& parts_;
  BfsOptions opt_;
  NumaArray<Id> parent_;  // internal ids; kNone = not reached
  Bitmap front_, next_;
  std::vector<NumaArray<Id>> cur_, next_queue_;  // per-part frontier queues (a vertex enters once)
  std::vector<uint64_t> cur_size_;
  std::vector<std::atomic<uint64_t>> next_size_, claim_;
  uint64_t active_ = 0;  // vertices [0, active_) have edges
};

}  // namespace strata
