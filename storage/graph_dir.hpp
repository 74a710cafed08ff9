// A graph directory: the Kronecker edge list as written by `strata generate --out`, with a header that
// records how it was made and an XXH3 hash per block, so every reader detects truncation and corruption
// of exactly the part it reads.
//
//   graph.hdr   header (magic, format version, SCALE, edgefactor, seeds, edge count, id width) + block hashes
//   edges.bin   edge count pairs (v0, v1) of little-endian ids, 4 bytes each for SCALE <= 32, else 8
// A directory may keep the spec alone (`generate --no-tuples`: no blocks, no edges.bin): every pass then
// regenerates the tuples, which costs CPU instead of disk (SCALE 28's list is 34 GB).
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "generators/edge_stream.hpp"
#include "generators/kronecker.hpp"
#include "storage/file.hpp"

namespace strata {

class GraphDir {
 public:
  static constexpr const char* kHeaderFile = "graph.hdr";
  static constexpr const char* kEdgesFile = "edges.bin";
  // Whether `name` is a file a graph directory holds (graph.hdr, edges.bin): what no output may replace.
  static bool is_own_file(const std::string& name) { return name == kHeaderFile || name == kEdgesFile; }
  static constexpr int kBlockEdgesLog2 = 20;
  static constexpr uint64_t kBlockEdges = uint64_t(1) << kBlockEdgesLog2;

  // Reads and checks the header and file sizes; throws Error naming what is wrong.
  static GraphDir open(const std::string& path);

  const std::string& path() const { return path_; }
  const KroneckerSpec& spec() const { return spec_; }
  uint64_t edge_count() const { return spec_.edge_count(); }
  int id_bytes() const { return id_bytes_; }
  bool stores_tuples() const { return !block_hashes_.empty(); }
  uint64_t data_bytes() const { return stores_tuples() ? list_bytes() : 0; }  // edges.bin's size
  uint64_t list_bytes() const { return edge_count() * 2 * uint64_t(id_bytes_); }  // the list, stored or not
  uint64_t block_count() const { return (edge_count() + kBlockEdges - 1) / kBlockEdges; }
  uint64_t header_hash() const { return header_hash_; }  // identifies this edge list (derived files bind to it)

  // Reads block b (verifying its hash) into out, which must hold its edges (kBlockEdges, the last fewer); returns them.
  std::span<const Edge> read_block(uint64_t b, std::vector<char>& raw, Edge* out) const;

  // DRAM a pass over the tuples takes besides what its callback keeps: a decoded block and its raw bytes a
  // thread (24 MiB with 32-bit ids).
  uint64_t stream_buffer_bytes(int threads) const {
    return uint64_t(threads) * kBlockEdges * (sizeof(Edge) + (stores_tuples() ? 2 * uint64_t(id_bytes_) : 0));
  }

  // The edge-source interface (generators/edge_stream.hpp): a chunk is a block.
  uint64_t chunk_edges() const { return kBlockEdges; }
  uint64_t chunk_count() const { return block_count(); }
  std::span<const Edge> read_chunk(uint64_t c, ChunkBuffer& buffer) const {
    const uint64_t first = c * kBlockEdges, last = std::min(edge_count(), first + kBlockEdges);
    Edge* out = buffer.edges_for(last - first);
    if (stores_tuples()) return read_block(c, buffer.raw, out);
    generator_->generate(first, last, out);
    return {out, last - first};
  }
  template <class Fn>
  void for_each_edge_chunk(Fn&& fn) const {
    for_each_chunk(*this, std::forward<Fn>(fn));
  }
  // fn(first, span<const Edge>, span<const float>): the tuples with their kernel-3 weights, which a directory
  // does not store. A weight is drawn right after its tuple's draws on the same substream, so the pass draws
  // both from the spec (as GeneratedEdges does) instead of reading stored tuples it would draw again anyway;
  // the stored tuples are the spec's by construction (write_graph_dir) and checked at kernel 0.
  template <class Fn>
  void for_each_weighted_chunk(Fn&& fn) const {
    GeneratedEdges{Kronecker(spec_)}.for_each_weighted_chunk(std::forward<Fn>(fn));
  }

  // Reads everything and checks every block hash (without stored tuples: generates them all once).
  void verify(const ProgressFn& progress = {}) const;

 private:
  std::string path_;
  KroneckerSpec spec_;
  int id_bytes_ = 4;
  uint64_t header_hash_ = 0;
  std::vector<uint64_t> block_hashes_;
  std::shared_ptr<File> edges_;  // edges.bin, open once; copies of this object share it
  std::shared_ptr<const Kronecker> generator_;  // when the tuples are not stored
};

// Generates the edge list into a new graph directory at path (temporary name, fsync, rename); with
// store_tuples false, only the header (runs regenerate the tuples). Refuses an existing path unless force;
// checks free space first.
void write_graph_dir(const Kronecker& gen, const std::string& path, bool force, const ProgressFn& progress = {},
                     bool store_tuples = true);

}  // namespace strata
