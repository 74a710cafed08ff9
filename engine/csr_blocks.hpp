// The on-disk CSR's adjacency walked whole, block by block (4 MiB, each with its checksum): every block's place,
// and what a checked block holds of the global entry order -- for every reader that takes the files whole (the
// edge cache's load, from the files or a mapping; kernel 3's validation against the stored lists).
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "engine/csr.hpp"
#include "storage/csr_files.hpp"
#include "storage/hash.hpp"

namespace strata {

// Every block of every partition's adjacency file, (partition, byte offset), in file order.
inline std::vector<std::pair<int, uint64_t>> csr_blocks(const CsrLayout& L) {
  std::vector<std::pair<int, uint64_t>> blocks;
  for (int p = 0; p < L.parts(); ++p)
    for (uint64_t off = 0; off < L.adj_file_bytes(p); off += kCsrHashBlock) blocks.push_back({p, off});
  return blocks;
}
inline uint64_t csr_block_bytes(const CsrLayout& L, int p, uint64_t offset) {
  return std::min(kCsrHashBlock, L.adj_file_bytes(p) - offset);
}

// A block's entries [e0, e1) of the global order, and `first`, the first vertex whose list ends after e0.
struct CsrBlock {
  uint64_t e0 = 0, e1 = 0, first = 0;
};

// Checks partition p's block at `offset` (len bytes at data) against its checksum -- an Error naming the file and
// bytes, and `reader` where given -- and places it in the entry order of g's offsets.
template <class Id>
CsrBlock checked_block(const Csr<Id>& g, const CsrFiles& files, int p, uint64_t offset, const char* data, uint64_t len,
                       const std::string& reader = {}) {
  const CsrLayout& L = files.layout();
  const uint64_t block = offset / kCsrHashBlock;
  if (xxh3(data, len) != files.block_hash(p, block))
    throw Error(fmt::format("{} is corrupted: checksum mismatch in block {} (bytes {}..{}){}", files.adj(p).file.path(),
                            block, offset, offset + len - 1, reader.empty() ? "" : ", read by " + reader));
  CsrBlock b;
  b.e0 = L.part_first[p] + offset / L.entry_bytes();
  b.e1 = std::min(L.part_first[p + 1], b.e0 + len / L.entry_bytes());
  uint64_t lo = L.bounds[p], hi = L.bounds[p + 1];
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (g.offsets[mid + 1] <= b.e0) lo = mid + 1; else hi = mid;
  }
  b.first = lo;
  return b;
}

}  // namespace strata
