// Kernel 3 across the ranks: delta-stepping by the rules of sssp/delta_stepping.hpp (float32 relaxations; a
// vertex's distance and parent one word, changed only to a strictly smaller distance; a bucket's light edges
// until it settles, then its heavy edges once), each rank relaxing its own vertices' edges and sending the
// relaxations of other ranks' vertices to their owners, one exchange a round. The ranks agree on the next
// bucket (the least any holds) and on when a bucket has settled (no rank improved a vertex into it). Any
// correct order of relaxations gives the same distance bits (SSSP.md 3.3), so they are one process's, whatever
// the rank count. Then the facts of a result (DistanceFacts), by input label across the ranks.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "core/ids.hpp"
#include "driver/run_result.hpp"
#include "sssp/buckets.hpp"
#include "sssp/delta_stepping.hpp"
#include "sssp/distance_word.hpp"

namespace strata {

template <class Id>
class DistDeltaStepping {
  static_assert(sizeof(Id) == 4, "a vertex's distance and parent share one 64-bit word: 32-bit ids");

 public:
  DistDeltaStepping(const DistGraph<Id>& g, const Comm& comm, float delta)
      : g_(g), comm_(comm), delta_(delta), state_(g.local_count()), out_(omp_get_max_threads(), comm.size()) {}

  // From distributed id `root` (collective): dist_out[v - lo] (-1.0f unreached) and parent_out[v - lo] (the
  // parent's input label; the root its own; kNoVertex unreached) for this rank's vertices.
  SsspStats search(Id root, float* dist_out, Id* parent_out) {
    SsspStats stats;
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
    stats.relaxations = comm_.sum(stats.relaxations);
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

  // Relaxes the light (or heavy) edges of this rank's vertices in `from` (local indices), then, collectively,
  // the relaxations other ranks sent for its vertices; each thread files the vertices it improved in its bins.
  void relax_all(const std::vector<Id>& from, bool light, SsspStats& stats) {
    uint64_t improved = 0;
#pragma omp parallel reduction(+ : improved)
    {
      std::vector<std::vector<Id>>& bins = bins_[size_t(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 64) nowait
      for (size_t k = 0; k < from.size(); ++k) {
        const Id i = from[k];
        const float du = distance_word::load_dist(state_[i]);
        const Id label = g_.labels[i];
        const NodeWeight<Id>* first = g_.weighted.data() + g_.offsets[i];
        const NodeWeight<Id>* last = g_.weighted.data() + g_.offsets[i + 1];
        auto relax = [&](Id v, float w) {
          const float nd = du + w;  // float + float: fl32, as the reference relaxes
          if (g_.owns(v)) improved += improve(Id(v - g_.lo), nd, label, bins);
          else out_.mine(g_.part.owner(v)).push_back({v, nd, label});
        };
        sssp_detail::relax_by_weight(first, last, light, delta_, relax);
      }
    }
    const std::vector<Relaxation> got = out_.exchange(comm_, &bytes_sent_);
#pragma omp parallel reduction(+ : improved)
    {
      std::vector<std::vector<Id>>& bins = bins_[size_t(omp_get_thread_num())];
#pragma omp for schedule(static)
      for (size_t k = 0; k < got.size(); ++k) improved += improve(Id(got[k].v - g_.lo), got[k].d, got[k].parent, bins);
    }
    stats.relaxations += improved;
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
  float delta_;
  std::vector<uint64_t> state_;                     // (distance bits, parent's input label) by local index
  buckets::Bins<Id> bins_;                          // local vertices improved into each bucket, by thread
  RankBuffers<Relaxation> out_;                     // relaxations bound for other ranks, by thread
  uint64_t bytes_sent_ = 0;
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
  for (uint64_t i = 0; i < g.local_count(); ++i) send[blocks.owner(g.labels[i])].push_back({g.labels[i], dist[i]});
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
