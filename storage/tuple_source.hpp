// A run's tuples behind one type: a graph directory's (stored, or regenerated from its spec) or the generator's.
// The drivers, the tiers' kernel 1 and the validators take it, so each is compiled once, not once for each kind
// of list (both drivers compiled their run loops, validation and kernel 1 twice, choosing with if-constexpr).
// Every call goes to the list it holds, whose own interface (generators/edge_stream.hpp) it is.
#pragma once
#include <cstdint>
#include <span>
#include <utility>
#include <variant>

#include "generators/edge_stream.hpp"
#include "generators/kronecker.hpp"
#include "storage/graph_dir.hpp"

namespace strata {

class TupleSource {
 public:
  explicit TupleSource(GraphDir dir) : tuples_(std::move(dir)) {}
  explicit TupleSource(const KroneckerSpec& spec) : tuples_(GeneratedEdges{Kronecker(spec)}) {}

  const KroneckerSpec& spec() const {
    return std::visit([](const auto& t) -> const KroneckerSpec& { return t.spec(); }, tuples_);
  }
  // The graph directory the tuples come from, or nullptr where the run generates them.
  const GraphDir* dir() const { return std::get_if<GraphDir>(&tuples_); }

  // The edge-source interface: a directory's blocks, or the generator's chunks.
  uint64_t chunk_edges() const {
    return std::visit([](const auto& t) { return t.chunk_edges(); }, tuples_);
  }
  uint64_t chunk_count() const {
    return std::visit([](const auto& t) { return t.chunk_count(); }, tuples_);
  }
  std::span<const Edge> read_chunk(uint64_t c, ChunkBuffer& buffer) const {
    return std::visit([&](const auto& t) { return t.read_chunk(c, buffer); }, tuples_);
  }
  template <class Fn>
  void for_each_edge_chunk(Fn&& fn) const {
    for_each_chunk(*this, std::forward<Fn>(fn));
  }
  // The tuples with their kernel-3 weights, drawn from the spec either way (a directory stores no weights).
  template <class Fn>
  void for_each_weighted_chunk(Fn&& fn) const {
    std::visit([&](const auto& t) { t.for_each_weighted_chunk(fn); }, tuples_);
  }

 private:
  std::variant<GraphDir, GeneratedEdges> tuples_;
};

}  // namespace strata
