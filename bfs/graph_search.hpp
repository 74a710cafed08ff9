// What the Graph500 driver sees of a search, whichever neighbour source it runs over: options, the per-level
// trace, and one virtual call per search (never per step or edge).
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bfs/tail_reads.hpp"
#include "core/search_facts.hpp"
#include "engine/tier.hpp"

namespace strata {

enum class Direction { kHybrid, kTopDown, kBottomUp };

struct BfsOptions {
  // Switch to bottom-up when the frontier's edges exceed unexplored edges / alpha; back to top-down when the
  // frontier shrinks below n / beta. NETALX uses alpha=64, beta=4; on Kronecker graphs with degree-ordered
  // ids 15 and 18 measured faster here (bench/tune_alpha_beta.sh, figures in bench/README.md).
  double alpha = 15;
  double beta = 18;
  Direction direction = Direction::kHybrid;
  bool trace = false;
};

// The direction policy, one for every search: bottom-up once the frontier's edges (scout) exceed the edges
// still unexplored / alpha ...
inline bool go_bottom_up(const BfsOptions& o, uint64_t scout, uint64_t edges_to_check) {
  return o.direction == Direction::kBottomUp ||
         (o.direction == Direction::kHybrid && double(scout) > double(edges_to_check) / o.alpha);
}
// ... and back to top-down once the frontier (awake of n vertices) shrinks below n / beta.
inline bool stay_bottom_up(const BfsOptions& o, uint64_t awake, uint64_t old_awake, uint64_t n) {
  return awake > 0 && (o.direction == Direction::kBottomUp || awake >= old_awake || double(awake) > double(n) / o.beta);
}

struct LevelTrace {
  bool bottom_up;
  uint64_t frontier;        // vertices in the frontier this level expanded
  uint64_t edges_examined;  // adjacency entries read (DRAM and storage)
  double seconds;
  LevelIo io;
  uint64_t bytes_sent = 0;  // MPI: what the ranks sent each other this level
};

struct SearchStats {
  std::vector<LevelTrace> levels;  // filled when options.trace
  uint64_t edges_examined = 0;     // in DRAM and from storage
  LevelIo io;                      // the storage part
  uint64_t bytes_sent = 0;         // MPI: what the ranks sent each other (every rank's total)
};

// A search's JSON figures: the entries examined; under MPI what the ranks sent; on storage the entries from DRAM
// and from storage, and where the tier counts them, the bytes and requests read.
inline SearchFacts search_facts(const SearchStats& s, const Tier& tier, bool mpi) {
  SearchFacts out;
  out.add("edges_examined", s.edges_examined);
  if (mpi) out.add("bytes_sent", s.bytes_sent);
  if (!tier.on_storage) return out;
  out.add("edges_dram", s.edges_examined - s.io.edges_storage);
  out.add("edges_storage", s.io.edges_storage);  // DAX: read in place from the mapping
  if (tier.counts_reads) {
    out.add("bytes_read", s.io.bytes_read);
    out.add("io_requests", s.io.requests);
  }
  return out;
}

// A search's --trace: a line a level (its direction, frontier, entries examined, seconds; what the ranks sent; the
// reads where the tier counts them).
inline std::string trace_lines(const SearchStats& s, size_t search, uint64_t root, const Tier& tier) {
  std::string out;
  for (size_t l = 0; l < s.levels.size(); ++l) {
    const LevelTrace& lt = s.levels[l];
    out += fmt::format("trace: search {} root {} level {} {} frontier {} edges {} time {:.6f}", search, root, l,
                       lt.bottom_up ? "bottom-up" : "top-down", lt.frontier, lt.edges_examined, lt.seconds);
    if (lt.bytes_sent > 0) out += fmt::format(" bytes_sent {}", lt.bytes_sent);  // MPI: between the ranks
    if (tier.counts_reads)
      out += fmt::format(" storage_edges {} bytes_read {} io_requests {}", lt.io.edges_storage, lt.io.bytes_read,
                         lt.io.requests);
    out += '\n';
  }
  return out;
}

template <class Id>
class GraphSearch {
 public:
  virtual ~GraphSearch() = default;
  // Searches from internal vertex `root`; writes parent_out[input label] = parent's input label (root: itself,
  // unreached: kNoVertex). Resetting the state and translating labels are part of the search.
  virtual SearchStats search(Id root, Id* parent_out) = 0;
  // Sum of raw degrees over reached vertices of the last search: 2 * nedge by the reference rule.
  virtual uint64_t reached_raw_degree_sum() const = 0;
  // The internal parent array, idle between searches (a search resets it): lent out, e.g. to validation,
  // so that work between searches adds nothing to the peak. Read reached_raw_degree_sum() first.
  virtual std::span<int32_t> idle_memory() = 0;
  // The last search's parents by internal id (kNoVertex: unreached), until the next search or until
  // idle_memory() is written: it is the same array.
  virtual const Id* internal_parents() const = 0;
  // Gives the internal parent array's and the frontiers' pages back to the OS until the next search touches them
  // again (e.g. so that a validation pass or kernel 3 can use the DRAM).
  virtual void release_idle_memory() = 0;
  virtual uint64_t state_bytes() const = 0;      // DRAM of the search's own O(N) arrays (parents, bitmaps)
  virtual uint64_t io_buffer_bytes() const = 0;  // DRAM taken by I/O buffers (out-of-core)
  virtual bool registered_buffers() const = 0;
};

}  // namespace strata
