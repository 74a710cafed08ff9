// The edge cache's prefixes kept as kernel 1 writes the on-disk CSR, so that the run which builds it loads its
// cache from them instead of reading the whole adjacency back: at SCALE 28 the read-back was 34 GB and 35 s of
// a 534 s kernel 1, the prefixes at most twice its 3 GB cache. SCALE 26 in the flagship's regime scaled, 3
// rounds interleaved: the cache load 7.3/5.7/7.1 -> 1.6/1.4/1.3 s, the CSR's write phase 6.0/5.1/5.7 -> 6.4/7.1/6.1
// s. The build does not know K yet (it comes from the deduplicated degrees), so it keeps min(degree, K_s) entries a list, K_s the largest K whose prefixes of the raw degrees
// (duplicates counted, so never shorter) fill twice the cache's bytes: a cache of K <= K_s is then taken from them,
// and the duplicates would have to exceed the cache's own size for K to be larger (the caller then reads the
// CSR as before). One unlinked scratch file, written behind the build in 4 MiB blocks, each checked against its
// XXH3 as it is read back. A reused CSR is read whole, its every block checked, before any search; the run that
// builds one trusts its own writes until the first validation pass checks every block.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "engine/csr.hpp"
#include "engine/edge_cache.hpp"
#include "storage/csr_files.hpp"
#include "storage/hash.hpp"
#include "storage/numa_array.hpp"
#include "storage/spill_file.hpp"
#include "storage/write_behind.hpp"

namespace strata {

// Where kernel 1 may keep the prefixes (empty dir: it does not), and for which cache: its bytes (K_s is chosen
// from them), or the K asked for (k >= 0).
struct PrefixStaging {
  std::string dir;
  uint64_t cache_bytes = 0;
  int64_t k = -1;
  // For a cache of what `budget` leaves beside the I/O buffers (or of the K asked for, k >= 0), kept in dir; none
  // for DAX (its cache is copied from the mapping in parallel), with hubs whole (their lists are longer than any
  // prefix) or without room beside the buffers.
  static PrefixStaging for_cache(std::string dir, bool dax, uint64_t hub_degree, uint64_t budget, uint64_t io_buffers,
                                 int64_t k) {
    if (dax || hub_degree != kNoHubs || budget <= io_buffers) return {};
    return {std::move(dir), budget - io_buffers, k};
  }
};

class PrefixStage {
 public:
  // Blocks of 4 MiB, as the CSR's; smaller where the build's memory is small (a 64th of it, from 64 KiB): the
  // build holds two while it appends, one written behind.
  static constexpr uint64_t kBlockBytes = kCsrHashBlock, kMinBlockBytes = uint64_t(64) << 10;
  static uint64_t block_bytes_for(uint64_t memory_bytes) {
    uint64_t block = kBlockBytes;
    while (block > kMinBlockBytes && block * 64 > memory_bytes) block /= 2;
    return block;
  }
  static uint64_t buffer_bytes(uint64_t block_bytes) { return 2 * block_bytes; }

  // K_s: the largest K whose prefixes of those lists hold at most 2 * cache_bytes (k_for_budget's search).
  static uint64_t stage_k(const CacheSizes& raw, uint64_t cache_bytes, uint64_t entry_bytes) {
    uint64_t k = 0;
    k_for_budget(raw, 2 * cache_bytes, kNoHubs, k, entry_bytes);  // no hubs: K = 0 always fits
    return k;
  }

  // A stage of min(degree, k) entries of entry_bytes a list, at most `entries` in all (a scratch file in dir), in
  // blocks of block_bytes (a power of two from 4 KiB).
  PrefixStage(const std::string& dir, uint64_t k, uint64_t entries, uint64_t entry_bytes, uint64_t block_bytes = kBlockBytes)
      : k_(k), entry_bytes_(entry_bytes), block_bytes_(block_bytes), dir_(dir),
        file_(dir, std::max<uint64_t>(entries * entry_bytes, 1), "kernel 1's cached prefixes"),
        buffer_(buffer_bytes(block_bytes)), behind_(file_, buffer_, 2), block_(behind_.fill(0)) {}
  uint64_t k() const { return k_; }
  // Whether the cache of K (lists of at least hub_degree entries whole) can be cut from this stage.
  bool holds(uint64_t k, uint64_t hub_degree) const { return k <= k_ && hub_degree == kNoHubs; }
  uint64_t bytes() const { return bytes_; }  // staged so far

  // The next `count` lists in vertex order: list i is lists[offsets[i] - offsets[0], offsets[i + 1] - offsets[0]).
  void append(const void* lists, const uint64_t* offsets, uint64_t count) {
    const char* base = static_cast<const char*>(lists);
    for (uint64_t i = 0; i < count; ++i, ++vertex_) {
      const uint64_t length = std::min(offsets[i + 1] - offsets[i], k_);
      const char* from = base + (offsets[i] - offsets[0]) * entry_bytes_;
      for (uint64_t done = 0; done < length;) {
        if (used_ == 0) blocks_.push_back({vertex_, done, 0, 0});
        const uint64_t take = std::min(length - done, (block_bytes_ - used_) / entry_bytes_);
        std::memcpy(block_ + used_, from + done * entry_bytes_, take * entry_bytes_);
        used_ += take * entry_bytes_, done += take;
        if (used_ + entry_bytes_ > block_bytes_) write_block();
      }
    }
  }
  // Overwrites the first page of block b (tests: a storage fault must be an error).
  void damage_for_testing(size_t b) {
    AlignedBuffer junk(kDirectAlign);
    std::memset(junk.data(), 0xA5, kDirectAlign);
    file_.write(b * block_bytes_, junk.data(), kDirectAlign);
  }
  size_t blocks() const { return blocks_.size(); }
  // The last block written and every write waited for (an error naming the file is thrown here).
  void finish() {
    if (used_ > 0) write_block();
    behind_.finish();
  }

  // The cache of K <= k() for g (the CSR the lists were appended from), no hubs whole: every block read back,
  // checked and its prefixes cut to K, concurrently on the OpenMP team. progress(bytes done, total).
  template <class Id, class Entry>
  EdgeCache<Entry> load(const Csr<Id>& g, uint64_t k, const std::function<void(uint64_t, uint64_t)>& progress = {}) const {
    if (k > k_ || sizeof(Entry) != entry_bytes_ || vertex_ != g.n)
      throw Error("internal error: a cache the staged prefixes do not hold");
    EdgeCache<Entry> c;
    c.k = k;
    c.index = PrefixIndex(g.offsets, g.n, k, kNoHubs);
    c.adj = NumaArray<Entry>(c.index.entries());
    const uint64_t total = blocks_.size() * block_bytes_;
    std::atomic<uint64_t> done{0};
    FirstError error;
#pragma omp parallel
    {
      AlignedBuffer buffer(block_bytes_);
#pragma omp for schedule(dynamic, 1)
      for (size_t b = 0; b < blocks_.size(); ++b)
        error.run([&] {
          const Block& block = blocks_[b];
          file_.read(b * block_bytes_, buffer.data(), align_up(block.bytes));
          if (xxh3(buffer.data(), block.bytes) != block.hash)
            throw Error(fmt::format("kernel 1's cached prefixes in {} do not read back as written (block {}): a storage "
                                    "fault",
                                    dir_, b));
          cut(g, c, block, reinterpret_cast<const Entry*>(buffer.data()));
          const uint64_t read = done.fetch_add(block_bytes_, std::memory_order_relaxed) + block_bytes_;
          if (progress && omp_get_thread_num() == 0) progress(read, total);
        });
    }
    error.rethrow();
    return c;
  }

 private:
  struct Block {
    uint64_t vertex, at;  // its first entry: entry `at` of vertex's prefix
    uint64_t bytes, hash;
  };
  void write_block() {
    Block& block = blocks_.back();
    block.bytes = used_;
    bytes_ += used_;
    block.hash = xxh3(block_, used_);
    std::memset(block_ + used_, 0, align_up(used_) - used_);
    const size_t h = (blocks_.size() - 1) % 2;
    behind_.write(h, (blocks_.size() - 1) * block_bytes_, 0, align_up(used_));
    behind_.start(h);
    block_ = behind_.fill(1 - h);
    used_ = 0;
  }
  // A block's entries (the prefixes from its first, in vertex order) into the cache, each cut to K.
  template <class Id, class Entry>
  void cut(const Csr<Id>& g, EdgeCache<Entry>& c, const Block& block, const Entry* entries) const {
    uint64_t v = block.vertex, at = block.at, left = block.bytes / sizeof(Entry);
    uint64_t to = c.index.begin(v, g.offsets);  // where v's cached prefix starts
    while (left > 0) {
      const uint64_t degree = g.degree(v), staged = std::min(degree, k_), cached = std::min(degree, c.k);
      const uint64_t take = std::min(staged - at, left);
      if (at < cached) std::memcpy(c.adj.data() + to + at, entries, (std::min(at + take, cached) - at) * sizeof(Entry));
      entries += take, left -= take, at += take;
      if (at == staged) to += cached, ++v, at = 0;
    }
  }

  uint64_t k_, entry_bytes_, block_bytes_;
  std::string dir_;
  SpillFile file_;
  AlignedBuffer buffer_;
  WriteBehind behind_;
  char* block_;
  uint64_t used_ = 0, vertex_ = 0, bytes_ = 0;
  std::vector<Block> blocks_;
};

// Opens *staged for a build of n lists of raw degree degree(v), raw_entries in all and the longest max_list, in
// staging.dir where it pays: the prefixes fit twice the cache's bytes (a K asked for may not) and at most half the
// adjacency (else reading it back costs no more than writing and reading them), and the build's memory_bytes spare
// its buffers (16 times over, the longest list beside them). An optimisation only: a scratch file that cannot be
// made leaves the cache to the read. Returns the bytes of the build's memory the stage takes (0: none opened).
// Both backends' builds use it: the one-process CSR's (engine/build_csr_files.hpp) and a rank's rows.
template <class Degree>
uint64_t open_prefix_stage(std::optional<PrefixStage>& staged, const PrefixStaging& staging, uint64_t n, Degree&& degree,
                           uint64_t raw_entries, uint64_t max_list, uint64_t entry_bytes, uint64_t memory_bytes) {
  const uint64_t block = PrefixStage::block_bytes_for(memory_bytes), buffers = PrefixStage::buffer_bytes(block);
  if (staging.dir.empty() || 16 * buffers > memory_bytes || max_list * entry_bytes + 8 > memory_bytes - buffers) return 0;
  const CacheSizes sizes(n, std::forward<Degree>(degree));
  const uint64_t k = staging.k >= 0 ? uint64_t(staging.k) : PrefixStage::stage_k(sizes, staging.cache_bytes, entry_bytes);
  const uint64_t entries = sizes.entries(k, kNoHubs);
  if (entries * entry_bytes > 2 * staging.cache_bytes || 2 * entries > raw_entries) return 0;
  try {
    staged.emplace(staging.dir, k, entries, entry_bytes, block);
    return buffers;
  } catch (const Error&) {
    staged.reset();
    return 0;
  }
}

}  // namespace strata
