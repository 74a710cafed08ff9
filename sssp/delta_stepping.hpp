// Kernel 3: single-source shortest paths in float32, as the reference 3.0.1 defines the result (SSSP.md 3.3):
// dist[v] = the least over paths of the running float32 sums fl32(d + w), -1 for unreached; so any correct
// order of relaxations gives the same bits. Delta-stepping: vertices in buckets of width delta by distance;
// a bucket's light edges (w < delta) relaxed until it settles, then its heavy edges once. Each vertex's
// distance and parent are one 64-bit word changed by compare-and-swap, only to a strictly smaller distance:
// at the end every parent edge is tight (dist[v] == fl32(dist[parent] + w)) and the parents form a tree, with
// any number of threads (an improvement of u always re-relaxes u's edges). It runs over a weighted source
// (weighted_sources.hpp): in-core lists, or on storage an edge cache with tails read or mapped. The same search
// serves each MPI rank (cluster/dist_sssp.hpp): a Relaxations policy says whose vertices it holds.
// Over lists by weight the search runs in stages (next_stage): a stage relaxes only what lands below its end, and
// at each end what lands below the next is pushed by the settled or pulled by the others, whichever reads less;
// most heavy edges are never touched. A rank's pull asks the holders of its neighbours for their distances.
#pragma once
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bfs/bitmap.hpp"
#include "bfs/tail_reads.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/movable_atomic.hpp"
#include "engine/csr.hpp"
#include "sssp/buckets.hpp"
#include "sssp/distance_word.hpp"
#include "sssp/weighted_sources.hpp"

namespace strata {

struct SsspStats {
  uint64_t reached = 0;
  uint64_t buckets = 0;      // buckets settled
  uint64_t relaxations = 0;  // successful ones
  uint64_t stage_ends = 0;   // over lists by weight: the stages' ends (next_stage)
  LevelIo io;                // on storage: the tails read
};

// A search's --trace: one line (its buckets, relaxations, reached vertices and seconds; on storage its reads).
inline std::string trace_lines(const SsspStats& s, size_t search, uint64_t root, double seconds) {
  std::string out = fmt::format("trace: sssp search {} root {} buckets {} relaxations {} reached {} time {:.6f}", search,
                                root, s.buckets, s.relaxations, s.reached, seconds);
  if (s.io.requests > 0)
    out += fmt::format(" storage_edges {} bytes_read {} io_requests {}", s.io.edges_storage, s.io.bytes_read, s.io.requests);
  return out + '\n';
}

// What the driver sees of a kernel-3 search, whichever source it runs over: one virtual call per search.
template <class Id>
class ShortestPaths {
 public:
  virtual ~ShortestPaths() = default;
  // From internal vertex `root`, resetting included: the result is left in words(), a word a vertex by internal
  // id, (distance bits, parent's internal id); unreached: (+inf, kNoVertex). Read through the graph's to_input it
  // is the answer by input label: a second copy in labels would cost 8 bytes a vertex of kernel 3's peak.
  virtual SsspStats search(Id root) = 0;
  virtual std::span<const uint64_t> words() const = 0;
  // The same words, writable: only for a planted error (--debug-corrupt-sssp).
  virtual std::span<uint64_t> words_to_plant() = 0;
  // The raw degrees (duplicates counted) of the vertices the last search reached: twice its nedge by the
  // reference's rule, as for BFS (GraphSearch::reached_raw_degree_sum).
  virtual uint64_t reached_raw_degree_sum() const = 0;
  virtual uint64_t state_bytes() const = 0;     // its O(N) arrays
  virtual uint64_t io_buffer_bytes() const = 0;  // on storage: the tail reads' buffers
};

// Whose vertices a search relaxes. OneProcess: every vertex of g, parents named by internal id. A rank's search
// (cluster/dist_sssp.hpp, RankRelaxations) holds vertices [lo, lo + g.n) of a larger id space that its lists
// name, names parents by input label, and sends the relaxations of the others' vertices:
//   lo, owns(v), name(i)       the first id held; whether v is held; the name vertex i gives as a parent
//   kRemote                    lists name vertices held elsewhere; then also:
//     send(v, d, parent)       relaxes v to d through parent at v's owner (from any OpenMP thread)
//     take(improve)            after a round: improve(i, d, parent) for each relaxation sent here (collective)
//   sum(x), least(x)           over the whole search (a rank: over every rank; collective); x a count, or an
//                              std::array of them reduced element by element in one collective
//   words_of(ids, answer)      (kRemote) for vertices held anywhere, answer(i) by the rank holding each as i: a
//                              stage end's pull asks its neighbours' distances so (collective)
//   finish(stats)              a search's counts summed likewise
//   ids(n)                     the id space the lists name (n: g's vertices); the search bounds its source's ids by it
struct OneProcessRelaxations {
  static constexpr bool kRemote = false;
  static constexpr uint64_t lo = 0;
  static constexpr bool owns(uint64_t) { return true; }
  template <class Id>
  static Id name(Id i) {
    return i;
  }
  uint64_t ids(uint64_t n) const { return n; }
  template <class T>  // a count or an array of them: over one process, itself
  T sum(const T& x) const {
    return x;
  }
  template <class T>
  T least(const T& x) const {
    return x;
  }
  void finish(SsspStats&) const {}
};

template <class Id, class Source = InCoreWeights<Id>, class Relaxations = OneProcessRelaxations>
class DeltaStepping final : public ShortestPaths<Id> {
  static_assert(sizeof(Id) == 4, "a vertex's distance and parent share one 64-bit word: 32-bit ids");

 public:
  DeltaStepping(const Csr<Id>& g, Source source, float delta, Relaxations relaxations = {})
      : g_(g), source_(std::move(source)), delta_(delta), remote_(std::move(relaxations)), state_(g.n), far_(g.n),
        done_(kAlongside ? g.n : 0),
        hubs_(*std::ranges::partition_point(std::views::iota(uint64_t(0), g.n),
                                            [&g](uint64_t v) { return g.degree(v) >= kExactDegree; })),
        marks_((g.n + 63) / 64), reached_(g) {
    if constexpr (requires { source_.limit_ids(0); }) source_.limit_ids(remote_.ids(g.n));
  }
  // In-core, weights: one per entry of g's adjacency (Csr<Id, float>'s, or kept beside an unweighted graph).
  DeltaStepping(const Csr<Id>& g, const float* weights, float delta)
    requires std::is_same_v<Source, InCoreWeights<Id>>
      : DeltaStepping(g, Source(g, weights, delta), delta) {}
  DeltaStepping(const Csr<Id, float>& g, float delta)
    requires std::is_same_v<Source, InCoreWeights<Id>>
      : DeltaStepping(g, Source(g, g.weights.data(), delta, g.light_below), delta) {}

  SsspStats search(Id root) override {
    if constexpr (Relaxations::kRemote) throw Error("internal error: a rank's search names its results by its driver");
    SsspStats stats = levels(root);
    uint64_t reached = 0;
#pragma omp parallel for schedule(static) reduction(+ : reached)
    for (uint64_t v = 0; v < g_.n; ++v) reached += state_[v] != kUnreached;
    stats.reached = reached;
    return stats;
  }
  // The result by input label: dist_out (-1.0f unreached) and parent_out (the parent's input label; the root its
  // own; kNoVertex unreached), for tests and tools that compare with the reference's arrays.
  SsspStats search(Id root, float* dist_out, Id* parent_out) {
    SsspStats stats = search(root);
    translate(dist_out, parent_out);
    return stats;
  }
  std::span<const uint64_t> words() const override { return state_; }
  std::span<uint64_t> words_to_plant() override { return state_; }

  // The search itself, from `root` (an id of the whole space; collective across ranks), leaving each vertex's
  // (distance, parent) word in state().
  SsspStats levels(Id root) {
    SsspStats stats;
    if constexpr (requires { source_.reset(); }) source_.reset();
    const uint64_t n = g_.n;
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < n; ++v) state_[v] = kUnreached;
    far_.clear();
    far_least_.store(UINT64_MAX, std::memory_order_relaxed);
    if constexpr (kAlongside) done_.clear();
    anchor_ = 0.0f;
    early_.clear();
    width_ = kFirstStage;
    settled_ = 0;
    if constexpr (kStaged) vertices_ = remote_.sum(g_.n);
    cut_ = kStaged ? std::max<uint64_t>(bucket_of(stage_end()), 1) : UINT64_MAX;
    cut_dist_ = first_in_bucket(cut_);
    buckets_before_ = UINT64_MAX;
    window_end_ = kWindow;
    bins_.assign(size_t(omp_get_max_threads()), {});
    due_.assign(bins_.size(), {});
    due_long_.assign(bins_.size(), {});
    if (remote_.owns(root)) {
      const Id i = Id(root - remote_.lo);
      state_[i] = pack(0.0f, remote_.name(i));
      buckets::file(bins_[0], 0, i);
    }
    // Each bucket in turn: b again where a heavy edge rounded back into it, else the first holding entries,
    // once every tail due by then has been read.
    for (uint64_t b = 0; next_bucket(b, stats);) {
      std::vector<Id> settled, frontier = gather(b);  // settled: every vertex the bucket held, for its heavy edges
      uint64_t count = 0;  // the bucket's settled vertices on every rank: exact from the round that leaves none
      for (bool more = true; more;) {
        relax_all(keep_current(frontier, b, settled), stats, /*light=*/true);
        frontier = gather(b);
        // Whether a frontier is left anywhere and what the bucket settled, in one collective: across ranks each
        // costs a latency, and a bucket makes several.
        const std::array<uint64_t, 2> left = remote_.sum(std::array<uint64_t, 2>{frontier.size(), settled.size()});
        more = left[0] > 0;
        count = left[1];
      }
      if (count > 0) {
        ++stats.buckets;
        settled_ += count;
        // A vertex improved again within the bucket came back in a later light round: its heavy edges once. Most
        // buckets settle in one round, whose vertices are already in order, each once.
        if (std::adjacent_find(settled.begin(), settled.end(), std::greater_equal<Id>()) != settled.end())
          buckets::order_unique(settled, marks_);
        relax_all(settled, stats, /*light=*/false);
      }
    }
    bins_.clear();
    due_.clear();
    due_long_.clear();
    source_.check();
    remote_.finish(stats);
    return stats;
  }
  const std::vector<uint64_t>& state() const { return state_; }  // (distance bits, parent) by vertex
  const Relaxations& relaxations() const { return remote_; }

  uint64_t state_bytes() const override {
    uint64_t bytes = g_.n * sizeof(uint64_t) + (far_.word_count() + done_.word_count() + marks_.size()) * sizeof(uint64_t);
    if constexpr (requires { source_.state_bytes(); }) bytes += source_.state_bytes();
    return bytes;
  }
  uint64_t io_buffer_bytes() const override {
    if constexpr (requires { source_.io_buffer_bytes(); }) return source_.io_buffer_bytes();
    return 0;
  }

  uint64_t reached_raw_degree_sum() const override {
    const uint64_t* state = state_.data();
    return reached_.sum([state](uint64_t v) { return state[v] == kUnreached; });
  }

 private:
  static constexpr uint64_t kUnreached = distance_word::kUnreached<Id>;
  // Tails on storage (one process, or a rank: the relaxations sent to this rank are taken after a read, never
  // during it): a heavy read's tails that came along are relaxed too (read_marked).
  static constexpr bool kAlongside = Source::kDefers;
  static constexpr size_t kChunk = 64;  // vertices a thread takes at a time in a round
  static uint64_t pack(float d, Id parent) { return distance_word::pack(d, parent); }
  static float dist_of(uint64_t s) { return distance_word::dist_of(s); }
  static Id parent_of(uint64_t s) { return distance_word::parent_of<Id>(s); }
  uint64_t bucket_of(float d) const { return distance_word::bucket_of(d, delta_); }

  // The frontier's vertices whose distance still lies in bucket b, each once, also added to `settled`.
  std::vector<Id>& keep_current(std::vector<Id>& frontier, uint64_t b, std::vector<Id>& settled) {
    buckets::keep_current(frontier, b, settled, [&](Id v) { return bucket_of(dist_of(state_[v])); }, marks_);
    return frontier;
  }
  std::vector<Id> gather(uint64_t b) { return buckets::gather(bins_, b); }
  static uint64_t first_filled(const buckets::Bins<Id>& lists, uint64_t from) { return buckets::first_filled(lists, from); }

  // The next bucket from b on (b itself if entries came back into it); false when none is left. Once a short
  // deferred tail is due at or before it, every deferred tail is read (reading one early is always correct: its
  // vertex is settled), so a pass over the files serves as many buckets as the lightest tail weight spans -- 1649
  // requests a search became 481 at SCALE 18 (reading only those due made as many passes as buckets). A tail of a
  // page or more (the source's long_tail) is read alone when due instead: a hub's tail falls due soon after its
  // vertex settles, and made every short tail deferred so far be read with it, so that each pass read most of the
  // short tails' span for a few of them (SCALE 22 under a 146 MB budget: 2.47 GB and 42k requests a search
  // became 1.58 GB and 25k). Their edges may fill an earlier bucket, so it is looked for again.
  // A stage ends where the next bucket lies at or past its cut (next_stage): the tails due by then are read first,
  // those due later are not needed. Due tails are looked for from bucket 0, not b: a stage end's push files tails
  // due below the bucket the search is at, and one left there was never read (a vertex settled, then improved).
  // One collective a look: the next bucket, the window's next move and the first due tails, least over the ranks.
  bool next_bucket(uint64_t& b, SsspStats& stats) {
    for (;;) {
      const std::array<uint64_t, 4> least = remote_.least(std::array<uint64_t, 4>{
          first_filled(bins_, b), far_least_.load(std::memory_order_relaxed),
          Source::kDefers ? first_filled(due_, 0) : UINT64_MAX,
          Source::kDefers ? first_filled(due_long_, 0) : UINT64_MAX});
      const uint64_t next = least[0];
      if (next == UINT64_MAX && file_far(least[1])) continue;
      if constexpr (Source::kDefers) {
        const uint64_t upto = std::min(next, cut_ - 1);
        if (const uint64_t due = least[2]; due != UINT64_MAX && due <= upto) {
          mark_due(due_long_, cut_ - 1);
          mark_due(due_, cut_ - 1);
          read_heavy(stats);
          continue;
        }
        if (const uint64_t due = least[3]; due != UINT64_MAX && due <= upto) {
          mark_due(due_long_, upto);
          read_heavy(stats);
          continue;
        }
      }
      if constexpr (kStaged) {
        if (next >= cut_ && cut_ != UINT64_MAX) {
          next_stage(stats);
          continue;
        }
      }
      if (next == UINT64_MAX) return false;
      b = next;
      return true;
    }
  }

  // The end of a stage: every bucket below the cut is settled, and every edge from a settled vertex that lands
  // below it has been relaxed, so each distance below the cut is final. Of the edges left, those that land below
  // the next cut (kStageGrowth times farther) must be relaxed before the next stage settles anything, and only
  // toward vertices not yet settled: either the settled push them (each reads its list on to the next cut: few
  // vertices early on, the hubs, for a sliver of their lists) or the others pull them (each reads its own list up
  // to its present distance or the next cut, whichever is less, and takes the best through a settled neighbour:
  // few vertices late, mostly of low degree). Whichever the source says costs less (band_cost) is done: a hub's
  // tail is read for a few percent of its entries, not whole. What lands past the cut is not filed, so a stage
  // ends with nothing queued; after a stage that settled nothing one last pull is made with no cut after it, so a
  // vertex reached only over a pruned edge is found however far, and the search ends when nothing is left.
  // Once the anchor has moved, the few settled below it push before a pull, and the pull takes only entries
  // lighter than its bound less the anchor: a vertex not yet reached otherwise read its list up to the cut, most of
  // it. SCALE 24 out of core (--dram-budget 538201056, 8 roots): 15.27 GB read became 11.02 GB, and 2.83 GB with
  // the first stage narrowed to 0.01 (kFirstStage), which before read more (16.19 GB): the pull's limit counts
  // from the anchor, so each stage's pull reads about a stage's width of each list.
  void next_stage(SsspStats& stats) {
    if constexpr (Source::kDefers) {
      for (auto* due : {&due_, &due_long_})
        for (auto& per_thread : *due) per_thread.clear();
      if constexpr (kAlongside) done_.clear();  // done meant: relaxed below this cut
    }
    const float settled_below = cut_dist_;
    // A stage that settled nothing although its cut lay past every edge below weight 1 (the spec's weights) from
    // the settled: what is left is reached only over heavier edges, or not at all.
    const bool last = (stats.buckets == buckets_before_ && settled_below >= farthest_settled(settled_below) + 1.0f) ||
                      stage_end() > kLastStage;
    if (last) {
      cut_ = UINT64_MAX;
    } else {
      place_stage_end(settled_below);
      cut_ = std::max(bucket_of(stage_end()), cut_ + 1);
    }
    cut_dist_ = first_in_bucket(cut_);
    // Those settled before the anchor last moved (few, by place_stage_end) push in either case; then every other
    // settled vertex lies at or past the anchor, and a pull needs only entries lighter than its limit less it.
    const float early = std::min(anchor_, settled_below);
    uint64_t push_cost = 0, pull_cost = 0;
    const uint64_t sampled = hubs_ + (g_.n - hubs_ + kCostStride - 1) / kCostStride;
#pragma omp parallel for schedule(static) reduction(+ : push_cost, pull_cost)
    for (uint64_t k = 0; k < sampled; ++k) {
      const uint64_t v = k < hubs_ ? k : hubs_ + (k - hubs_) * kCostStride, times = k < hubs_ ? 1 : kCostStride;
      if (g_.offsets[v] == g_.offsets[v + 1]) continue;
      const float d = distance(Id(v));
      if (d < settled_below) {
        const uint64_t band = times * source_.band_cost(Id(v), cut_dist_ - d);
        push_cost += band;
        if (d < early) pull_cost += band;
      } else {
        pull_cost += times * source_.band_cost(Id(v), pull_limit(d, early));
      }
    }
    bool pull_them = last;
    if (!last) {
      const std::array<uint64_t, 2> cost = remote_.sum(std::array<uint64_t, 2>{pull_cost, push_cost});
      pull_them = cost[0] <= cost[1];
    }
    if (pull_them) {
      if (early > 0.0f) relax_both(early_, stats);  // on every rank: collective
      pull(settled_below, early, stats);
    } else {
      push(settled_below, stats);
    }
    buckets_before_ = stats.buckets;
    ++stats.stage_ends;
  }

  // The next stage ends kStageGrowth times as far past the anchor as this one did. The anchor is the root (0)
  // until, while few vertices are settled, nothing could land in that next stage: then it moves to the nearest
  // sum past this stage's end over the settled vertices' entries, and the width starts again. A root whose edges
  // are all heavy (many have one edge) reaches the bulk of the graph only past them, and stages counted from 0
  // put that bulk in one wide stage (SCALE 24 in-core: a root at mean distance 0.91 against 0.25-0.37 took twice
  // the relaxations and time; out of core it read 4.2 GB against 0.7-1.8).
  void place_stage_end(float settled_below) {
    const float next = anchor_ + width_ * kStageGrowth;
    const bool few = settled_ < std::max(vertices_ / kAnchorShare, kAnchorLeast);
    const float nearest = few ? nearest_past(settled_below) : INFINITY;
    if (nearest >= next && nearest < INFINITY) {
      anchor_ = nearest;
      width_ = kFirstStage;
      early_ = settled_list(settled_below);  // every vertex ever to lie below the anchor: nothing else reaches it
    } else {
      width_ *= kStageGrowth;
    }
  }
  float stage_end() const { return anchor_ + width_; }
  // The least fl32(d + w) at or past `from` over the entries of the vertices settled below it (+inf for none;
  // out of core a tail counts as its prefix's last weight, or `from` where that lands below it): where the next
  // vertex can be reached, and a bound from below for every vertex not yet settled -- the pull bounded from the
  // anchor (next_stage) is correct only because of that (a tail counted as its least heavy weight put the anchor
  // past a nearer sum: R5 failed on 11 of 45 runs of 64 roots at SCALE 11-13).
  float nearest_past(float from) {
    float least = INFINITY;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : least)
    for (uint64_t v = 0; v < g_.n; ++v) {
      if (g_.offsets[v] == g_.offsets[v + 1]) continue;
      const float d = distance(Id(v));
      if (!(d < from)) continue;
      NearestPast probe{d, from};
      if constexpr (Source::kDefers) {
        if (source_.scan(Id(v), false, probe) >= 0.0f) probe.past_tail(source_.tail_floor(Id(v)));
      } else {
        source_.scan(Id(v), false, probe);
      }
      least = std::min(least, probe.least);
    }
    return std::bit_cast<float>(uint32_t(remote_.least(std::bit_cast<uint32_t>(least))));  // >= 0: bits order as values
  }
  // A scan that relaxes nothing and notes the first sum at or past `from` (lists by weight: the least).
  struct NearestPast {
    float du, from, least = INFINITY;
    void operator()(Id, float) {}
    bool beyond(float w) {
      if (du + w < from) return false;
      least = std::min(least, du + w);
      return true;
    }
    // A tail on storage whose entries weigh floor or more: the nearest sum may be any at or past both.
    void past_tail(float floor) { least = std::min(least, std::max(from, du + floor)); }
  };

  float farthest_settled(float settled_below) const {
    float farthest = 0;
#pragma omp parallel for schedule(static) reduction(max : farthest)
    for (uint64_t v = 0; v < g_.n; ++v)
      if (const float d = distance(Id(v)); d < settled_below) farthest = std::max(farthest, d);
    return std::bit_cast<float>(uint32_t(most(std::bit_cast<uint32_t>(farthest))));  // >= 0: bits order as values
  }
  uint64_t most(uint64_t x) const { return ~remote_.least(~x); }

  // Every settled vertex relaxes its edges again, now up to the new cut (those below the old one once more: they
  // improve nothing), a million vertices' worth at a time (their list, at most 4 MB, is the push's only memory).
  void push(float settled_below, SsspStats& stats) {
    const uint64_t n = most(g_.n);  // each relax_all is collective across ranks: as many on each
    for (uint64_t first = 0; first < n; first += kPushVertices)
      relax_both(settled_list(settled_below, first, first + kPushVertices), stats);
  }
  void relax_both(const std::vector<Id>& from, SsspStats& stats) {
    relax_all(from, stats, /*light=*/true);
    relax_all(from, stats, /*light=*/false);
  }
  // The vertices with edges settled below `below`, in id order, of ids [first, last).
  std::vector<Id> settled_list(float below, uint64_t first = 0, uint64_t last = UINT64_MAX) const {
    std::vector<std::vector<Id>> found(bins_.size());
    last = std::min(last, g_.n);
#pragma omp parallel
    {
      std::vector<Id>& mine = found[size_t(omp_get_thread_num())];
#pragma omp for schedule(static)
      for (uint64_t v = first; v < last; ++v)
        if (g_.offsets[v] != g_.offsets[v + 1] && distance(Id(v)) < below) mine.push_back(Id(v));
    }
    std::vector<Id> all;
    for (const auto& mine : found) all.insert(all.end(), mine.begin(), mine.end());
    return all;
  }

  // Every vertex with edges whose distance is not below settled_below takes its best distance through a settled
  // neighbour, where that lands below the new cut: a sum past it waits for the next stage's end (the vertex pulls
  // again then), so a vertex far from every settled one reads its list only up to the cut, not whole. The entries
  // a source holds in DRAM or in place are taken at once; on storage, the tails that may hold lighter ones after.
  // A rank asks the others for the distances of the neighbours they hold (pull_remote). The vertices settled
  // below `early` have pushed: a pulled entry must then land below the vertex's limit from `early` on.
  void pull(float settled_below, float early, SsspStats& stats) {
    auto limit = [&](Id v) { return pull_limit(distance(v), early); };
    std::vector<std::vector<Asked>> asked(bins_.size());  // kRemote: [thread] entries naming another rank's vertex
    auto from = [&](Id v, std::vector<std::vector<Id>>& bins, uint64_t& improved, std::vector<Asked>& ask) {
      return [&, v](Id u, float w) {
        if constexpr (Relaxations::kRemote)
          if (!remote_.owns(u)) return ask.push_back({v, u, w});
        improved += take_pulled(v, Id(u - remote_.lo), w, settled_below, bins);
      };
    };
    uint64_t improved = 0;
    const uint64_t chunks = (g_.n + kPullChunk - 1) / kPullChunk;
#pragma omp parallel reduction(+ : improved)
    {
      const size_t t = size_t(omp_get_thread_num());
      std::vector<Pulled> found;
      auto take_found = [&] {
        for (const Pulled& p : found) improved += take_pulled(p.v, p.i, p.w, settled_below, bins_[t]);
        found.clear();
      };
#pragma omp for schedule(dynamic, 1)
      for (uint64_t c = 0; c < chunks; ++c) {
        for (uint64_t v = c * kPullChunk; v < std::min(g_.n, (c + 1) * kPullChunk); ++v) {
          if (g_.offsets[v] == g_.offsets[v + 1] || distance(Id(v)) < settled_below) continue;
          Collect<decltype(take_found)> take{*this, Id(v), found, asked[t], take_found};
          source_.pull(Id(v), limit(Id(v)), take);  // on storage it marks a tail that may hold lighter ones
        }
        take_found();
      }
    }
    if constexpr (Source::kDefers) {
      std::vector<Count> counts(bins_.size());
      auto visit = [&](Id v, const NodeWeight<Id>* first, const NodeWeight<Id>* last) {
        const size_t t = size_t(omp_get_thread_num());
        auto take = from(v, bins_[t], counts[t].n, asked[t]);
        sssp_detail::pull_by_weight(first, last, limit(v), take);
      };
      source_.finish(/*light=*/false, visit, stats.io, nullptr, limit);
      for (const Count& c : counts) improved += c.n;
    }
    if constexpr (Relaxations::kRemote) improved += pull_remote(asked, settled_below);
    stats.relaxations += improved;
  }
  // The entries a vertex at distance d pulls at a stage end: those lighter than min(d, cut) - early, where every
  // settled neighbour that has not pushed lies at or past `early` (fl32(du + w) < x needs w < x - du exactly: the
  // difference is rounded up).
  float pull_limit(float d, float early) const {
    const float x = std::min(d, cut_dist_);
    return early > 0.0f ? std::nextafter(x - early, INFINITY) : x;
  }
  // A pulled entry (v, u, w) whose u another rank holds: v is this rank's, u an id of the whole space.
  struct Asked {
    Id v, u;
    float w;
  };
  // A pulled entry of v naming held vertex i: v improved through i where i is settled and the sum lands below the
  // cut (returns 1), or not.
  uint64_t take_pulled(Id v, Id i, float w, float settled_below, std::vector<std::vector<Id>>& bins) {
    const float du = distance(i), nd = du + w;
    return du < settled_below && nd < cut_dist_ ? improve(v, nd, remote_.name(i), bins) : 0;
  }
  // A pull's entries are gathered a chunk of vertices at a time, each held neighbour's word fetched as it is
  // found, and then taken: a word is a miss (the neighbours lie anywhere), and taking each as its entry was read
  // waited on them one at a time (the pull was a third of an in-core search).
  struct Pulled {
    Id v, i;  // v's entry naming held vertex i
    float w;
  };
  // take_found() empties the buffer, which stays below kPullBuffer entries whatever a list's band holds.
  template <class TakeFound>
  struct Collect {
    const DeltaStepping& s;
    Id v;
    std::vector<Pulled>& found;
    std::vector<Asked>& ask;
    TakeFound& take_found;
    void operator()(Id u, float w) {
      if constexpr (Relaxations::kRemote)
        if (!s.remote_.owns(u)) return ask.push_back({v, u, w});
      const Id i = Id(u - s.remote_.lo);
      __builtin_prefetch(&s.state_[i]);
      found.push_back({v, i, w});
      if (found.size() == kPullBuffer) take_found();
    }
  };
  // The pull's entries naming other ranks' vertices, with the distances their holders give (collective).
  uint64_t pull_remote(std::vector<std::vector<Asked>>& asked, float settled_below) {
    std::vector<Asked> all;
    for (auto& a : asked) all.insert(all.end(), a.begin(), a.end()), std::vector<Asked>().swap(a);
    std::vector<Id> ids(all.size());
    for (size_t k = 0; k < all.size(); ++k) ids[k] = all[k].u;
    const std::vector<uint64_t> words = remote_.words_of(ids, [&](Id i) { return pack(distance(i), remote_.name(i)); });
    uint64_t improved = 0;
#pragma omp parallel for schedule(static) reduction(+ : improved)
    for (size_t k = 0; k < all.size(); ++k) {
      const float du = dist_of(words[k]), nd = du + all[k].w;
      if (du < settled_below && nd < cut_dist_)
        improved += improve(all[k].v, nd, parent_of(words[k]), bins_[size_t(omp_get_thread_num())]);
    }
    return improved;
  }

  // The least distance whose bucket is k or later (+inf for none): a relaxation lands in a bucket before k exactly
  // when its sum is below it.
  float first_in_bucket(uint64_t k) const {
    if (k == UINT64_MAX) return INFINITY;
    float d = float(double(k) * double(delta_));
    while (d > 0.0f && bucket_of(std::nextafter(d, 0.0f)) >= k) d = std::nextafter(d, 0.0f);
    while (bucket_of(d) < k) d = std::nextafter(d, INFINITY);
    return d;
  }

  // Marks the deferred tails of `due` filed up to bucket `upto` to be read, and forgets them.
  void mark_due(buckets::Bins<Id>& due, uint64_t upto) {
    for (auto& per_thread : due)
      for (uint64_t k = 0; k < per_thread.size() && k <= upto; ++k) {
        for (Id u : per_thread[k])
          if (!tail_done(u)) source_.mark(u);
        std::vector<Id>().swap(per_thread[k]);
      }
  }
  // Reads every marked tail and relaxes their heavy edges.
  void read_heavy(SsspStats& stats) {
    uint64_t improved = 0;
    read_marked(/*light=*/false, stats, improved);
    stats.relaxations += improved + received();
  }

  // Relaxes the light (or heavy) edges of every vertex in `from`; each thread files the vertices it improved
  // in its own bins (no lock, no merge until a bucket is gathered). A source with tails on storage (kDefers)
  // marks the tails a light round needs, read at once; a tail's heavy edges are filed instead by the first
  // bucket they can reach -- its lightest weight is at least its prefix's last (lists by weight), so
  // fl32(du + w) lands no earlier than bucket_of(fl32(du + floor)) -- and read when due, a short one with every
  // other deferred tail (next_bucket): many buckets' tails in one pass in file order, not a few pages a bucket.
  void relax_all(const std::vector<Id>& from, SsspStats& stats, bool light) {
    uint64_t improved = 0;
    // Below two chunks one thread does the work anyway, and waking the others costs more than it (most of a
    // search's rounds are this small: the light rounds near its end).
#pragma omp parallel reduction(+ : improved) if (from.size() >= 2 * kChunk)
    {
      const size_t t = size_t(omp_get_thread_num());
      std::vector<std::vector<Id>>& bins = bins_[t];
#pragma omp for schedule(dynamic, kChunk) nowait
      for (size_t i = 0; i < from.size(); ++i) {
        const Id u = from[i];
        EdgeRelax relax{*this, remote_.name(u), distance(u), bins};
        if constexpr (Source::kDefers) {
          const float floor = source_.scan(u, light, relax);
          if (floor >= 0.0f && !tail_done(u) && relax.du + floor < cut_dist_)
            buckets::file(source_.long_tail(u) ? due_long_[t] : due_[t], bucket_of(relax.du + floor), u);
        } else {
          source_.scan(u, light, relax);
        }
        improved += relax.made;
      }
    }
    if constexpr (Source::kDefers)
      if (light) read_marked(light, stats, improved);
    stats.relaxations += improved + received();
  }

  // Across ranks, the relaxations the others sent for this rank's vertices, each improvement filed by the
  // thread that made it; returns how many improved.
  uint64_t received() {
    if constexpr (!Relaxations::kRemote) return 0;
    else
      return remote_.take([this](Id i, float d, Id parent) { return improve(i, d, parent, bins_[size_t(omp_get_thread_num())]); });
  }

  // A vertex's edges relaxed from it (u, named `parent`, at distance du), by a source's scan or a tail read: each
  // improvement filed in the thread's bins and counted. ahead(v): a target some entries on, whose word is fetched
  // early where the entries lie ahead in memory (sssp_detail::relax_by_weight) -- one process: the words are
  // this array's.
  struct EdgeRelax {
    DeltaStepping& s;
    Id parent;
    float du;
    std::vector<std::vector<Id>>& bins;
    uint64_t made = 0;
    void operator()(Id v, float w) { made += s.relax_edge(parent, du, v, w, bins); }
    // Past this stage's cut: in a list by weight, so is every entry after it.
    bool beyond(float w) const { return du + w >= s.cut_dist_; }
    void ahead(Id v) const {
      if constexpr (!Relaxations::kRemote) __builtin_prefetch(&s.state_[v]);
    }
  };

  // A thread's count on a line of its own, added to once a piece: a shared line written for every entry (each
  // thread's counter beside the other's) took a quarter of the tail reads' samples.
  struct alignas(64) Count {
    uint64_t n = 0;
  };

  // The marked tails read (kDefers) and their light or heavy edges relaxed.
  void read_marked(bool light, SsspStats& stats, uint64_t& improved) {
    std::vector<Count> counts(bins_.size());
    auto visit = [&](Id u, const NodeWeight<Id>* first, const NodeWeight<Id>* last) {
      const size_t t = size_t(omp_get_thread_num());
      const uint64_t word = std::atomic_ref(state_[u]).load(std::memory_order_relaxed);
      EdgeRelax relax{*this, remote_.name(u), dist_of(word), bins_[t]};
      sssp_detail::relax_by_weight(first, last, light, delta_, relax);
      counts[t].n += relax.made;
      if constexpr (kAlongside)
        if (!light) set_done(u, word);
    };
    // A heavy read's tails that came along: an unmarked vertex's whole tail in a buffer read for others (its
    // neighbours' in the file), reached and not yet relaxed at its present distance, is visited too -- settled
    // or not: the distance it has is a path's -- and is read again only if its vertex improves.
    auto along = [&](Id u) {
      return std::atomic_ref(state_[u]).load(std::memory_order_relaxed) != kUnreached && !tail_done(u);
    };
    // A heavy read needs of each tail the entries that land below the cut: lighter than cut - du, rounded up (an
    // entry at least that heavy sums to the cut or past it; the source reads on past a head that ends lighter).
    auto need = [&](Id u) { return (cut_dist_ - distance(u)) * (1.0f + 1e-6f) + 1e-30f; };
    if constexpr (kAlongside) source_.finish(light, visit, stats.io, along, need);
    else source_.finish(light, visit, stats.io);
    for (const Count& c : counts) improved += c.n;
  }

  float distance(Id u) const { return distance_word::load_dist(state_[u]); }
  // Edge (u, v) of weight w from u (named `parent`) at distance du: v improved and filed in its bucket (returns
  // 1), or not; across ranks another's v is sent to its owner.
  uint64_t relax_edge(Id parent, float du, Id v, float w, std::vector<std::vector<Id>>& bins) {
    const float nd = du + w;  // float + float: fl32, as the reference relaxes
    if (nd >= cut_dist_) return 0;  // left to the stage's end (next_stage)
    if constexpr (Relaxations::kRemote) {
      if (!remote_.owns(v)) {
        remote_.send(v, nd, parent);
        return 0;
      }
    }
    return improve(Id(v - remote_.lo), nd, parent, bins);
  }
  // Vertex i to distance d through parent where d is smaller, filed in its bucket, or marked far past the
  // window (returns 1), or not.
  uint64_t improve(Id i, float d, Id parent, std::vector<std::vector<Id>>& bins) {
    if (!distance_word::improve(state_[i], d, parent)) return 0;
    if constexpr (kAlongside) unset_done(i);
    if (const uint64_t k = bucket_of(d); k < window_end_) {
      buckets::file(bins, k, i);
    } else {
      far_.set_atomic(i);
      lower_far(k);
    }
    return 1;
  }
  // Keeps far_least_ at or below bucket k (a far vertex's).
  void lower_far(uint64_t k) {
    uint64_t least = far_least_.load(std::memory_order_relaxed);
    while (k < least && !far_least_.compare_exchange_weak(least, k, std::memory_order_relaxed)) {
    }
  }

  // Once the window's buckets are empty on every rank: the window moves to `first` (far_least_'s least over the
  // ranks) and the far vertices within it are filed; false when none is left. A mark whose vertex has since moved into
  // the window is dropped: it was filed then. One pass over the marks (a first one only to find the least read
  // every far word twice): the least bucket of the marks it keeps, lowered by every mark made after, is a lower
  // bound for the next move -- a kept vertex improved since may lie lower, and a window placed by it may be
  // empty; the pass that finds it so leaves the exact least.
  bool file_far(uint64_t first) {
    if (first == UINT64_MAX) return false;
    const uint64_t settled_below = window_end_;  // every bucket of the old window is settled
    window_end_ = first + kWindow;
    uint64_t* words = far_.words();
    const uint64_t count = far_.word_count();
    uint64_t least = UINT64_MAX;
#pragma omp parallel reduction(min : least)
    {
      std::vector<std::vector<Id>>& bins = bins_[size_t(omp_get_thread_num())];
#pragma omp for schedule(static)
      for (uint64_t i = 0; i < count; ++i)
        for (uint64_t bits = words[i]; bits != 0; bits &= bits - 1) {
          const int j = std::countr_zero(bits);
          const uint64_t v = i * 64 + uint64_t(j), k = bucket_of(dist_of(state_[v]));
          if (k >= window_end_) {
            least = std::min(least, k);
            continue;
          }
          if (k >= settled_below) buckets::file(bins, k, Id(v));
          words[i] &= ~(uint64_t(1) << j);
        }
    }
    far_least_.store(least, std::memory_order_relaxed);
    return true;
  }

  // done_ (kAlongside): u's tail's heavy edges relaxed at its present distance, whether it was read for u or came
  // along. Set, then u's word read again: if it changed meanwhile, unset. An improvement unsets after its
  // compare-and-swap; all four are seq_cst, so whichever order they fall in, a bit never outlives the distance
  // it was set at (a relaxed order could let both sides miss the other, and the tail never be read again).
  bool tail_done(Id u) const {
    if constexpr (!kAlongside) return false;
    return (std::atomic_ref(const_cast<uint64_t&>(done_.words()[u >> 6])).load(std::memory_order_relaxed) >> (u & 63)) & 1;
  }
  void set_done(Id u, uint64_t word) {
    std::atomic_ref<uint64_t> w(done_.words()[u >> 6]);
    const uint64_t bit = uint64_t(1) << (u & 63);
    w.fetch_or(bit, std::memory_order_seq_cst);
    if (std::atomic_ref(state_[u]).load(std::memory_order_seq_cst) != word) w.fetch_and(~bit, std::memory_order_seq_cst);
  }
  void unset_done(Id u) {
    std::atomic_ref<uint64_t> w(done_.words()[u >> 6]);
    const uint64_t bit = uint64_t(1) << (u & 63);
    if (w.load(std::memory_order_seq_cst) & bit) w.fetch_and(~bit, std::memory_order_seq_cst);
  }

  void translate(float* dist_out, Id* parent_out) const {
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < g_.n; ++v) {
      const uint64_t s = state_[v];
      const bool r = s != kUnreached;
      dist_out[g_.to_input[v]] = r ? dist_of(s) : -1.0f;
      parent_out[g_.to_input[v]] = r ? g_.to_input[parent_of(s)] : kNoVertex<Id>;
    }
  }

  const Csr<Id>& g_;
  Source source_;
  float delta_;
  Relaxations remote_;
  std::vector<uint64_t> state_;  // (distance bits, parent) by internal id
  // Nearly every improvement is a heavy edge's, up to 1 / delta buckets ahead, and filing each as an entry held
  // about as many entries as relaxations at once (5.2 M, 30 MB of bins at SCALE 22: kernel 3's peak). Only the
  // next kWindow buckets are filed; a vertex improved past them waits as a bit in far_ until the window gets there.
  static constexpr uint64_t kWindow = 32;
  Bitmap far_;
  MovableAtomic<uint64_t> far_least_{UINT64_MAX};  // at or below the least bucket of a vertex marked in far_
  Bitmap done_;  // kAlongside: tails whose heavy edges were relaxed at their vertex's present distance
  // Stages (over lists by weight; lists by id have one stage and no cut): the
  // first ends at distance kFirstStage, each next kStageGrowth times farther. Edges a search touches, counted from
  // the final distances at SCALE 20 (an ideal pull, every list by weight), for first ends of 0.04 / 0.06 / 0.08
  // and growth 1.5 / 2 / 3 / none: 10.5 / 8.0 / 7.4 / 14.4%, 10.9 / 9.0 / 8.8 / 13.4%, 11.9 / 10.4 / 10.3 / 13.7%.
  // Out of core a tail's head costs a page however few entries it holds, so narrower stages read less: SCALE 22,
  // 146M budget, 4 roots, bytes a search for growth 3 / 2 / 1.5 / 1.3: 748 / 532 / 471 / 408 MB, time a search
  // 1.82 / 1.68 / 1.82 / 2.16 s (each end costs a pass over the vertices). With the pull bounded from the anchor
  // (next_stage), SCALE 24 (538M budget, 8 roots) read 11.02 / 4.62 / 2.83 / 2.28 GB for first ends of 0.04 / 0.02
  // / 0.01 / 0.005, 6.02 / - / 6.29 / 6.31e7 TEPS (5.70 / - / 5.84 / 5.83 in a second round): 0.01 out of core.
  // In-core 0.01 was slower than 0.04 (more stage ends, nothing to read saved): SCALE 20, 16 roots, 3 interleaved
  // rounds, 1.49 / 1.55 / 1.48e8 at 0.04 against 1.34 / 1.28 / 1.25e8.
  static constexpr bool kStaged = Source::kByWeight;
  static constexpr float kFirstStage = Source::kDefers ? 0.01f : 0.04f, kStageGrowth = 2.0f, kLastStage = 1e6f;
  // The anchor may move while fewer than 1/1024 of the vertices (or 64) are settled.
  static constexpr uint64_t kAnchorShare = 1024, kAnchorLeast = 64;
  static constexpr uint64_t kPushVertices = uint64_t(1) << 20;
  static constexpr uint64_t kExactDegree = 64, kCostStride = 8, kPullChunk = 1024, kPullBuffer = 4096;
  // A stage end's push and pull costs are summed one by one over the vertices of kExactDegree entries or more, the
  // first hubs_ ids (ids follow the degree order, highest first); the rest, alike in degree, are counted from every
  // kCostStride-th: the sums only choose between push and pull (either gives the same distances), and a pass over
  // every vertex at each stage end took a sixth of an in-core search (SCALE 22).
  uint64_t hubs_ = 0;
  float anchor_ = 0.0f, width_ = kFirstStage;  // the stage ends at anchor_ + width_ (place_stage_end)
  std::vector<Id> early_;                      // the vertices settled below the anchor (this rank's)
  uint64_t settled_ = 0, vertices_ = 0;        // vertices settled so far, and of the graph (over the ranks)
  uint64_t cut_ = UINT64_MAX;    // the first bucket past the stage: relaxations landing there wait for its end
  float cut_dist_ = INFINITY;    // the least distance in bucket cut_
  uint64_t buckets_before_ = 0;  // buckets settled by the last stage's end
  uint64_t window_end_ = kWindow;
  buckets::Bins<Id> bins_;  // vertices improved into each bucket, by thread
  buckets::Bins<Id> due_;   // kDefers: tails to read by each bucket, by thread
  buckets::Bins<Id> due_long_;  // kDefers: tails of a page or more, each read when due (not with every other)
  std::vector<uint64_t> marks_;  // keep_current's bit a vertex, clear between rounds
  ReachedDegrees<Id> reached_;   // nedge
};

}  // namespace strata
