// Kernel 1 for the out-of-core and DAX placements: builds the on-disk CSR (storage/csr_files.hpp) from a
// graph directory without holding the tuple list or the adjacency. The degree pass and renumbering are the
// in-memory build's; then the vertices are cut into ranges whose pre-deduplication lists fit in
// `memory_bytes`, and each range's lists are filled, sorted, deduplicated and appended to its partition's file.
// Where the disk has room (Renumbering) the tuples are distributed once into a bucket a range on disk
// (engine/edge_buckets.hpp) and each range is filled from its bucket: the input read twice and the buckets once,
// whatever the budget. Else each range takes one pass over the tuples (RangeMarks, RangeScatter): no disk, but
// passes that grow with graph / DRAM. Memory: that scratch plus O(N) (raw offsets, labels, duplicates, the range
// marks: 13.1 bytes a vertex; 16 for a moment before the scratch is taken, as the labels move to their slots).
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/ids.hpp"
#include "engine/build_csr.hpp"
#include "engine/csr.hpp"
#include "engine/edge_buckets.hpp"
#include "engine/prefix_stage.hpp"
#include "engine/topology.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"
#include "storage/hash.hpp"
#include "storage/spill_file.hpp"

namespace strata {

struct ExternalBuildStats {
  uint64_t passes = 0;            // ranges built
  uint64_t scratch_bytes = 0;     // the range buffer
  uint64_t renumbered_bytes = 0;  // the tuple buckets written to disk and read back once (0: ranges read the tuples)
  uint64_t tuple_passes = 0;      // passes over the tuples after the degree pass: 1 with buckets, else one a range
  uint64_t csr_bytes = 0;         // the adjacency written
  uint64_t prefix_bytes = 0;      // the edge cache's prefixes kept beside it (engine/prefix_stage.hpp; 0: none)
  // Seconds by phase: the degree pass, the distribution into buckets, the ranges' fill (from the buckets or the
  // tuples), their sort and deduplication, and their compaction and write.
  double count_s = 0, distribute_s = 0, fill_s = 0, sort_s = 0, write_s = 0;
};

// Where the external build may write its tuple buckets (empty: nowhere; each range then takes a pass over the
// tuples, which needs no disk) and from how many ranges it does: 2. A pass regenerates (or reads) every tuple and
// tests both ends, so two passes cost two generations against one and the buckets' write and read: kernel 1 at
// SCALE 26 under a 7 GiB cap (2 ranges) took 204.4 and 199.1 s with a pass a range, 149.0 and 155.6 s with
// buckets. At SCALE 22 under 448 MiB, where the label array sits in the last-level cache, 2 ranges took 8.47 s
// with buckets against 8.21 s with a pass a range (medians of 3), and 3 ranges 8.21 s against 8.87 s.
struct Renumbering {
  std::string dir;
  uint64_t min_passes = 2;
  static Renumbering for_source(const GraphDir&, const std::string& dir) { return {dir}; }  // from min_passes ranges
};

// One range pass of the external build: vertices [lo, hi) of partition part.
struct BuildRange {
  int part;
  uint64_t lo, hi;
};

// The vertices of a range pass by slot (LabelSlots), a bit each: n/8 bytes (16 MiB at SCALE 27), which the
// last-level cache holds where it cannot hold the labels (512 MiB). A tuple with neither end in the range (about
// half of a pass's) then costs two bit tests instead of two label loads from DRAM.
class RangeMarks {
 public:
  explicit RangeMarks(uint64_t n) : n_(n), bits_((n + 63) / 64) {}
  // Marks the slots whose internal ids lie in [lo, hi): one sequential pass over the labels.
  template <class Id>
  void mark(const NumaArray<Id>& label, uint64_t lo, uint64_t hi) {
#pragma omp parallel for schedule(static)
    for (uint64_t w = 0; w < bits_.size(); ++w) {
      uint64_t word = 0;
      const uint64_t end = std::min<uint64_t>(64, n_ - w * 64);
      for (uint64_t j = 0; j < end; ++j) word |= uint64_t(label[w * 64 + j] >= lo && label[w * 64 + j] < hi) << j;
      bits_[w] = word;
    }
  }
  // Whether a tuple, its ends at slots su and sv, has an end in the range (a self-loop is no entry of any list).
  bool touches(uint64_t su, uint64_t sv) const { return (has(su) | has(sv)) & (su != sv); }

 private:
  bool has(uint64_t u) const { return (bits_[u >> 6] >> (u & 63)) & 1; }
  uint64_t n_;
  std::vector<uint64_t> bits_;
};

// A range pass's scatter without an atomic a entry (propagation blocking): each thread stages an entry in a
// small buffer of its vertex's bin (the range cut into kBins runs of vertices holding about equal entries, so the
// hubs' bins are no hotter than the others), and writes a full buffer out under its bin's lock with plain cursor
// increments. A locked increment of a cursor at random stalls its thread for a whole memory access (SCALE 25:
// 72% of a pass's time sat on them); a bin's cursors and lists are a small part of the range, and plain stores
// overlap their misses.
template <class Id, class Value = Id>
class RangeScatter {
 public:
  static constexpr uint64_t kBins = 256, kBlocks = uint64_t(1) << 16;
  // DRAM for the staging buffers of `threads` threads within `memory_bytes` of scratch: an eighth of it, at
  // most 1024 entries a bin and thread.
  static uint64_t stage_entries(uint64_t memory_bytes, int threads) {
    return std::clamp<uint64_t>(memory_bytes / 8 / (uint64_t(threads) * kBins * sizeof(Entry)), 1, 1024);
  }
  static uint64_t bytes_for(uint64_t stage, int threads) { return uint64_t(threads) * kBins * stage * sizeof(Entry); }

  RangeScatter(uint64_t stage, int threads) : stage_(stage), staged_(size_t(threads)), full_(size_t(threads)),
                                             locks_(kBins) {
    for (auto& s : staged_) s.resize(kBins * stage);
    for (auto& f : full_) f.assign(kBins, 0);
  }
  // A new range: vertices [lo, hi), list v's next entry at buffer[cursor[v - lo] - base], `entries` in all.
  // Bins are cut by entries at the grain of kBlocks blocks of vertices (a block's bin from a table).
  void start(uint64_t lo, uint64_t hi, uint64_t* cursor, Value* buffer, uint64_t base, uint64_t entries) {
    lo_ = lo;
    cursor_ = cursor;
    buffer_ = buffer;
    base_ = base;
    shift_ = 0;
    while (((hi - lo - 1) >> shift_) >= kBlocks) ++shift_;
    bin_of_.resize(((hi - lo - 1) >> shift_) + 1);
    for (uint64_t b = 0; b < bin_of_.size(); ++b) {
      const uint64_t before = cursor[b << shift_] - base;  // the range's entries ahead of block b
      bin_of_[b] = uint8_t(std::min<uint64_t>(kBins - 1, before * kBins / std::max<uint64_t>(entries, 1)));
    }
  }
  // Entry b for list a (a in the range), by OpenMP thread t.
  void add(size_t t, uint64_t a, Value b) {
    const uint64_t row = a - lo_, bin = bin_of_[row >> shift_];
    Entry* staged = staged_[t].data() + bin * stage_;
    staged[full_[t][bin]++] = {Id(row), b};
    if (full_[t][bin] == stage_) write(t, bin);
  }
  // Every thread's staged entries written out (after the pass, outside the parallel region).
  void finish() {
    for (size_t t = 0; t < staged_.size(); ++t)
      for (uint64_t bin = 0; bin < kBins; ++bin) write(t, bin);
  }

 private:
  struct Entry {
    Id row;
    Value value;
  };
  void write(size_t t, uint64_t bin) {
    const Entry* staged = staged_[t].data() + bin * stage_;
    const std::lock_guard<std::mutex> hold(locks_[bin]);
    for (uint64_t i = 0; i < full_[t][bin]; ++i) buffer_[cursor_[staged[i].row]++ - base_] = staged[i].value;
    full_[t][bin] = 0;
  }
  uint64_t stage_;
  std::vector<std::vector<Entry>> staged_;     // [thread]: kBins buffers of stage_ entries
  std::vector<std::vector<uint64_t>> full_;    // [thread][bin]: entries staged
  std::vector<std::mutex> locks_;              // a bin's cursors and lists: one writer at a time
  std::vector<uint8_t> bin_of_;                // a block of 2^shift_ vertices' bin
  uint64_t lo_ = 0, base_ = 0, shift_ = 0;
  uint64_t* cursor_ = nullptr;
  Value* buffer_ = nullptr;
};

// In each partition, runs of vertices whose lists (raw offsets) and cursors (8 bytes a vertex) fit in
// memory_bytes, each as long as it can be: many short lists need as much room for cursors as for entries.
inline std::vector<BuildRange> cut_ranges(const NumaArray<uint64_t>& raw, const Partitioning& partitioning,
                                          uint64_t memory_bytes, uint64_t id_bytes) {
  std::vector<BuildRange> ranges;
  for (int p = 0; p < partitioning.parts(); ++p)
    for (uint64_t lo = partitioning.begin(p); lo < partitioning.end(p);) {
      uint64_t fits = lo + 1, limit = partitioning.end(p);
      while (fits < limit) {
        const uint64_t mid = fits + (limit - fits + 1) / 2;
        if ((raw[mid] - raw[lo]) * id_bytes + (mid - lo) * 8 <= memory_bytes) fits = mid; else limit = mid - 1;
      }
      ranges.push_back({p, lo, fits});
      lo = fits;
    }
  return ranges;
}

// fn(t, a, b, w) for every tuple of source whose ends' slots keep(su, sv) accepts, its ends a and b in internal ids
// (label, by slot), w its weight for a weighted build (Entry not Id; 0 else), t the calling thread; count(tuples)
// after each chunk. Concurrently on the OpenMP team; the weights are drawn only for a weighted build.
template <class Entry, class Id, class Keep, class Fn, class Count>
void for_each_labelled_tuple(const GraphDir& source, const NumaArray<Id>& label, Keep&& keep, Fn&& fn, Count&& count) {
  const LabelSlots slots(source.spec());
  if constexpr (!std::is_same_v<Entry, Id>) {
    source.for_each_weighted_chunk([&](uint64_t, std::span<const Edge> edges, std::span<const float> weights) {
      const size_t t = size_t(omp_get_thread_num());
      build_detail::for_each_labelled_if(edges, label, slots, keep,
                                         [&](size_t j, Id a, Id b) { fn(t, a, b, weights[j]); });
      count(edges.size());
    });
  } else {
    source.for_each_edge_chunk([&](uint64_t, std::span<const Edge> edges) {
      const size_t t = size_t(omp_get_thread_num());
      build_detail::for_each_labelled_if(edges, label, slots, keep, [&](size_t, Id a, Id b) { fn(t, a, b, 0.0f); });
      count(edges.size());
    });
  }
}

// One range's lists from a pass over the tuples (no buckets): the ends in [lo, hi) scattered into buffer at
// their cursors; count(edges) as the pass goes. Only tuples with an end in the range look up their labels.
template <class Id, class Entry>
void fill_range_from_tuples(const GraphDir& source, const NumaArray<Id>& label, RangeMarks& marks,
                            RangeScatter<Id, Entry>& scattered, uint64_t lo, uint64_t hi, uint64_t* cursor,
                            Entry* buffer, uint64_t base, uint64_t entries, const std::function<void(uint64_t)>& count) {
  constexpr bool kWeighted = !std::is_same_v<Entry, Id>;
  marks.mark(label, lo, hi);
  scattered.start(lo, hi, cursor, buffer, base, entries);
  auto scatter = [&](size_t t, uint64_t a, uint64_t b, [[maybe_unused]] float w) {
    if constexpr (kWeighted) {
      if (a >= lo && a < hi) scattered.add(t, a, Entry{Id(b), w});
      if (b >= lo && b < hi) scattered.add(t, b, Entry{Id(a), w});
    } else {
      if (a >= lo && a < hi) scattered.add(t, a, Id(b));
      if (b >= lo && b < hi) scattered.add(t, b, Id(a));
    }
  };
  auto touches = [&](uint64_t su, uint64_t sv) { return marks.touches(su, sv); };
  for_each_labelled_tuple<Entry>(source, label, touches, scatter, count);
  scattered.finish();
}

// Distributes the tuples into `buckets` (one pass over the source; both directions, self-loops dropped; with
// their weights for a weighted build).
template <class Id, class Entry>
void distribute_tuples(const GraphDir& source, const NumaArray<Id>& label, EdgeBuckets<Id, Entry>& buckets,
                       const BuildProgress& progress) {
  const uint64_t m = source.spec().edge_count();
  std::atomic<uint64_t> done{0};
  auto count = [&](uint64_t edges) {
    const uint64_t d = done.fetch_add(edges, std::memory_order_relaxed) + edges;
    if (progress && omp_get_thread_num() == 0) progress("distributing the tuples", d, m);
  };
  auto add = [&](size_t t, Id a, Id b, [[maybe_unused]] float w) {
    if (a == b) return;
    if constexpr (!std::is_same_v<Entry, Id>) {
      buckets.add(t, a, Entry{b, w});
      buckets.add(t, b, Entry{a, w});
    } else {
      buckets.add(t, a, b);
      buckets.add(t, b, a);
    }
  };
  for_each_labelled_tuple<Entry>(source, label, [](uint64_t, uint64_t) { return true; }, add, count);
  buckets.finish();
}

// A range's `count` raw lists in buffer (list i at raw[i] - raw[0]) sorted, deduplicated, compacted and appended
// to partition `part`, a chunk of about an eighth of the entries at a time, each chunk's append run behind the
// next chunk's sort: the disk takes the CSR while the cores sort (at SCALE 28 the write took 28 s of kernel 1 with
// the cores idle, the sort 46 s with the disk idle). on_list(i, start, removed) for each list, start counted from
// the range's first entry; on_chunk(first, count) on each compacted chunk before its append (a rank's rows: their
// ids made distributed). Returns the entries kept; sort_s gets the sorts' and compactions' time, write_s what the
// appends added beyond them (the last chunk's, and any wait). A chunk holds at least min_chunk entries (tests:
// fewer). Both backends' builds use it: the one-process CSR's ranges and a rank's rows.
template <class Id, class Entry, class OnList, class OnChunk>
uint64_t sort_and_append(Entry* buffer, const uint64_t* raw, uint64_t count, uint64_t n, CsrWriter& writer, int part,
                         OnList&& on_list, OnChunk&& on_chunk, double& sort_s, double& write_s,
                         uint64_t min_chunk = (uint64_t(16) << 20) / sizeof(Entry)) {  // 16 MiB: 4 of the writer's blocks
  const uint64_t chunk = std::max(min_chunk, (raw[count] - raw[0]) / 8);
  std::future<void> behind;  // the last chunk's append
  uint64_t kept = 0;
  for (uint64_t a = 0; a < count;) {
    const uint64_t b = uint64_t(std::upper_bound(raw + a + 1, raw + count, raw[a] + chunk) - raw);  // lists [a, b)
    double t = omp_get_wtime();
    Entry* lists = buffer + (raw[a] - raw[0]);
    if constexpr (std::is_same_v<Entry, Id>) sort_and_dedup_lists(lists, raw + a, b - a, n);
    else sort_and_dedup_lists_by_weight(lists, raw + a, b - a);
    const uint64_t from = kept;
    kept = squish_lists(buffer, raw, b, [&](uint64_t i, uint64_t start, uint64_t, uint64_t, uint64_t removed) {
      on_list(i, start, removed);
    }, a, kept);
    on_chunk(buffer + from, kept - from);
    sort_s += omp_get_wtime() - t;
    t = omp_get_wtime();
    if (behind.valid()) behind.get();  // appends in order; an error of the last one is thrown here
    write_s += omp_get_wtime() - t;
    behind = std::async(std::launch::async, [&writer, part, at = buffer + from, m = kept - from] { writer.append(part, at, m); });
    a = b;
  }
  const double t = omp_get_wtime();
  if (behind.valid()) behind.get();
  write_s += omp_get_wtime() - t;
  return kept;
}

// Entry: Id, or NodeWeight<Id> for the weighted CSR (kernel 3 on storage): each entry carries its tuple's
// weight (drawn with its tuple from the spec, and carried through the buckets), and each list keeps its
// neighbours' lightest copies ordered by weight. With `staged` and a staging dir, the lists' prefixes for the
// edge cache go to *staged as they are written (engine/prefix_stage.hpp), where the memory spares its buffers.
template <class Id, class Entry = Id>
CsrLayout build_csr_files(const GraphDir& source, const std::string& path, int parts, const Topology& topo,
                          uint64_t memory_bytes, const BuildProgress& progress = {},
                          ExternalBuildStats* stats = nullptr, bool pmem = false, const Renumbering& renumbering = {},
                          CountedDegrees* counted = nullptr, const PrefixStaging& staging = {},
                          std::optional<PrefixStage>* staged = nullptr) {
  constexpr bool kWeighted = !std::is_same_v<Entry, Id>;
  const double t0 = omp_get_wtime();
  const uint64_t n = source.spec().vertex_count();
  const uint64_t m = source.spec().edge_count();
  NumaArray<Id> label;
  NumaArray<uint64_t> raw = order_by_degree<Id>(source, label, progress, counted);
  const double in_kernel0 = taken_seconds(counted);  // the count kernel 0's pass made for it
  ExternalBuildStats st;
  double clock = t0;
  auto lap = [&clock] { const double t = omp_get_wtime(); return t - std::exchange(clock, t); };
  st.count_s = lap() + in_kernel0;
  const uint64_t max_list = n > 0 ? raw[1] - raw[0] : 0;  // vertex 0 has the highest degree
  const int threads = omp_get_max_threads();
  if (max_list * sizeof(Entry) + 8 > memory_bytes)
    throw Error(fmt::format("building the on-disk CSR needs at least {} of memory for the longest list; {} allowed "
                            "(raise --dram-budget)",
                            human_bytes(double(max_list * sizeof(Entry))), human_bytes(double(memory_bytes))), Error::kFixSaid);

  // The cache's prefixes kept as the lists are written, where it pays (open_prefix_stage).
  PrefixStage* prefixes = nullptr;
  if (staged) {
    const uint64_t taken = open_prefix_stage(*staged, staging, n, [&raw](uint64_t v) { return raw[v + 1] - raw[v]; },
                                             raw[n], max_list, sizeof(Entry), memory_bytes);
    if (taken > 0) prefixes = &**staged, memory_bytes -= taken;
  }
  const uint64_t total_bytes = memory_bytes;

  const Partitioning partitioning = Partitioning::balanced(n, [&](uint64_t v) { return raw[v] + v; }, parts, topo);
  CsrLayout layout;
  layout.graph_hash = source.header_hash();
  layout.scale = source.spec().scale;
  layout.id_bytes = int(sizeof(Id));
  layout.weighted = kWeighted;
  layout.n = n;
  layout.bounds = partitioning.bounds;
  CsrWriter writer(path, layout, pmem);
  for (int p = 0; p < partitioning.parts(); ++p)
    writer.reserve_part(p, raw[partitioning.end(p)] - raw[partitioning.begin(p)]);

  // Ranges whose lists and cursors fit in the scratch less the reads' buffers: with the tuple buckets a block
  // buffer a thread, else the scatter's staging. Buckets where they are allowed, pay (two ranges or more) and
  // their staging fits the scratch; else each range takes a pass over the tuples.
  std::optional<EdgeBuckets<Id, Entry>> buckets;
  std::vector<BuildRange> ranges;
  {
    const uint64_t room = memory_bytes - std::min(memory_bytes, EdgeBuckets<Id, Entry>::read_bytes(threads, total_bytes));
    if (!renumbering.dir.empty() && room > max_list * sizeof(Entry) + 8) {
      ranges = cut_ranges(raw, partitioning, room, sizeof(Entry));
      const uint64_t stage = EdgeBuckets<Id, Entry>::stage_for(total_bytes, threads, ranges.size());
      if (ranges.size() >= std::max<uint64_t>(renumbering.min_passes, 2) && stage > 0) {
        std::vector<uint64_t> bounds, entries;
        for (const BuildRange& r : ranges) bounds.push_back(r.lo), entries.push_back(raw[r.hi] - raw[r.lo]);
        bounds.push_back(ranges.back().hi);
        buckets.emplace(std::move(bounds), entries, n, renumbering.dir, EdgeBuckets<Id, Entry>::reserve_bytes(m), stage,
                        EdgeBuckets<Id, Entry>::block_bytes_for(total_bytes, threads));
        lap();
        distribute_tuples(source, label, *buckets, progress);
        st.distribute_s = lap();
        memory_bytes = room;
      }
    }
  }
  const uint64_t stage = RangeScatter<Id, Entry>::stage_entries(memory_bytes, threads);
  std::optional<RangeScatter<Id, Entry>> scattered;
  std::optional<RangeMarks> marks;  // passes over the tuples themselves
  if (!buckets) {
    memory_bytes -= std::min(memory_bytes, RangeScatter<Id, Entry>::bytes_for(stage, threads));
    ranges = cut_ranges(raw, partitioning, memory_bytes, sizeof(Entry));
    scattered.emplace(stage, threads);
    marks.emplace(n);
  }
  const uint64_t chunk = std::min(raw[n], std::max<uint64_t>(memory_bytes / sizeof(Entry), 1));

  // The final offsets go to meta.bin range by range (it begins with them), so the build's O(N) is labels (4),
  // raw offsets (8), duplicate counts (1) and the range marks (1/8): 13.1 bytes a vertex, within the search's 16.
  NumaArray<uint8_t> duplicates(n);
  std::vector<std::pair<uint64_t, uint64_t>> many;
  NumaArray<Entry> buffer(std::max<uint64_t>(chunk, 1));
  std::vector<uint64_t> cursor;
  uint64_t written = 0, passes = 0;
  for (size_t r = 0; r < ranges.size(); ++r) {
    const auto [p, lo, hi] = ranges[r];
    buffer.release(raw[hi] - raw[lo], buffer.size());  // pages an earlier, longer range touched
    cursor.reserve(hi - lo + 1);  // the prefixes' append takes the range's end too: no doubling of 8 bytes a vertex
    cursor.assign(raw.data() + lo, raw.data() + hi);
    const uint64_t base = raw[lo];
    ++passes;
    std::atomic<uint64_t> done{0};
    const std::string phase = fmt::format("{} {} of {} (vertices {}..{})", buckets ? "bucket" : "pass", passes,
                                          ranges.size(), lo, hi);
    lap();
    if (buckets) {  // bucket r holds exactly the lists [lo, hi)
      buckets->fill(r, cursor.data(), buffer.data(), base, [&](size_t count) {
        const uint64_t d = done.fetch_add(count, std::memory_order_relaxed) + count;
        if (progress && omp_get_thread_num() == 0 && (d & 0xfffff) < count) progress(phase.c_str(), d, raw[hi] - raw[lo]);
      });
    } else {
      fill_range_from_tuples<Id, Entry>(source, label, *marks, *scattered, lo, hi, cursor.data(), buffer.data(), base,
                                        raw[hi] - raw[lo], [&](uint64_t edges) {
                                          const uint64_t d = done.fetch_add(edges, std::memory_order_relaxed) + edges;
                                          if (progress && omp_get_thread_num() == 0) progress(phase.c_str(), d, m);
                                        });
    }
    st.fill_s += lap();
    // Sorted, compacted in place and appended; the cursors, spent, take the range's final offsets.
    const uint64_t kept_total = sort_and_append<Id>(buffer.data(), raw.data() + lo, hi - lo, n, writer, p,
                                                    [&](uint64_t i, uint64_t start, uint64_t removed) {
                                                      cursor[i] = written + start;
                                                      Csr<Id>::note_duplicates(duplicates[lo + i], many, lo + i, removed);
                                                    }, [](Entry*, uint64_t) {}, st.sort_s, st.write_s);
    lap();
    writer.write_meta(cursor.data(), cursor.size() * sizeof(uint64_t));
    if (prefixes) cursor.push_back(written + kept_total), prefixes->append(buffer.data(), cursor.data(), hi - lo);
    written += kept_total;
    if (r + 1 == ranges.size() || ranges[r + 1].part != p) writer.finish_part(p);
    st.write_s += lap();
  }
  if (prefixes) prefixes->finish(), st.write_s += lap();
  writer.write_meta(&written, sizeof written);  // offsets[n]
  buffer = NumaArray<Entry>();
  raw = NumaArray<uint64_t>();

  const NumaArray<Id> to_input = invert_labels(label, LabelSlots(source.spec()));
  label = NumaArray<Id>();
  write_labels_and_duplicates(writer, to_input.data(), duplicates.data(), n, many);
  writer.commit(omp_get_wtime() - t0 + in_kernel0);
  if (stats) {
    st.passes = passes;
    st.scratch_bytes = std::max<uint64_t>(chunk, 1) * sizeof(Entry);
    st.renumbered_bytes = buckets ? buckets->written_bytes() : 0;
    st.tuple_passes = buckets ? 1 : passes;
    st.csr_bytes = written * sizeof(Entry);
    st.prefix_bytes = prefixes ? prefixes->bytes() : 0;
    *stats = st;
  }
  return writer.layout();
}

// meta.bin after the offsets, as load_csr_meta reads it: n input labels, n duplicate bytes, the saturated counts.
template <class Id>
void write_labels_and_duplicates(CsrWriter& writer, const Id* to_input, const uint8_t* duplicates, uint64_t n,
                                 const std::vector<std::pair<uint64_t, uint64_t>>& many) {
  writer.set_many_duplicates(many.size());
  writer.write_meta(to_input, n * sizeof(Id));
  writer.write_meta(duplicates, n);
  const uint64_t count = many.size();
  writer.write_meta(&count, sizeof count);
  writer.write_meta(many.data(), many.size() * 16);
}

// The O(N) part of an on-disk CSR as a Csr without adjacency (offsets, labels, duplicate counts).
template <class Id>
Csr<Id> load_csr_meta(const CsrFiles& files) {
  const CsrLayout& L = files.layout();
  if (L.id_bytes != int(sizeof(Id))) throw Error(files.path() + " holds ids of another width; remove it to rebuild", Error::kFixSaid);
  const uint64_t n = L.n;
  CsrFiles::MetaReader meta(files);
  NumaArray<uint64_t> offsets(n + 1);
  meta.read(offsets.data(), offsets.bytes());
  Csr<Id> g;
  g.n = n;
  g.to_input = NumaArray<Id>(n);
  meta.read(g.to_input.data(), g.to_input.bytes());
  g.duplicates = NumaArray<uint8_t>(n);
  meta.read(g.duplicates.data(), n);
  uint64_t count = 0;
  meta.read(&count, 8);
  if (count != L.many_duplicates) throw Error(files.path() + "/meta.bin does not match its header (duplicate table)");
  g.many_duplicates.resize(count);
  meta.read(g.many_duplicates.data(), count * 16);
  meta.finish();
  if (offsets[n] != L.entries) throw Error(files.path() + "/meta.bin does not match its header (entry count)");
  g.offsets = BlockOffsets(offsets);
  return g;
}

}  // namespace strata
