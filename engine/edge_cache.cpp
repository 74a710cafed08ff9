#include "engine/edge_cache.hpp"

#include <fmt/format.h>

#include <cstring>
#include <type_traits>

#include "core/error.hpp"
#include "engine/csr_blocks.hpp"
#include "storage/uring_reader.hpp"

namespace strata {

namespace {

// Checks one 4 MiB block of partition p's file (bytes [offset, offset + len)) against its checksum and
// copies the cached prefixes that fall inside it.
template <class Id, class Entry>
void absorb_block(const Csr<Id>& g, const CsrFiles& files, EdgeCache<Entry>& c, int p, uint64_t offset, const char* data,
                  uint64_t len) {
  const CsrLayout& L = files.layout();
  const auto [e0, e1, lo] = checked_block(g, files, p, offset, data, len);  // entries [e0, e1) of the global order
  const Entry* ids = reinterpret_cast<const Entry*>(data);
  uint64_t at = c.index.begin(lo, g.offsets);  // where v's prefix goes in the cache
  for (uint64_t v = lo; v < L.bounds[p + 1] && g.offsets[v] < e1; ++v) {
    const uint64_t start = g.offsets[v], length = c.index.length(g.offsets[v + 1] - start);
    const uint64_t begin = std::max(start, e0), end = std::min(start + length, e1);
    if (begin < end) std::memcpy(c.adj.data() + at + (begin - start), ids + (begin - e0), (end - begin) * sizeof(Entry));
    at += length;
  }
}

template <class Id, class Entry>
EdgeCache<Entry> empty_cache(const Csr<Id>& g, uint64_t k, uint64_t hub_degree) {
  EdgeCache<Entry> c;
  c.k = k;
  c.hub_degree = hub_degree;
  c.index = PrefixIndex(g.offsets, g.n, k, hub_degree);
  c.adj = NumaArray<Entry>(c.index.entries());
  return c;
}

// The files hold the entries the cache is of (a weighted CSR's pairs, or ids).
template <class Id, class Entry>
void check_entries(const CsrFiles& files) {
  if (files.layout().weighted != !std::is_same_v<Id, Entry> || files.layout().entry_bytes() != sizeof(Entry))
    throw Error(fmt::format("internal error: {} holds {}-byte entries, not the {} the cache is of", files.path(),
                            files.layout().entry_bytes(), sizeof(Entry)));
}

}  // namespace

// Reads the whole on-disk adjacency once, sequentially (O_DIRECT, 4 MiB requests, each checked against its
// block checksum -- a corrupted or truncated file is found here, before any search), keeping the prefixes.
template <class Id, class Entry>
EdgeCache<Entry> load_edge_cache(const Csr<Id>& g, const CsrFiles& files, uint64_t k, uint64_t hub_degree,
                                 const std::function<void(uint64_t, uint64_t)>& progress) {
  check_entries<Id, Entry>(files);
  EdgeCache<Entry> c = empty_cache<Id, Entry>(g, k, hub_degree);
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
        r.length = uint32_t(csr_block_bytes(L, part, offset));
        offset += r.length;
        return true;
      },
      [&](const ReadRequest& r, const char* data) {
        absorb_block(g, files, c, int(r.file), r.offset, data, r.length);
        loaded += r.length;
        if (progress) progress(loaded, total);
      });
  return c;
}

// The same from mapped partition files (DAX): every block checked in place, in parallel, prefixes copied.
template <class Id, class Entry>
EdgeCache<Entry> load_edge_cache_mapped(const Csr<Id>& g, const CsrFiles& files, const std::vector<const char*>& mapped,
                                        uint64_t k, uint64_t hub_degree) {
  check_entries<Id, Entry>(files);
  EdgeCache<Entry> c = empty_cache<Id, Entry>(g, k, hub_degree);
  const CsrLayout& L = files.layout();
  const std::vector<std::pair<int, uint64_t>> blocks = csr_blocks(L);
  FirstError errors;
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < blocks.size(); ++i)
    errors.run([&] {
      const auto [p, off] = blocks[i];
      absorb_block(g, files, c, p, off, mapped[p] + off, csr_block_bytes(L, p, off));
    });
  errors.rethrow();
  return c;
}


#define STRATA_EDGE_CACHE(Id, Entry)                                                                               \
  template EdgeCache<Entry> load_edge_cache<Id, Entry>(const Csr<Id>&, const CsrFiles&, uint64_t, uint64_t,        \
                                                       const std::function<void(uint64_t, uint64_t)>&);             \
  template EdgeCache<Entry> load_edge_cache_mapped<Id, Entry>(const Csr<Id>&, const CsrFiles&,                     \
                                                              const std::vector<const char*>&, uint64_t, uint64_t);
STRATA_EDGE_CACHE(uint32_t, uint32_t)
STRATA_EDGE_CACHE(uint64_t, uint64_t)
STRATA_EDGE_CACHE(uint32_t, NodeWeight<uint32_t>)

}  // namespace strata
