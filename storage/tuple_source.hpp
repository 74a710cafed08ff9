// A run's tuples behind one type: a graph directory's (stored, or regenerated from its spec) or the generator's.
// The drivers, the tiers' kernel 1 and the validators take it, so each is compiled once, not once for each kind
// of list (both drivers compiled their run loops, validation and kernel 1 twice, choosing with if-constexpr).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

#include "generators/edge_stream.hpp"
#include "generators/kronecker.hpp"
#include "storage/graph_dir.hpp"

namespace strata {

class TupleSource {
 public:
  explicit TupleSource(GraphDir dir) : dir_(std::move(dir)), generated_{Kronecker(dir_->spec())} {}
  explicit TupleSource(const KroneckerSpec& spec) : generated_{Kronecker(spec)} {}

  const KroneckerSpec& spec() const { return generated_.spec(); }
  // The graph directory the tuples come from, or nullptr where the run generates them.
  const GraphDir* dir() const { return dir_ ? &*dir_ : nullptr; }

  // The edge-source interface (generators/edge_stream.hpp): a directory's blocks, or the generator's chunks.
  uint64_t chunk_edges() const { return dir_ ? dir_->chunk_edges() : generated_.chunk_edges(); }
  uint64_t chunk_count() const { return dir_ ? dir_->chunk_count() : generated_.chunk_count(); }
  std::span<const Edge> read_chunk(uint64_t c, ChunkBuffer& buffer) const {
    return dir_ ? dir_->read_chunk(c, buffer) : generated_.read_chunk(c, buffer);
  }
  template <class Fn>
  void for_each_edge_chunk(Fn&& fn) const {
    for_each_chunk(*this, std::forward<Fn>(fn));
  }
  // The tuples with their kernel-3 weights, drawn from the spec (a directory stores no weights: graph_dir.hpp).
  template <class Fn>
  void for_each_weighted_chunk(Fn&& fn) const {
    generated_.for_each_weighted_chunk(std::forward<Fn>(fn));
  }

 private:
  std::optional<GraphDir> dir_;
  GeneratedEdges generated_;
};

}  // namespace strata
