// Kernel 1's external distribution (the out-of-core build, issue 24): the tuples in internal ids, written in one
// pass into one bucket per range of the build, so that each range is then built from its own bucket alone. The
// build's I/O is then O(E) whatever the budget (the input read twice: the degree pass and the distribution; the
// buckets written and read once), where a pass over every tuple per range grew with graph / DRAM.
//
// A bucket is a list of blocks in one unlinked scratch file. A block is a thread's staged entries for one bucket,
// sorted by (row, neighbour) and coded as varint deltas: the row's delta, then the neighbour's delta where the row
// did not change, else the neighbour. Where a bucket's flush holds fewer entries than the bucket has rows (the
// buckets of the many short lists), a row's entries rarely meet in one: its blocks are sorted by row alone, fewer
// radix passes, and code every neighbour whole (`by_row`). Measured about 3 bytes an entry (against 8 for the pairs), so that the
// buckets fit on disk beside the CSR. Each block's XXH3 is kept in DRAM and checked as it is read back (a storage
// fault is an error, never a wrong CSR); a bucket's blocks are handed back to the filesystem once it is read.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "engine/build_csr.hpp"
#include "engine/csr.hpp"
#include "storage/hash.hpp"
#include "storage/numa_array.hpp"
#include "storage/spill_file.hpp"
#include "storage/write_behind.hpp"

namespace strata {

// Entry: Id, or NodeWeight<Id> for the weighted CSR (kernel 3 on storage): each coded entry is then followed
// by its weight's 4 raw bytes.
template <class Id, class Entry = Id>
class EdgeBuckets {
  static constexpr bool kWeighted = !std::is_same_v<Entry, Id>;
  struct WeightedKey {
    uint64_t key;  // (row in the bucket << id_bits_) | neighbour
    float w;
  };
  using Staged = std::conditional_t<kWeighted, WeightedKey, uint64_t>;
  static uint64_t key_of(uint64_t k) { return k; }
  static uint64_t key_of(const WeightedKey& k) { return k.key; }

 public:
  static constexpr uint64_t kBlockBytes = uint64_t(256) << 10;  // a small block's most bytes: a thread's I/O buffer
  // Blocks of 1 MiB where the memory holds their buffers 64 times over (2 a reader, kWriteParts a thread's flush): the fill
  // reads fewer, larger requests (SCALE 26 in the flagship's regime, 4 rounds interleaved: the fill 17.65 -> 15.9
  // s, the distribution 61.6 -> 58.9 s, medians). Below, 256 KiB: the buffers are a fixed cost of every build,
  // and a small budget (a rank's few MiB) would leave its staging so little that tiny blocks pad the file.
  static constexpr uint64_t kLargeBlockBytes = uint64_t(1) << 20;
  static uint64_t block_bytes_for(uint64_t memory_bytes, int threads) {
    const uint64_t buffers = uint64_t(threads) * (kReadersPerThread + kWriteParts) * kLargeBlockBytes;
    return memory_bytes / 64 >= buffers ? kLargeBlockBytes : kBlockBytes;
  }
  static constexpr uint64_t kMinStage = 256;                    // fewer staged entries a bucket: not worth it
  // Disk reserved up front: 4 bytes an entry, 2 entries a tuple, as the pairs' ids alone (measured 2.96 bytes an
  // entry at SCALE 22 under a 448 MiB cap: the neighbours of the many short lists are hubs, small ids; more is
  // written if need be, a full disk then being an error naming the scratch file). What is not written is handed
  // back once the tuples are in.
  static uint64_t reserve_bytes(uint64_t tuples) { return align_up(tuples * 2 * (kWeighted ? 8 : 4)); }
  // A thread's flush codes a large block while its last is written (WriteBehind): the wait cost a core (SCALE 26
  // in the flagship's regime scaled, 3 rounds interleaved: kernel 1 112.1 -> 105.7 s, medians). Small blocks are
  // written as they are made: where DRAM is that short (a rank's few MiB), a second buffer would halve the staging.
  static constexpr size_t kWriteParts = 2;
  static size_t write_parts(uint64_t block_bytes) { return block_bytes >= kLargeBlockBytes ? kWriteParts : 1; }
  // Entries staged a bucket and thread within memory_bytes (0: too few to be worth a bucket): the staging, the
  // sort's scratch (one bucket's worth) and the flush's block buffers, a thread each.
  static uint64_t stage_for(uint64_t memory_bytes, int threads, size_t buckets) {
    const uint64_t block = block_bytes_for(memory_bytes, threads);
    const uint64_t fixed = uint64_t(threads) * write_parts(block) * block;
    if (memory_bytes <= fixed) return 0;
    const uint64_t stage = (memory_bytes - fixed) / (uint64_t(threads) * sizeof(Staged) * (buckets + 1));
    return stage >= kMinStage ? stage : 0;
  }
  // A bucket is read by two threads for each of the run's, each waiting for its own block, decoding it, then
  // reading the next: while one waits on the device the other decodes (SCALE 26 under the flagship's cap
  // scaled, the fill phase 12.9-14.2 s against 18.9-22.9 s with one for each).
  static constexpr int kReadersPerThread = 2;
  // DRAM while a bucket is read: a block buffer a reader, its blocks as built within memory_bytes (0: the small).
  static uint64_t read_bytes(int threads, uint64_t memory_bytes = 0) {
    return uint64_t(threads) * kReadersPerThread * block_bytes_for(memory_bytes, threads);
  }

  // Buckets of vertices [bounds[k], bounds[k + 1]) of n, holding at most entries[k] entries; up to `stage` entries
  // staged per bucket and thread (never more than the bucket can hold: DRAM is taken only as it is used); blocks
  // of at most block_bytes (block_bytes_for the memory that stage_for and read_bytes were given).
  EdgeBuckets(std::vector<uint64_t> bounds, const std::vector<uint64_t>& entries, uint64_t n, const std::string& dir,
              uint64_t reserve, uint64_t stage, uint64_t block_bytes = kBlockBytes)
      : bounds_(std::move(bounds)), block_bytes_(block_bytes), dir_(dir), file_(dir, reserve, "kernel 1's tuple buckets"),
        blocks_(bounds_.size() - 1), threads_(size_t(omp_get_max_threads())) {
    while (id_bits_ < 63 && (n > 0 ? n - 1 : 0) >> id_bits_) ++id_bits_;
    const uint64_t count = bounds_.size() - 1, span = bounds_.back() - bounds_.front();
    while (span > 0 && ((span - 1) >> shift_) >= kTable) ++shift_;
    first_.resize(span > 0 ? ((span - 1) >> shift_) + 1 : 1);
    for (uint64_t slot = 0, k = 0; slot < first_.size(); ++slot) {
      while (k + 1 < count && bounds_[k + 1] <= bounds_.front() + (slot << shift_)) ++k;
      first_[slot] = uint32_t(k);
    }
    stage_.assign(count + 1, 0);  // bucket k's staging: [stage_[k], stage_[k + 1])
    uint64_t widest = 1;          // the sort's scratch: the widest bucket's staging
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t staged = std::clamp<uint64_t>(entries.at(k), 1, stage);
      stage_[k + 1] = stage_[k] + staged;
      widest = std::max(widest, staged);
    }
    for (Thread& t : threads_)  // mapped, not touched: DRAM as the staging fills (huge pages: the sort scatters)
      t.staged = NumaArray<Staged>(stage_[count]), t.scratch = NumaArray<Staged>(widest), t.full.assign(count, 0);
  }

  // Entry b in list a, by OpenMP thread t.
  void add(size_t t, uint64_t a, Entry b) {
    uint64_t k = first_[(a - bounds_.front()) >> shift_];
    while (a >= bounds_[k + 1]) ++k;
    Thread& th = threads_[t];
    const uint64_t key = ((a - bounds_[k]) << id_bits_) | uint64_t(entry_id(b));
    if constexpr (kWeighted) th.staged[stage_[k] + th.full[k]++] = {key, b.w};
    else th.staged[stage_[k] + th.full[k]++] = key;
    if (th.full[k] == stage_[k + 1] - stage_[k]) flush(t, k);
  }
  // Every thread's staged entries written out (after the distribution, outside a parallel region).
  void finish() {
    FirstError error;
#pragma omp parallel
    {
      const size_t t = size_t(omp_get_thread_num());
      if (t < threads_.size())
        error.run([&] {
          for (size_t k = 0; k < blocks_.size(); ++k) flush(t, k);
          if (threads_[t].behind) threads_[t].behind->finish();
        });
    }
    error.rethrow();
    for (Thread& t : threads_) t.behind.reset(), t = Thread();  // the staging's DRAM back before the ranges are built
    if (end_ < file_.bytes()) file_.release(end_, file_.bytes() - end_);  // the reservation not written: back now
  }
  uint64_t written_bytes() const { return end_.load(); }
  uint64_t entries() const { return entries_.load(); }
  // Overwrites the first page of bucket k's first block (tests: a storage fault must be an error).
  void damage_for_testing(size_t k) {
    AlignedBuffer junk(kDirectAlign);
    std::memset(junk.data(), 0xA5, kDirectAlign);
    file_.write(blocks_.at(k).at(0).offset, junk.data(), kDirectAlign);
  }

  // fn(rows, entries, count) for batches of bucket k's entries (rows as offsets from the bucket's first
  // vertex, bucket_first(k)), concurrently on kReadersPerThread threads for each of the run's. The bucket's
  // blocks are handed back to the filesystem after. Batches, not entries: a caller scattering them can start a
  // batch's misses together.
  static constexpr size_t kBatch = 256;
  template <class Fn>
  void for_each_batch(size_t k, Fn&& fn) {
    FirstError error;
    const std::vector<Block>& blocks = blocks_[k];
#pragma omp parallel num_threads(kReadersPerThread * omp_get_max_threads())
    {
      AlignedBuffer buffer(block_bytes_);
#pragma omp for schedule(dynamic, 1)
      for (size_t b = 0; b < blocks.size(); ++b)
        error.run([&] {
          const Block& block = blocks[b];
          file_.read(block.offset, buffer.data(), align_up(block.bytes));
          if (xxh3(buffer.data(), block.bytes) != block.hash)
            throw Error(fmt::format("kernel 1's tuple buckets in {} do not read back as written (bucket {}, block {}): "
                                    "a storage fault",
                                    dir_, k, b));
          decode(reinterpret_cast<const uint8_t*>(buffer.data()), block, by_row(k), fn);
        });
    }
    error.rethrow();
    for (const Block& block : blocks) file_.release(block.offset, align_up(block.bytes));
    blocks_[k] = {};
  }
  uint64_t bucket_first(size_t k) const { return bounds_[k]; }

  // Bucket k's entries scattered into their lists: entry e of list bucket_first(k) + r goes to out[cursor[r]++ -
  // base] (cursors from the bucket's first list); a batch's cursor misses, then its writes' misses, started
  // together. A block is sorted by row, so a row's entries in a batch are one run: one locked add a run, not an
  // entry (a hub's runs are long), and the run written in order. on_batch(entries) after each batch (progress).
  // The bucket is handed back after.
  template <class OnBatch>
  void fill(size_t k, uint64_t* cursor, Entry* out, uint64_t base, OnBatch&& on_batch) {
    for_each_batch(k, [&](const uint32_t* rows, const Entry* entries, size_t count) {
      uint32_t start[kBatch + 1];  // run j: entries [start[j], start[j + 1]), all of row rows[start[j]]
      size_t runs = 0;
      for (size_t i = 0; i < count; ++i)
        if (i == 0 || rows[i] != rows[i - 1]) start[runs++] = uint32_t(i);
      start[runs] = uint32_t(count);
      uint64_t at[kBatch];
      for (size_t j = 0; j < runs; ++j) __builtin_prefetch(cursor + rows[start[j]], 1);
      for (size_t j = 0; j < runs; ++j) {
        at[j] = build_detail::fetch_add(cursor[rows[start[j]]], uint64_t(start[j + 1] - start[j])) - base;
        __builtin_prefetch(out + at[j], 1);
      }
      for (size_t j = 0; j < runs; ++j) std::copy(entries + start[j], entries + start[j + 1], out + at[j]);
      on_batch(count);
    });
  }

 private:
  static constexpr uint64_t kTable = uint64_t(1) << 16;
  struct Block {
    uint64_t offset, hash;
    uint32_t bytes, entries;
  };
  struct Thread {
    NumaArray<Staged> staged;          // bucket k's from stage_[k]
    std::vector<uint64_t> full;        // [bucket]: entries staged
    NumaArray<Staged> scratch;         // the sort's: the widest bucket's staging
    AlignedBuffer blocks{0};           // write_parts blocks, one coded while the other is written
    std::unique_ptr<WriteBehind> behind;  // after blocks: destroyed (its writes waited for) before them
    size_t part = 0;                   // the block being coded
  };

  // Bucket k's blocks sorted by row alone: a full flush holds fewer entries than the bucket has rows.
  bool by_row(size_t k) const { return stage_[k + 1] - stage_[k] < bounds_[k + 1] - bounds_[k]; }

  static uint8_t* put(uint8_t* p, uint64_t x) {
    while (x >= 0x80) *p++ = uint8_t(x | 0x80), x >>= 7;
    *p++ = uint8_t(x);
    return p;
  }
  static uint64_t get(const uint8_t*& p) {
    uint64_t x = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t byte = *p++;
      x |= uint64_t(byte & 0x7f) << shift;
      if (byte < 0x80) return x;
    }
  }

  // Thread t's staged entries for bucket k sorted and written as blocks, each coded from (0, 0) afresh.
  void flush(size_t t, size_t k) {
    Thread& th = threads_[t];
    Staged* keys = th.staged.data() + stage_[k];
    const uint64_t count = std::exchange(th.full[k], 0);
    if (count == 0) return;
    int row_bits = 1;
    while (row_bits < 63 && (bounds_[k + 1] - bounds_[k] - 1) >> row_bits) ++row_bits;
    const bool rows_only = by_row(k);
    const int skip = rows_only ? id_bits_ : 0;  // the key's bits the sort leaves alone
    build_detail::cache_radix_sort(keys, th.scratch.data(), count, std::min(64, row_bits + id_bits_ - skip),
                                   [skip](const Staged& x) { return key_of(x) >> skip; });
    if (!th.behind) {
      th.blocks = AlignedBuffer(write_parts(block_bytes_) * block_bytes_);
      th.behind = std::make_unique<WriteBehind>(file_, th.blocks, write_parts(block_bytes_));
    }
    uint8_t* begin = reinterpret_cast<uint8_t*>(th.behind->fill(th.part));
    uint8_t* p = begin;
    uint64_t row = 0, id = 0, in_block = 0;
    const uint64_t mask = (uint64_t(1) << id_bits_) - 1;
    for (uint64_t i = 0; i < count; ++i) {
      if (uint64_t(p - begin) + 24 > block_bytes_) {
        begin = write_block(th, k, begin, uint64_t(p - begin), in_block);
        p = begin, row = 0, id = 0, in_block = 0;
      }
      const uint64_t r = key_of(keys[i]) >> id_bits_, v = key_of(keys[i]) & mask;
      p = put(p, r - row);
      p = put(p, r == row && !rows_only ? v - id : v);
      if constexpr (kWeighted) std::memcpy(p, &keys[i].w, 4), p += 4;
      row = r, id = v, ++in_block;
    }
    write_block(th, k, begin, uint64_t(p - begin), in_block);
  }

  // Thread th's block being coded (bytes of it, `entries` entries of bucket k) written behind; returns the next.
  uint8_t* write_block(Thread& th, size_t k, uint8_t* data, uint64_t bytes, uint64_t entries) {
    std::memset(data + bytes, 0, align_up(bytes) - bytes);
    const Block block{end_.fetch_add(align_up(bytes)), xxh3(data, bytes), uint32_t(bytes), uint32_t(entries)};
    th.behind->write(th.part, block.offset, 0, align_up(bytes));
    th.behind->start(th.part);
    entries_ += entries;
    {
      const std::lock_guard<std::mutex> hold(lock_);
      blocks_[k].push_back(block);
    }
    th.part = (th.part + 1) % th.behind->parts();
    return reinterpret_cast<uint8_t*>(th.behind->fill(th.part));
  }

  template <class Fn>
  void decode(const uint8_t* p, const Block& block, bool rows_only, Fn&& fn) const {
    const uint8_t* const end = p + block.bytes;
    uint32_t rows[kBatch];
    Entry ids[kBatch];
    uint64_t row = 0, id = 0;
    size_t full = 0;
    for (uint32_t i = 0; i < block.entries; ++i) {
      const uint64_t dr = get(p);
      row += dr;
      id = dr == 0 && !rows_only ? id + get(p) : get(p);
      rows[full] = uint32_t(row);
      if constexpr (kWeighted) {
        ids[full].v = Id(id);
        std::memcpy(&ids[full].w, p, 4), p += 4;
      } else {
        ids[full] = Id(id);
      }
      if (++full == kBatch) fn(rows, ids, full), full = 0;
    }
    if (full > 0) fn(rows, ids, full);
    if (p != end) throw Error(fmt::format("kernel 1's tuple buckets in {}: a block does not decode to its entries", dir_));
  }

  std::vector<uint64_t> bounds_;
  uint64_t block_bytes_;
  std::string dir_;
  SpillFile file_;
  std::vector<uint64_t> stage_;  // staging offsets by bucket, the same in every thread
  int id_bits_ = 1;
  uint64_t shift_ = 0;
  std::vector<uint32_t> first_;  // a slot of 2^shift_ vertices' first bucket
  std::vector<std::vector<Block>> blocks_;
  std::vector<Thread> threads_;
  std::atomic<uint64_t> end_{0}, entries_{0};
  std::mutex lock_;
};

}  // namespace strata
