// The DRAM edge cache of the out-of-core placement (NETALX's on-mem-edges): the first K entries of every
// neighbour list, and whole lists of hubs (degree >= hub_degree). Lists are sorted by neighbour degree, so
// the cached prefix holds a vertex's best parent candidates; the rest of the list (the tail) stays on
// storage at offsets[v] + cached(v). Changing K never rebuilds the on-disk CSR.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>
#include <xxhash.h>

#include "engine/block_offsets.hpp"
#include "engine/csr.hpp"
#include "generators/edge_stream.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/uring_reader.hpp"

namespace strata {

inline constexpr uint64_t kNoHubs = UINT64_MAX;

inline uint64_t cached_entries(uint64_t degree, uint64_t k, uint64_t hub_degree) {
  return degree >= hub_degree ? degree : std::min(degree, k);
}

template <class Id>
struct EdgeCache {
  uint64_t k = 0;
  uint64_t hub_degree = kNoHubs;
  BlockOffsets offsets;  // n + 1: v's cached entries are adj[offsets[v], offsets[v+1])
  NumaArray<Id> adj;
  uint64_t entries_bytes() const { return adj.bytes(); }
};

// Entries the cache holds with prefix K.
template <class Id>
uint64_t cache_entries(const Csr<Id>& g, uint64_t k, uint64_t hub_degree) {
  uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (uint64_t v = 0; v < g.n; ++v) sum += cached_entries(g.degree(v), k, hub_degree);
  return sum;
}

// The largest K whose cache fits in `bytes` (K = the maximum degree means every list is whole); returns
// false when even K = 0 does not fit (the hubs alone exceed it).
template <class Id>
bool k_for_budget(const Csr<Id>& g, uint64_t bytes, uint64_t hub_degree, uint64_t& k) {
  const uint64_t max_degree = g.n > 0 ? g.degree(0) : 0;  // ids are degree-ordered
  const uint64_t cap = bytes / sizeof(Id);
  if (cache_entries(g, 0, hub_degree) > cap) return false;
  uint64_t lo = 0, hi = max_degree;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (cache_entries(g, mid, hub_degree) <= cap) lo = mid; else hi = mid - 1;
  }
  k = lo;
  return true;
}

namespace edge_cache_detail {

// Checks one 4 MiB block of partition p's file (bytes [offset, offset + len)) against its checksum and
// copies the cached prefixes that fall inside it.
template <class Id>
void absorb_block(const Csr<Id>& g, const CsrFiles& files, EdgeCache<Id>& c, int p, uint64_t offset, const char* data,
                  uint64_t len) {
  const CsrLayout& L = files.layout();
  const uint64_t block = offset / kCsrHashBlock;
  if (XXH3_64bits(data, len) != files.block_hash(p, block))
    throw Error(fmt::format("{} is corrupted: checksum mismatch in block {} (bytes {}..{})", files.adj(p).file.path(),
                            block, offset, offset + len - 1));
  const uint64_t e0 = L.part_first[p] + offset / sizeof(Id);  // entries [e0, e1) of the global order
  const uint64_t e1 = std::min(L.part_first[p + 1], e0 + len / sizeof(Id));
  const Id* ids = reinterpret_cast<const Id*>(data);
  uint64_t lo = L.bounds[p], hi = L.bounds[p + 1];  // first vertex whose list ends after e0
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (g.offsets[mid + 1] <= e0) lo = mid + 1; else hi = mid;
  }
  for (uint64_t v = lo; v < L.bounds[p + 1] && g.offsets[v] < e1; ++v) {
    const uint64_t begin = std::max(g.offsets[v], e0);
    const uint64_t end = std::min(g.offsets[v] + (c.offsets[v + 1] - c.offsets[v]), e1);
    if (begin < end)
      std::memcpy(c.adj.data() + c.offsets[v] + (begin - g.offsets[v]), ids + (begin - e0), (end - begin) * sizeof(Id));
  }
}

template <class Id>
EdgeCache<Id> empty_cache(const Csr<Id>& g, uint64_t k, uint64_t hub_degree) {
  EdgeCache<Id> c;
  c.k = k;
  c.hub_degree = hub_degree;
  NumaArray<uint64_t> off(g.n + 1);
  for (uint64_t v = 0; v < g.n; ++v) off[v + 1] = off[v] + cached_entries(g.degree(v), k, hub_degree);
  c.offsets = BlockOffsets(off);
  c.adj = NumaArray<Id>(off[g.n]);
  return c;
}

}  // namespace edge_cache_detail

// Reads the whole on-disk adjacency once, sequentially (O_DIRECT, 4 MiB requests, each checked against its
// block checksum -- a corrupted or truncated file is found here, before any search), keeping the prefixes.
template <class Id>
EdgeCache<Id> load_edge_cache(const Csr<Id>& g, const CsrFiles& files, uint64_t k, uint64_t hub_degree,
                              const std::function<void(uint64_t, uint64_t)>& progress = {}) {
  EdgeCache<Id> c = edge_cache_detail::empty_cache(g, k, hub_degree);
  const CsrLayout& L = files.layout();
  uint64_t total = 0;
  for (int p = 0; p < L.parts(); ++p) total += L.adj_file_bytes(p);
  UringReader reader(files.adj_files(), 4, uint32_t(kCsrHashBlock));
  int part = 0;
  uint64_t offset = 0, loaded = 0;
  reader.run(
      [&](ReadRequest& r) {
        while (part < L.parts() && offset >= L.adj_file_bytes(part)) part++, offset = 0;
        if (part >= L.parts()) return false;
        r.file = uint32_t(part);
        r.offset = offset;
        r.length = uint32_t(std::min(kCsrHashBlock, L.adj_file_bytes(part) - offset));
        offset += r.length;
        return true;
      },
      [&](const ReadRequest& r, const char* data) {
        edge_cache_detail::absorb_block(g, files, c, int(r.file), r.offset, data, r.length);
        loaded += r.length;
        if (progress) progress(loaded, total);
      });
  return c;
}

// The same from mapped partition files (DAX): every block checked in place, in parallel, prefixes copied.
template <class Id>
EdgeCache<Id> load_edge_cache_mapped(const Csr<Id>& g, const CsrFiles& files, const std::vector<const char*>& mapped,
                                     uint64_t k, uint64_t hub_degree) {
  EdgeCache<Id> c = edge_cache_detail::empty_cache(g, k, hub_degree);
  const CsrLayout& L = files.layout();
  std::vector<std::pair<int, uint64_t>> blocks;
  for (int p = 0; p < L.parts(); ++p)
    for (uint64_t off = 0; off < L.adj_file_bytes(p); off += kCsrHashBlock) blocks.push_back({p, off});
  FirstError errors;
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < blocks.size(); ++i)
    errors.run([&] {
      const auto [p, off] = blocks[i];
      edge_cache_detail::absorb_block(g, files, c, p, off, mapped[p] + off, std::min(kCsrHashBlock, L.adj_file_bytes(p) - off));
    });
  errors.rethrow();
  return c;
}

}  // namespace strata
