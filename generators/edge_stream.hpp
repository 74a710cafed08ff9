// Streams a Kronecker edge list in chunks across OpenMP threads, so no one holds all M edges at once.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "generators/kronecker.hpp"

namespace strata {

inline constexpr uint64_t kDefaultEdgeChunk = uint64_t(1) << 16;

// Thread-local space for reading one chunk of an edge source.
struct ChunkBuffer {
  std::vector<Edge> edges;
  std::vector<float> weights;  // kernel 3's, where asked for
  std::vector<char> raw;
  // Where the caller wants the chunk's tuples (its own array, so they are not copied there from `edges`); a
  // source that holds its tuples may still return its own span.
  Edge* to = nullptr;
  // Room for a chunk of n tuples: `to`, else `edges` grown to n (not to a whole chunk: a vector's growth writes
  // every new element, and a small graph's passes wrote a whole chunk's 16 MiB a thread).
  Edge* edges_for(uint64_t n) {
    if (to) return to;
    if (edges.size() < n) edges.resize(n);
    return edges.data();
  }
};

// An edge source (GeneratedEdges, GraphDir, TupleSource) has spec(), chunk_edges(), chunk_count() and
// read_chunk(c, buffer) -> span<const Edge>: edges [c * chunk_edges, ...), thread-safe, in any order.
// Calls fn(first_index, span<const Edge>) for every chunk, concurrently on the OpenMP team.
template <class Source, class Fn>
void for_each_chunk(const Source& source, Fn&& fn) {
  const uint64_t chunks = source.chunk_count();
  FirstError error;
#pragma omp parallel
  {
    ChunkBuffer buffer;
#pragma omp for schedule(dynamic, 1)
    for (uint64_t c = 0; c < chunks; ++c)
      error.run([&] { fn(c * source.chunk_edges(), source.read_chunk(c, buffer)); });
  }
  error.rethrow();
}

// An edge source that regenerates the list on every pass instead of storing it (kernel 1 may do this).
struct GeneratedEdges {
  Kronecker gen;
  const KroneckerSpec& spec() const { return gen.spec(); }
  uint64_t chunk_edges() const { return kDefaultEdgeChunk; }
  uint64_t chunk_count() const { return (spec().edge_count() + kDefaultEdgeChunk - 1) / kDefaultEdgeChunk; }
  std::span<const Edge> read_chunk(uint64_t c, ChunkBuffer& buffer) const {
    const uint64_t begin = c * kDefaultEdgeChunk, end = std::min(spec().edge_count(), begin + kDefaultEdgeChunk);
    Edge* out = buffer.edges_for(end - begin);
    gen.generate(begin, end, out);
    return {out, end - begin};
  }
  // read_chunk's tuples with their kernel-3 weights, in buffer.weights (a rank's share of a weighted build).
  std::span<const Edge> read_weighted_chunk(uint64_t c, ChunkBuffer& buffer) const {
    const uint64_t begin = c * kDefaultEdgeChunk, end = std::min(spec().edge_count(), begin + kDefaultEdgeChunk);
    Edge* out = buffer.edges_for(end - begin);
    if (buffer.weights.size() < end - begin) buffer.weights.resize(end - begin);
    gen.generate(begin, end, out, buffer.weights.data());
    return {out, end - begin};
  }
  template <class Fn>
  void for_each_edge_chunk(Fn&& fn) const {
    for_each_chunk(*this, std::forward<Fn>(fn));
  }
  // fn(first_index, span<const Edge>, span<const float> weights) for every piece of kWeightedPiece tuples,
  // concurrently: the tuples with their kernel-3 weights (drawn only here: a BFS-only pass never pays for them).
  // A piece is a quarter of a chunk: its buffers (20 bytes a tuple) are held by every thread beside kernel 1's
  // in-core adjacency, at its peak (a chunk's made 2.5 MB of it at 2 threads, 0.15 bytes a tuple at SCALE 20).
  static constexpr uint64_t kWeightedPiece = kDefaultEdgeChunk / 4;
  template <class Fn>
  void for_each_weighted_chunk(Fn&& fn) const {
    const uint64_t pieces = (spec().edge_count() + kWeightedPiece - 1) / kWeightedPiece;
    FirstError error;
#pragma omp parallel
    {
      ChunkBuffer buffer;
      buffer.edges.resize(kWeightedPiece);
      buffer.weights.resize(kWeightedPiece);
#pragma omp for schedule(dynamic, 1)
      for (uint64_t c = 0; c < pieces; ++c)
        error.run([&] {
          const uint64_t begin = c * kWeightedPiece, end = std::min(spec().edge_count(), begin + kWeightedPiece);
          gen.generate(begin, end, buffer.edges.data(), buffer.weights.data());
          fn(begin, std::span<const Edge>(buffer.edges.data(), end - begin),
             std::span<const float>(buffer.weights.data(), end - begin));
        });
    }
    error.rethrow();
  }
};

// The whole generated list in chunks, concurrently on the OpenMP team.
template <class Fn>
void for_each_edge_chunk(const Kronecker& gen, Fn&& fn) {
  GeneratedEdges{gen}.for_each_edge_chunk(std::forward<Fn>(fn));
}

}  // namespace strata
