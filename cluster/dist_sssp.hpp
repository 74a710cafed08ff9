// Kernel 3 across the ranks: delta-stepping by the rules of sssp/delta_stepping.hpp (float32 relaxations; a
// vertex's distance and parent one word, changed only to a strictly smaller distance; a bucket's light edges
// until it settles, then its heavy edges once), each rank relaxing its own vertices' edges and sending the
// relaxations of other ranks' vertices to their owners, one exchange a round. The ranks agree on the next
// bucket (the least any holds) and on when a bucket has settled (no rank improved a vertex into it). Any
// correct order of relaxations gives the same distance bits (SSSP.md 3.3), so they are one process's, whatever
// the rank count. A rank's lists come from a weighted source (sssp/weighted_sources.hpp's interface): its rows
// in DRAM (RankWeightedLists), or on its storage (WeightsReadTails, WeightsInPlace over RankRows), where a
// bucket's marked tails are read at once (no deferral across buckets, as one process does: the ranks would have
// to agree on when a deferred tail falls due). Then the facts of a result (DistanceFacts), by input label.
#pragma once
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "driver/run_result.hpp"
#include "sssp/buckets.hpp"
#include "sssp/delta_stepping.hpp"
#include "sssp/distance_word.hpp"
#include "sssp/weighted_sources.hpp"

namespace strata {

// A rank's kernel 3 rows in DRAM: its lists by weight (DistGraph::weighted).
template <class Id>
struct RankWeightedLists {
  static constexpr bool kDefers = false;
  const DistGraph<Id>& g;
  float delta;
  template <class Relax>
  void scan(Id i, bool light, Relax& relax) const {
    const NodeWeight<Id>* first = g.weighted.data() + g.rows.offsets[i];
    sssp_detail::relax_by_weight(first, g.weighted.data() + g.rows.offsets[i + 1], light, delta, relax);
  }
  template <class Visit>
  void finish(bool, Visit&, LevelIo&) {}
  void check() {}
};

template <class Id, class Source = RankWeightedLists<Id>>
class DistDeltaStepping {
  static_assert(sizeof(Id) == 4, "a vertex's distance and parent share one 64-bit word: 32-bit ids");

 public:
  DistDeltaStepping(const DistGraph<Id>& g, const Comm& comm, Source source, float delta)
      : g_(g), comm_(comm), source_(std::move(source)), delta_(delta), state_(g.local_count()),
        out_(omp_get_max_threads(), comm.size()) {}
  DistDeltaStepping(const DistGraph<Id>& g, const Comm& comm, float delta)
    requires std::is_same_v<Source, RankWeightedLists<Id>>
      : DistDeltaStepping(g, comm, Source{g, delta}, delta) {}

  // From distributed id `root` (collective): dist_out[v - lo] (-1.0f unreached) and parent_out[v - lo] (the
  // parent's input label; the root its own; kNoVertex unreached) for this rank's vertices.
  SsspStats search(Id root, float* dist_out, Id* parent_out) {
    SsspStats stats;
    if constexpr (requires { source_.reset(); }) source_.reset();
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < state_.size(); ++i) state_[i] = distance_word::kUnreached<Id>;
    bins_.assign(size_t(omp_get_max_threads()), {});
    if (g_.owns(root)) {
      state_[root - g_.lo] = distance_word::pack(0.0f, g_.label(root));
      buckets::file(bins_[0], 0, Id(root - g_.lo));
    }
    for (uint64_t b = 0;;) {
      b = ~comm_.max(~first_filled(b));  // the least bucket any rank holds entries of
      if (b == UINT64_MAX) break;
      std::vector<Id> settled, frontier = gather(b);
      do {
        keep_current(frontier, b, settled);
        relax_all(frontier, /*light=*/true, stats);
        frontier = gather(b);
      } while (comm_.sum(frontier.size()) > 0);
      // A vertex improved again within the bucket came back in a later light round: its heavy edges once.
      std::sort(settled.begin(), settled.end());
      settled.erase(std::unique(settled.begin(), settled.end()), settled.end());
      stats.buckets += comm_.sum(settled.size()) > 0;
      relax_all(settled, /*light=*/false, stats);
    }
    bins_.clear();
    source_.check();  // an entry read in place that was no vertex id
    stats.relaxations = comm_.sum(stats.relaxations);
    read_ += stats.io.bytes_read;
    std::array<uint64_t, 3> io{stats.io.bytes_read, stats.io.requests, stats.io.edges_storage};
    comm_.sum_in_place(std::span<uint64_t>(io));  // every rank's reads
    stats.io.bytes_read = io[0], stats.io.requests = io[1], stats.io.edges_storage = io[2];
    translate(dist_out, parent_out, stats);
    return stats;
  }

  // The raw degrees of the vertices the last search reached, over every rank (collective): twice its nedge.
  uint64_t reached_raw_degree_sum() const {
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (uint64_t i = 0; i < state_.size(); ++i) sum += state_[i] != distance_word::kUnreached<Id> ? g_.raw_degree[i] : 0;
    return comm_.sum(sum);
  }
  uint64_t bytes_sent() const { return bytes_sent_; }  // this rank's relaxations sent, every search so far
  uint64_t bytes_read() const { return read_; }        // this rank's reads from its storage, every search so far
  uint64_t state_bytes() const { return state_.size() * sizeof(uint64_t); }

 private:
  // A relaxation of another rank's vertex v: distance d through a parent named by its input label.
  struct Relaxation {
    Id v;
    float d;
    Id parent;
  };

  uint64_t bucket_of(float d) const { return distance_word::bucket_of(d, delta_); }

  void keep_current(std::vector<Id>& frontier, uint64_t b, std::vector<Id>& settled) const {
    buckets::keep_current(frontier, b, settled, [&](Id i) { return bucket_of(distance_word::dist_of(state_[i])); });
  }
  std::vector<Id> gather(uint64_t b) { return buckets::gather(bins_, b); }
  uint64_t first_filled(uint64_t from) const { return buckets::first_filled(bins_, from); }

  // Relaxes the light (or heavy) edges of this rank's vertices in `from` (local indices) -- on storage, with the
  // tails the round needs read at once -- then, collectively, the relaxations other ranks sent for its
  // vertices; each thread files the vertices it improved in its bins.
  void relax_all(const std::vector<Id>& from, bool light, SsspStats& stats) {
    struct alignas(64) Count {  // a cache line a thread: the counts are bumped on the hot path
      uint64_t n = 0;
    };
    std::vector<Count> improved(bins_.size());
    auto relax_from = [&](Id i) {  // relax(v, w) for local vertex i's edges, on the calling thread
      const size_t t = size_t(omp_get_thread_num());
      const float du = distance_word::load_dist(state_[i]);
      const Id label = g_.rows.to_input[i];
      return [this, t, du, label, &improved](Id v, float w) {
        const float nd = du + w;  // float + float: fl32, as the reference relaxes
        if (g_.owns(v)) improved[t].n += improve(Id(v - g_.lo), nd, label, bins_[t]);
        else out_.mine(g_.part.owner(v)).push_back({v, nd, label});
      };
    };
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t k = 0; k < from.size(); ++k) {
      auto relax = relax_from(from[k]);
      if constexpr (Source::kDefers) {
        if (source_.scan(from[k], light, relax) >= 0.0f) source_.mark(from[k]);  // a heavy round's tail: now
      } else {
        source_.scan(from[k], light, relax);
      }
    }
    auto visit = [&](Id i, const NodeWeight<Id>* first, const NodeWeight<Id>* last) {
      auto relax = relax_from(i);
      sssp_detail::relax_by_weight(first, last, light, delta_, relax);
    };
    source_.finish(light, visit, stats.io);
    const std::vector<Relaxation> got = out_.exchange(comm_, &bytes_sent_);
    uint64_t foreign = UINT64_MAX;  // a vertex this rank does not hold: a hole of the id space, from damaged rows
#pragma omp parallel for schedule(static) reduction(min : foreign)
    for (size_t k = 0; k < got.size(); ++k) {
      const size_t t = size_t(omp_get_thread_num());
      if (got[k].v < g_.lo || got[k].v >= g_.hi) [[unlikely]] {
        foreign = std::min<uint64_t>(foreign, got[k].v);
        continue;
      }
      improved[t].n += improve(Id(got[k].v - g_.lo), got[k].d, got[k].parent, bins_[t]);
    }
    if (foreign != UINT64_MAX)
      throw Error(fmt::format("a relaxation for vertex {}, which rank {} does not hold: a rank's rows are corrupted",
                              foreign, comm_.rank()));
    for (const Count& c : improved) stats.relaxations += c.n;
  }

  // Local vertex i to distance nd through parent (an input label) where nd is smaller, filed in its bucket.
  uint64_t improve(Id i, float nd, Id parent, std::vector<std::vector<Id>>& bins) {
    if (!distance_word::improve(state_[i], nd, parent)) return 0;
    buckets::file(bins, bucket_of(nd), i);
    return 1;
  }

  void translate(float* dist_out, Id* parent_out, SsspStats& stats) const {
    uint64_t reached = 0;
#pragma omp parallel for schedule(static) reduction(+ : reached)
    for (uint64_t i = 0; i < state_.size(); ++i) {
      const uint64_t s = state_[i];
      const bool r = s != distance_word::kUnreached<Id>;
      reached += r;
      dist_out[i] = r ? distance_word::dist_of(s) : -1.0f;
      parent_out[i] = r ? distance_word::parent_of<Id>(s) : kNoVertex<Id>;
    }
    stats.reached = comm_.sum(reached);
  }

  const DistGraph<Id>& g_;
  const Comm& comm_;
  Source source_;
  float delta_;
  std::vector<uint64_t> state_;                     // (distance bits, parent's input label) by local index
  buckets::Bins<Id> bins_;                          // local vertices improved into each bucket, by thread
  RankBuffers<Relaxation> out_;                     // relaxations bound for other ranks, by thread
  uint64_t bytes_sent_ = 0, read_ = 0;
};

// The facts of a result spread over the ranks (collective; dist: this rank's vertices by local index): each
// distance sent to the owner of its label's block, then the blocks taken in label order, rank after rank, so
// the sum is rounded in the order one process sums it. The same facts on every rank.
template <class Id>
DistanceFacts distance_facts_across(const DistGraph<Id>& g, const float* dist, const Comm& comm) {
  const LabelBlocks blocks(g.n, comm.size());
  struct Labelled {
    Id label;
    float d;
  };
  std::vector<std::vector<Labelled>> send(comm.size());
  for (uint64_t i = 0; i < g.local_count(); ++i) send[blocks.owner(g.rows.to_input[i])].push_back({g.rows.to_input[i], dist[i]});
  const uint64_t a = blocks.begin(comm.rank());
  std::vector<float> mine(blocks.end(comm.rank()) - a, -1.0f);
  for (const Labelled& x : comm.exchange(send)) mine[x.label - a] = x.d;
  DistanceFacts f;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) f.add(mine.data(), mine.size());
    std::string bytes(reinterpret_cast<const char*>(&f), sizeof f);
    bytes = comm.broadcast(bytes, r);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(&f));
  }
  return f;
}

}  // namespace strata
