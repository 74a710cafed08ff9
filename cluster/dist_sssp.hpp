// Kernel 3 across the ranks: the one-process delta-stepping (sssp/delta_stepping.hpp: float32 relaxations; a
// vertex's distance and parent one word, changed only to a strictly smaller distance; a bucket's light edges
// until it settles, then its heavy edges once) over each rank's own vertices, with RankRelaxations: the
// relaxations of other ranks' vertices sent to their owners, one exchange a round, and the ranks agreeing on the
// next bucket (the least any holds), on when a bucket has settled (no rank improved a vertex into it) and on when
// deferred tails fall due (the least bucket any rank's tails can reach). Any correct order of relaxations gives
// the same distance bits (SSSP.md 3.3), so they are one process's, whatever the rank count. In stages (lists by
// weight) a stage end's pull asks the holders of a vertex's neighbours for their distances. A rank's lists come
// from its tier's weighted source (sssp/weighted_sources.hpp's interface): its rows in DRAM (PairLists), or on
// its storage (WeightsReadTails, WeightsInPlace over RankRows). Then the facts of a result (DistanceFacts), by input label.
#pragma once
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cluster/comm.hpp"
#include "cluster/dist_graph.hpp"
#include "core/ids.hpp"
#include "driver/run_result.hpp"
#include "sssp/distance_facts.hpp"
#include "sssp/buckets.hpp"
#include "sssp/delta_stepping.hpp"
#include "sssp/distance_word.hpp"
#include "sssp/weighted_sources.hpp"

namespace strata {

// DeltaStepping's Relaxations across the ranks (its interface is described there): this rank holds distributed
// ids [g.lo, g.hi) and names parents by input label.
template <class Id>
class RankRelaxations {
 public:
  static constexpr bool kRemote = true;
  RankRelaxations(const DistGraph<Id>& g, const Comm& comm)
      : lo(g.lo), g_(&g), comm_(&comm), out_(omp_get_max_threads(), comm.size()) {}
  uint64_t lo;
  bool owns(uint64_t v) const { return g_->owns(v); }
  Id name(Id i) const { return g_->rows.to_input[i]; }
  void send(Id v, float d, Id parent) { out_.mine(g_->part.owner(v)).push_back({v, d, parent}); }
  // The relaxations the ranks sent each other.
  template <class Improve>
  uint64_t take(Improve&& improve) {
    return take_for_own_vertices(*g_, out_, *comm_, &sent_, "a relaxation", [](const Relaxation& x) { return x.v; },
                                 [&](Id i, const Relaxation& x) { return improve(i, x.d, x.parent); });
  }
  uint64_t sum(uint64_t x) const { return comm_->sum(x); }
  uint64_t least(uint64_t x) const { return least(std::array<uint64_t, 1>{x})[0]; }
  template <size_t N>
  std::array<uint64_t, N> sum(std::array<uint64_t, N> x) const {
    comm_->sum_in_place(std::span<uint64_t>(x));
    return x;
  }
  template <size_t N>
  std::array<uint64_t, N> least(std::array<uint64_t, N> x) const {
    for (uint64_t& v : x) v = ~v;
    comm_->max_in_place(std::span<uint64_t>(x));
    for (uint64_t& v : x) v = ~v;
    return x;
  }
  // answer(i) for each id by the rank holding it as local index i, in the order asked (collective). An id no rank
  // holds (a hole of the id space, from rows changed on storage) ends the run, named, before it is asked.
  template <class Answer>
  std::vector<uint64_t> words_of(const std::vector<Id>& ids, Answer&& answer) {
    for (Id v : ids)
      if (!g_->part.is_vertex(v)) [[unlikely]]
        throw Error(fmt::format("a distance asked of vertex {}, which no rank holds: a rank's rows are corrupted", v));
    std::vector<uint64_t> counts(size_t(comm_->size()), 0), next(counts.size(), 0);
    for (Id v : ids) ++counts[size_t(g_->part.owner(v))];
    for (size_t r = 1; r < counts.size(); ++r) next[r] = next[r - 1] + counts[r - 1];
    std::vector<Id> keys(ids.size());
    std::vector<uint64_t> at(ids.size());  // where ids[k] went among the keys, grouped by holder
    for (size_t k = 0; k < ids.size(); ++k) keys[at[k] = next[size_t(g_->part.owner(ids[k]))]++] = ids[k];
    const std::vector<uint64_t> got =
        comm_->ask<uint64_t>(keys, counts, [&](Id v) { return answer(Id(v - lo)); }, &sent_);
    std::vector<uint64_t> words(ids.size());
    for (size_t k = 0; k < ids.size(); ++k) words[k] = got[at[k]];
    return words;
  }
  uint64_t ids(uint64_t) const { return g_->part.ids(); }
  void finish(SsspStats& stats) {
    read_ += stats.io.bytes_read;
    std::array<uint64_t, 4> c{stats.relaxations, stats.io.bytes_read, stats.io.requests, stats.io.edges_storage};
    comm_->sum_in_place(std::span<uint64_t>(c));  // every rank's
    stats.relaxations = c[0], stats.io.bytes_read = c[1], stats.io.requests = c[2], stats.io.edges_storage = c[3];
  }
  uint64_t bytes_sent() const { return sent_; }  // this rank's relaxations sent, every search so far
  uint64_t bytes_read() const { return read_; }  // this rank's reads from its storage, every search so far

 private:
  struct Relaxation {  // of another rank's vertex v: distance d through a parent named by its input label
    Id v;
    float d;
    Id parent;
  };
  const DistGraph<Id>* g_;
  const Comm* comm_;
  RankBuffers<Relaxation> out_;  // relaxations bound for other ranks, by thread
  uint64_t sent_ = 0, read_ = 0;
};

// Kernel 3 on a rank: the one-process delta-stepping over its local lists with RankRelaxations, and the results
// by local index.
template <class Id, class Source>
class DistDeltaStepping {
  static_assert(sizeof(Id) == 4, "a vertex's distance and parent share one 64-bit word: 32-bit ids");

 public:
  // rows: the rank's local lists (DRAM: g.rows; on storage: RankRows::local()); source: the lists by weight.
  DistDeltaStepping(const DistGraph<Id>& g, const Comm& comm, const Csr<Id>& rows, Source source, float delta)
      : g_(g), comm_(comm), sssp_(rows, std::move(source), delta, RankRelaxations<Id>(g, comm)) {}

  // From distributed id `root` (collective): dist_out[v - lo] (-1.0f unreached) and parent_out[v - lo] (the
  // parent's input label; the root its own; kNoVertex unreached) for this rank's vertices.
  SsspStats search(Id root, float* dist_out, Id* parent_out) {
    SsspStats stats = sssp_.levels(root);
    const std::vector<uint64_t>& state = sssp_.state();
    uint64_t reached = 0;
#pragma omp parallel for schedule(static) reduction(+ : reached)
    for (uint64_t i = 0; i < state.size(); ++i) {
      const uint64_t s = state[i];
      const bool r = s != distance_word::kUnreached<Id>;
      reached += r;
      dist_out[i] = r ? distance_word::dist_of(s) : -1.0f;
      parent_out[i] = r ? distance_word::parent_of<Id>(s) : kNoVertex<Id>;
    }
    stats.reached = comm_.sum(reached);
    return stats;
  }

  // The raw degrees of the vertices the last search reached, over every rank (collective): twice its nedge.
  uint64_t reached_raw_degree_sum() const {
    const std::vector<uint64_t>& state = sssp_.state();
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (uint64_t i = 0; i < state.size(); ++i) sum += state[i] != distance_word::kUnreached<Id> ? g_.raw_degree[i] : 0;
    return comm_.sum(sum);
  }
  uint64_t bytes_sent() const { return sssp_.relaxations().bytes_sent(); }
  uint64_t bytes_read() const { return sssp_.relaxations().bytes_read(); }
  uint64_t state_bytes() const { return sssp_.state_bytes(); }
  uint64_t io_buffer_bytes() const { return sssp_.io_buffer_bytes(); }

 private:
  const DistGraph<Id>& g_;
  const Comm& comm_;
  DeltaStepping<Id, Source, RankRelaxations<Id>> sssp_;
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
