// Out-of-core tail reads for the hybrid BFS: a step marks the vertices whose answer may lie beyond their
// cached prefix, then read() streams those tails from the on-disk CSR -- in file order, neighbouring lists
// merged into one request (a small gap is read rather than paid for with another request), each thread on
// its own io_uring with `depth` reads in flight, every buffer scanned as it completes.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "bfs/bitmap.hpp"
#include "engine/block_offsets.hpp"
#include "engine/csr.hpp"
#include "engine/edge_cache.hpp"
#include "engine/topology.hpp"
#include "generators/edge_stream.hpp"
#include "storage/csr_files.hpp"
#include "core/error.hpp"
#include "storage/uring_reader.hpp"

namespace strata {

struct LevelIo {
  uint64_t edges_storage = 0;  // entries scanned from storage (out-of-core: read buffers; DAX: the mapping)
  uint64_t bytes_read = 0;
  uint64_t requests = 0;
};

// Thrown by a visit that met an entry that is no vertex id (the file changed after its checksums were verified
// at load): TailReads turns it into an error naming the file and offset.
struct InvalidEntry {
  const void* at;
};

// Entry: an id, or an (id, weight) pair of the weighted CSR (kernel 3's tails).
template <class Id, class Entry = Id>
class TailReads {
 public:
  // g: offsets of the whole lists; cached: the DRAM prefixes' lengths; parts: the files' partitions;
  // vertices from `active` on have no edges.
  TailReads(const Csr<Id>& g, const PrefixIndex& cached, const CsrFiles& files, const IoOptions& opt,
            const Partitioning& parts, uint64_t active)
      : g_(g), cached_(cached), files_(files), opt_(opt), parts_(parts), active_(active), marks_(g.n),
        claim_(parts.parts()) {
    if (files.layout().bounds != parts.bounds) throw Error("internal error: search partitions differ from the CSR files'");
    if (files.layout().entry_bytes() != sizeof(Entry)) throw Error("internal error: tails read as entries of another width");
    for (int t = 0; t < omp_get_max_threads(); ++t)
      readers_.push_back(std::make_unique<UringReader>(files.adj_files(), opt.depth, opt.request_bytes));
  }

  void mark(uint64_t v) { marks_.set_atomic(v); }
  uint64_t* mark_words() { return marks_.words(); }  // for steps that own whole words
  void clear() { marks_.clear(); }

  uint64_t mark_bytes() const { return marks_.word_count() * sizeof(uint64_t); }
  uint64_t buffer_bytes() const {
    uint64_t sum = 0;
    for (const auto& r : readers_) sum += r->buffer_bytes();
    return sum;
  }
  bool registered_buffers() const { return !readers_.empty() && readers_[0]->registered_buffers(); }

  // Reads the tails of the marked vertices (then clears the marks): each thread claims chunks of vertices,
  // home part first, and streams their tails through its own reader; visit(v, first, last) gets the entries
  // of v's tail held by one buffer (a tail longer than a request comes in pieces, in any order) and returns
  // the entries it examined. Entries read from storage may have changed since their checksums were verified
  // at load: visit checks every id it uses and throws InvalidEntry for one that is no vertex. Adds what it
  // scanned and read to io. head_entries: only each tail's first entries (kernel 3's light rounds: a list by
  // weight starts with its light edges).
  // wants(v), if given: an unmarked vertex whose whole tail came in a buffer read for the marked ones (between
  // two of them, or in a merged gap) is visited too where wants(v) says so.
  // head_entries may instead be a function of the vertex (kernel 3's stages: what each tail may hold below a
  // bound), each head then running on to the end of its last page; a visit taking a fourth argument is told
  // whether its piece ends such a head short of the tail's end.
  template <class Visit, class Head = uint64_t, class Wants = std::nullptr_t>
  void read(Visit&& visit, LevelIo& io, Head head_entries = UINT64_MAX, Wants&& wants = nullptr) {
    if constexpr (std::is_invocable_r_v<uint64_t, Head, Id>) {
      head_bytes_ = UINT64_MAX;
      head_of_ = head_entries;
    } else {
      head_bytes_ = head_entries == UINT64_MAX ? UINT64_MAX : head_entries * sizeof(Entry);
      head_of_ = nullptr;
    }
    std::vector<uint64_t> chunks(parts_.parts());
    for (int p = 0; p < parts_.parts(); ++p) chunks[p] = (word_end(p) - word_begin(p) + kChunkWords - 1) / kChunkWords;
    for (auto& c : claim_) c.store(0, std::memory_order_relaxed);
    FirstError errors;
    uint64_t scanned = 0, bytes = 0, requests = 0;
#pragma omp parallel reduction(+ : scanned, bytes, requests)
    {
      UringReader& reader = *readers_[omp_get_thread_num()];
      const uint64_t bytes0 = reader.bytes_read(), requests0 = reader.requests();
      Cursor cursor(*this, chunks, parts_.home_part(omp_get_thread_num(), omp_get_num_threads()));
      errors.run([&] {
        reader.run([&](ReadRequest& r) { return cursor.next_request(r); },
                   [&](const ReadRequest& r, const char* data) { scanned += deliver(r, data, visit, wants); });
      });
      bytes += reader.bytes_read() - bytes0;
      requests += reader.requests() - requests0;
    }
    clear();
    head_of_ = nullptr;
    errors.rethrow();
    io.edges_storage += scanned;
    io.bytes_read += bytes;
    io.requests += requests;
  }

 private:
  static constexpr uint64_t kChunkWords = 64;  // bitmap words (4096 vertices) per work item

  // Byte range [a, b) of v's tail in partition p's file (head: only this read's head of it); `whole`: its end.
  void tail_bytes(uint64_t v, int p, uint64_t& a, uint64_t& b, bool head = true, uint64_t* whole = nullptr) const {
    const CsrLayout& L = files_.layout();
    const uint64_t start = g_.offsets[v], end = g_.offsets[v + 1];
    a = (start + cached_.length(end - start) - L.part_first[p]) * sizeof(Entry);
    const uint64_t e = (end - L.part_first[p]) * sizeof(Entry);
    if (whole) *whole = e;
    if (!head) {
      b = e;
    } else if (head_of_) {
      const uint64_t h = head_of_(Id(v));
      b = h >= (e - a) / sizeof(Entry) ? e : std::min(e, align_up(a + h * sizeof(Entry)));
    } else {
      b = std::min(e, head_bytes_ == UINT64_MAX ? UINT64_MAX : a + head_bytes_);
    }
  }

  // One thread's walk over the marked vertices: claims chunks (home part first), turns runs of nearby
  // tails into requests of at most request_bytes, and splits a longer tail into several.
  struct Cursor {
    TailReads& t;
    const std::vector<uint64_t>& chunks;
    int home, turn = 0, p = 0;
    uint64_t v = 0, v_end = 0, resume = 0;  // next vertex to consider, end of the claimed chunk, a split tail

    Cursor(TailReads& reads, const std::vector<uint64_t>& c, int home_part) : t(reads), chunks(c), home(home_part), p(home_part) {}

    bool claim() {
      for (const int k = t.parts_.parts(); turn < k; ++turn) {
        p = (home + turn) % k;
        const uint64_t c = t.claim_[p].fetch_add(1, std::memory_order_relaxed);
        if (c < chunks[p]) {
          v = (t.word_begin(p) + c * kChunkWords) * 64;
          v_end = std::min({t.parts_.end(p), t.active_, (t.word_begin(p) + (c + 1) * kChunkWords) * 64});
          return true;
        }
      }
      return false;
    }
    uint64_t next_marked(uint64_t from) const {
      const uint64_t* words = t.marks_.words();
      for (uint64_t x = from; x < v_end;) {
        const uint64_t bits = words[x >> 6] >> (x & 63);
        if (bits) return std::min(v_end, x + __builtin_ctzll(bits));
        x = (x | 63) + 1;
      }
      return v_end;
    }
    bool next_request(ReadRequest& r) {
      for (;;) {
        if (v >= v_end && !claim()) return false;
        const uint64_t first = next_marked(v);
        if (first == v_end) {
          v = v_end;
          continue;
        }
        if (!resume && empty(first)) {  // a head of nothing: its bound fell below the tail's first entry
          v = first + 1;
          continue;
        }
        fill(r, first);
        return true;
      }
    }
    bool empty(uint64_t w) const {
      uint64_t a, b;
      t.tail_bytes(w, p, a, b);
      return a >= b;
    }
    // The request starting at marked vertex `first`: its tail (or the next piece of it), merged with the
    // marked tails that follow within merge_gap bytes while the request stays within request_bytes.
    void fill(ReadRequest& r, uint64_t first) {
      uint64_t a, b;
      t.tail_bytes(first, p, a, b);
      if (resume) a = resume;
      const uint64_t lo = align_down(a), max = t.opt_.request_bytes;
      uint64_t hi = align_up(b), last = first;
      r.file = uint32_t(p);
      r.offset = lo;
      r.tag[0] = first;
      if (hi - lo > max) {  // a long tail: this piece, and the next request resumes after it
        resume = lo + max;
        v = first;
        r.length = uint32_t(max);
        r.tag[1] = first + 1;
        return;
      }
      resume = 0;
      for (uint64_t w = next_marked(first + 1); w < v_end; w = next_marked(w + 1)) {
        uint64_t aw, bw;
        t.tail_bytes(w, p, aw, bw);
        if (align_down(aw) > hi + t.opt_.merge_gap || align_up(bw) - lo > max) break;
        hi = std::max(hi, align_up(bw));
        last = w;
      }
      v = last + 1;
      r.length = uint32_t(hi - lo);
      r.tag[1] = last + 1;
    }
  };

  // A completed request: each marked vertex's share of the buffer, to visit (and each wanted unmarked one's
  // whole tail in it).
  template <class Visit, class Wants>
  uint64_t deliver(const ReadRequest& r, const char* data, Visit& visit, Wants& wants) const {
    uint64_t scanned = 0;
    for (uint64_t x = r.tag[0]; x < r.tag[1]; ++x) {
      const bool marked = marks_.test(x);
      if constexpr (std::is_same_v<std::decay_t<Wants>, std::nullptr_t>) {
        if (!marked) continue;
      } else {
        if (!marked && !wants(Id(x))) continue;
      }
      uint64_t a, b, whole;
      tail_bytes(x, int(r.file), a, b, marked, &whole);
      if (!marked && (a >= b || a < r.offset || b > r.offset + r.length)) continue;  // not whole in this buffer
      const bool short_head = b < whole && b <= r.offset + r.length;  // this piece ends a head, the tail goes on
      a = std::max(a, r.offset);
      b = std::min(b, r.offset + r.length);
      if (a >= b) continue;
      const Entry* first = reinterpret_cast<const Entry*>(data + (a - r.offset));
      const Entry* last = first + (b - a) / sizeof(Entry);
      try {
        if constexpr (std::is_invocable_v<Visit&, Id, const Entry*, const Entry*, bool>)
          scanned += visit(Id(x), first, last, short_head);
        else
          scanned += visit(Id(x), first, last);
      } catch (const InvalidEntry& bad) {
        const Entry* at = static_cast<const Entry*>(bad.at);
        throw Error(fmt::format("{} is corrupted: the entry at offset {} holds {}, not a vertex id (the file changed "
                                "after it was checked at load); remove {} to rebuild it",
                                files_.adj_files()[r.file]->file.path(), a + uint64_t(at - first) * sizeof(Entry),
                                uint64_t(entry_id(*at)), files_.path()), Error::kFixSaid);
      }
    }
    return scanned;
  }

  uint64_t word_begin(int p) const { return (parts_.begin(p) + 63) / 64; }
  uint64_t word_end(int p) const { return (parts_.end(p) + 63) / 64; }

  const Csr<Id>& g_;
  const PrefixIndex& cached_;
  const CsrFiles& files_;
  IoOptions opt_;
  const Partitioning& parts_;
  uint64_t active_;
  uint64_t head_bytes_ = UINT64_MAX;  // this read's limit on each tail (bytes from its start)
  std::function<uint64_t(Id)> head_of_;  // or its limit for each vertex, in entries
  Bitmap marks_;
  std::vector<std::atomic<uint64_t>> claim_;
  std::vector<std::unique_ptr<UringReader>> readers_;  // one per thread
};

}  // namespace strata
