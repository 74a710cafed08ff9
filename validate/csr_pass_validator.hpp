// Graph500 validation of out-of-core and DAX searches against kernel 1's on-disk CSR, one sequential pass over
// it per batch of searches (the reference's -DREUSE_CSR_FOR_VALIDATION, for graphs larger than DRAM). As each
// search ends, its result goes to a scratch file (storage/spill_file.hpp): its internal parents and its levels,
// a byte a vertex, of the vertices with a list (ids by degree put the others last: over half the vertices from
// SCALE 26, checked when the search is added). A pass loads the batch's levels vertex-major (a vertex's row: a
// byte per search) and reads the CSR once, in order, with the batch's parents of the vertices it is at:
//   rule 1       levels from the parent tree, when the search is added (the tuple validator's walk, on the
//                internal parents: ids by degree put the parents' levels in cache), which must be the output's
//                translated (kernel 1's labels a permutation, checked once): so the output's tree is checked
//   rules 3, 4   every entry (v,w) with w < v (each edge once) joins levels that differ by at most one, never
//                reached and unreached: one random row load a entry, sixteen searches a vector operation
//   rule 5       each reached vertex's parent is in its list (lists are sorted)
//   nedge        the raw degrees of the reached vertices over 2
// The scratch file keeps the parents window by window (a window of vertices, every search's side by side), so a
// pass reads a window for the whole batch in one request, ahead of the steps, and turns it vertex-major as it takes
// it (rule 5 then reads a vertex's parents in one place, not one stream a search); a search's writes run behind the
// checks that make them. The random row loads are prefetched across the ends of lists (most lists are short).
// Every 4 MiB block of the adjacency is checked against its checksum as the pass reads it. What it does not do
// is certify that the CSR is the tuples' graph (the in-core certificate needs the adjacency in DRAM; the
// reference does not certify either): runs that use it say so. Levels are bytes: a tree deeper than 254 is
// left to the caller (checked in place against the tuples).
// In a pass the levels are nibbles while every tree of the batch is at most 14 deep (15: unreached), so a pass
// holds twice the searches a byte each would (Kronecker trees are 6-10 deep); a batch with a deeper tree is
// checked a byte a level, in passes of half the batch, within the same DRAM.
// The spill packs a search's level into its parents' words where the ids leave a nibble or more above the
// largest (n <= 2^28 with 32-bit ids): 4 bytes a vertex a search instead of 5, so that a batch of 64 fits the
// flagship's disk at SCALE 28 (one pass instead of two), and the pass takes each window's levels into the rows
// as it reads the window instead of reading them apart first. A tree deeper than the word holds (14 levels at
// SCALE 28) is left to the caller as one deeper than a byte is; above 2^28 vertices the levels are kept apart.
#pragma once
#include <omp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/timer.hpp"
#include "engine/csr.hpp"
#include "storage/csr_files.hpp"
#include "storage/hash.hpp"
#include "storage/spill_file.hpp"
#include "storage/write_behind.hpp"
#include "validate/pass_phases.hpp"
#include "validate/validator.hpp"

namespace strata {

template <class Id>
class CsrPassValidator {
 public:
  static constexpr int kMaxSlots = 64;                      // a found-parent bit per search in a word
  static constexpr uint64_t kUnitBytes = uint64_t(256) << 10;  // adjacency read per step, at most (1/16 block)
  static constexpr int kDepth = 8;  // steps read ahead (their adjacency): a VM disk is latency-bound
  // The batch's parents are read in windows of kWindowBytes a search (one request a window for the whole group:
  // the scratch file keeps a window's searches together), kWindows read ahead; reading them a step at a time
  // took a request a search a step, and those requests' latency bound the pass.
  static constexpr uint64_t kWindowBytes = uint64_t(256) << 10;
  static constexpr int kWindows = 8;
  static constexpr uint64_t kSpillParts = 4;  // a search's spill writes in flight at once, less one (WriteBehind)
  static constexpr uint64_t kChunk = uint64_t(256) << 10;     // vertices spilled per write
  static constexpr uint8_t kUnreached = 255;
  static constexpr uint64_t kGatherAhead = 32;  // the translation check's parent labels fetched ahead
  static constexpr int kNibbleMaxLevel = 14;  // levels a nibble holds; 15 is unreached

  // The vertices a pass holds anything of: those up to the last with a list (ids by degree: the tail has none,
  // over half the vertices from SCALE 26). A tail vertex can only be unreached or the root, which add() checks.
  static uint64_t pass_vertices(const Csr<Id>& g) {
    uint64_t listed = g.n;
    while (listed > 0 && g.degree(listed - 1) == 0) --listed;
    return listed;
  }
  // Bits an internal id of n vertices takes; whether a level (a nibble or more) fits above them in an Id.
  static int parent_bits(uint64_t n) { return std::max(1, int(std::bit_width(n > 0 ? n - 1 : 0))); }
  static bool packs(uint64_t n) { return int(8 * sizeof(Id)) - parent_bits(n) >= 4; }
  // Scratch disk for `slots` searches of n vertices: the parents of the `listed` vertices with a list, with their
  // levels packed in or (packs(n) false) a byte apart.
  static uint64_t spill_bytes(uint64_t n, uint64_t listed, int slots) {
    return uint64_t(slots) * slot_bytes(listed, packs(n));
  }
  // DRAM besides the rows: the spill's parts, and during a pass the level load's two chunks a search or
  // the steps' adjacency, the parents' windows (one more to transpose into) and a found word a vertex, whichever
  // is larger.
  static uint64_t buffer_bytes(uint64_t n, uint64_t entries, int slots) {
    const uint64_t unit_bytes = unit_for(entries), unit_vertices = std::min(unit_bytes / sizeof(Id), n) + 2;
    const uint64_t window = window_for(n, entries), windows = (ring_for(n, window) + 1) * uint64_t(slots) * window * sizeof(Id);
    const uint64_t chunk = chunk_for(n), level_load = packs(n) ? 0 : 2 * uint64_t(slots) * chunk;
    return std::max(level_load, kDepth * unit_bytes + windows + unit_vertices * 8) +
           std::max<uint64_t>(chunk, kSpillParts * window) * sizeof(Id);
  }
  // Adjacency bytes a step reads: a 256th of the adjacency, between 4 KiB and kUnitBytes (a power of two, so
  // that steps tile the 4 MiB checksum blocks).
  static uint64_t unit_for(uint64_t entries) {
    uint64_t unit = kDirectAlign;
    while (unit < kUnitBytes && unit * 256 < entries * sizeof(Id)) unit *= 2;
    return unit;
  }
  // The rows: a nibble a listed vertex a search (or a byte for half the searches), and a vector's load of padding.
  static uint64_t rows_bytes(uint64_t listed, int slots) { return listed * ((uint64_t(slots) + 1) / 2) + 64; }

  // The scratch file goes in scratch_dir. unit_bytes (a multiple of 4 KiB dividing 4 MiB; 0: unit_for): small
  // in tests, so that lists cross the steps' edges.
  // scratch: n / 32 int32 for the check that kernel 1's labels are a permutation (throws Error if not).
  // nibble_max_level: the deepest tree that nibbles take (tests lower it to check the byte passes).
  // window_vertices (0: window_for; else a multiple of kDirectAlign / sizeof(Id) holding a step's entries): small
  // in tests, so that the steps cross the parents' windows.
  // level_bits: bits of a packed word for the level (0: as the graph's ids leave; -1: the levels apart, as above
  // 2^28 vertices): tests.
  CsrPassValidator(const Csr<Id>& g, const CsrFiles& files, const std::string& scratch_dir, int slots,
                   std::span<int32_t> scratch, uint64_t unit_bytes = 0, int nibble_max_level = kNibbleMaxLevel,
                   uint64_t window_vertices = 0, int level_bits = 0)
      : g_(g), files_(files), slots_(std::clamp(slots, 1, kMaxSlots)), nibble_max_level_(nibble_max_level),
        unit_bytes_(unit_bytes ? std::min(unit_bytes, kUnitBytes) : unit_for(g.directed_edges())),
        chunk_(chunk_for(g.n)), window_(window_vertices ? window_vertices : window_for(g.n, g.directed_edges())),
        listed_(pass_vertices(g)), packed_(level_bits > 0 || (level_bits == 0 && packs(g.n))),
        shift_(level_bits > 0 ? std::clamp(int(8 * sizeof(Id)) - level_bits, 1, int(8 * sizeof(Id)) - 4)
                              : parent_bits(g.n)),
        parent_mask_(packed_ ? Id((uint64_t(1) << shift_) - 1) : kNoVertex<Id>),
        level_max_(packed_ ? int(std::min<uint64_t>(kUnreached - 1, (uint64_t(1) << (8 * sizeof(Id) - shift_)) - 2))
                           : kUnreached - 1),
        spill_(scratch_dir, uint64_t(slots_) * slot_bytes(listed_, packed_), "validation"),
        buffer_(std::max(chunk_, kSpillParts * window_) * sizeof(Id)) {
    if (unit_bytes_ % kDirectAlign != 0 || kCsrHashBlock % unit_bytes_ != 0)
      throw Error("internal error: a validation step must be a multiple of 4 KiB that divides 4 MiB");
    if (window_ * sizeof(Id) % kDirectAlign != 0 || window_ * sizeof(Id) < unit_bytes_ || window_ * sizeof(Id) > kWindowBytes)
      throw Error("internal error: a parents window must be a multiple of 4 KiB holding a step's entries");
    if (packed_ && parent_bits(g.n) > shift_)
      throw Error("internal error: a validation word's level bits leave too few for the parents");
    check_labels(scratch);
  }

  int slots() const { return slots_; }
  int size() const { return int(search_.size()); }
  bool full() const { return size() == slots_; }
  bool spills_direct() const { return spill_.direct(); }

  enum class Added { kAdded, kChecked, kTooDeep };
  // One more search: output parents (input labels) in s, its internal parents and root (internal ids). Checks
  // the translation and rule 1, then spills parents and levels to the next slot: kAdded. A broken tree is
  // judged at once (kChecked, verdict set); a tree deeper than a byte is left to the caller (kTooDeep).
  // scratch: n int32 for the levels; it may be the output's own memory (read before it is written), which is
  // then rebuilt from the internal parents for kTooDeep.
  Added add(const SearchToCheck<Id>& s, const Id* internal_parent, Id internal_root, std::span<int32_t> scratch,
            Verdict& verdict);
  // The pass: rules 3, 4, 5 and nedge for every search added; one verdict each, in the order added. Empties
  // the batch. progress(done, total) after each step, on the calling thread.
  std::vector<Verdict> check(const std::function<void(uint64_t, uint64_t)>& progress = {});
  // Passes the last check took: 1, or 2 where a tree was too deep for nibbles.
  int last_passes() const { return last_passes_; }
  // Seconds so far by phase (all searches and passes of this validator).
  const CsrPassPhases& phases() const { return phases_; }

 private:
  struct Unit {  // entries [e0, e1) of partition part's file, bytes [offset, offset + length) of it
    int part;
    uint64_t offset, length, e0, e1, va, vb;  // vertices [va, vb) have entries in [e0, e1)
  };
  struct ParentWindows;  // the pass's parents of the group, a window of vertices at a time

  static uint64_t chunk_for(uint64_t n) { return std::min(kChunk, align_up(n)); }  // vertices a spill write
  // Vertices a parents window: a sixteenth of the graph's, at most kWindowBytes a search, and as many as a step
  // has entries (so that a step's vertices span at most three windows of the ring), a multiple of 4 KiB.
  static uint64_t window_for(uint64_t n, uint64_t entries) {
    const uint64_t unit = unit_for(entries);
    return std::clamp(align_up(n * sizeof(Id) / 16), unit, std::max(kWindowBytes, unit)) / sizeof(Id);
  }
  static uint64_t ring_for(uint64_t n, uint64_t window) { return std::min<uint64_t>(kWindows, (n + window - 1) / window); }
  // A search's scratch: its listed vertices' parents (levels packed in), whole windows of any size up to
  // kWindowBytes, and apart from them their levels.
  static uint64_t slot_bytes(uint64_t listed, bool packed) {
    return align_up(listed * sizeof(Id)) + kWindowBytes + (packed ? 0 : align_up(listed));
  }
  // The scratch file: the parents window by window (a window's searches side by side), then (not packed) each
  // search's levels.
  uint64_t parents_at(int s, uint64_t window) const {
    return (window * uint64_t(slots_) + uint64_t(s)) * window_ * sizeof(Id);
  }
  uint64_t levels_at(int s) const {
    return uint64_t(slots_) * (align_up(listed_ * sizeof(Id)) + kWindowBytes) + uint64_t(s) * align_up(listed_);
  }
  std::vector<Unit> units() const;
  void read_unit(const Unit& u, AlignedBuffer& adj) const;
  void check_block(const Unit& u, const AlignedBuffer& adj, Xxh3Stream& block_hash) const;
  void check_unit(const Unit& u, const AlignedBuffer& step_adj, const ParentWindows& pw);
  void write_windows(WriteBehind& behind, size_t h, int slot, uint64_t a, uint64_t m);
  uint64_t output_terms(const SearchToCheck<Id>& s) const;
  uint64_t internal_terms(const Id* internal_parent, uint64_t a, uint64_t b) const;
  std::string first_difference(const SearchToCheck<Id>& s, const Id* internal_parent) const;
  void spill_parents(int slot, const Id* internal_parent);
  int32_t spill_levels(int slot, const Id* internal_parent, const int32_t* level, uint64_t& internal_sum);
  void start_rows(int first, int count, bool nibble);
  void load_rows(std::vector<uint64_t>& twice_nedge);
  void take_levels_and_transpose(uint64_t window, const Id* words, Id* transposed, std::vector<uint64_t>& twice_nedge);
  template <class LevelOf>
  void take_rows(uint64_t a, uint64_t m, LevelOf&& level_of, std::vector<uint64_t>& twice_nedge);
  void pass(int first, int count, bool nibble, std::vector<uint64_t>& twice_nedge,
            const std::function<void(uint64_t)>& step);
  void check_labels(std::span<int32_t> scratch) const;
  // Rule 5 once v's whole list was seen: need (needs_parent(v)) less found; pw: the windows holding v's parents,
  // to name them.
  void finish_vertex(uint64_t v, uint64_t need, uint64_t found, const ParentWindows* pw = nullptr);
  uint64_t needs_parent(uint64_t v) const;
  void say_why(uint64_t v, uint64_t w);            // the rules an entry breaks, search by search
  uint64_t label(uint64_t v) const { return uint64_t(g_.to_input[v]); }
  // What the output must hold for internal parent p: its label (none, or out of range: p itself; rule 1 names it).
  static Id translated(const Id* to_input, uint64_t n, Id p) { return p == kNoVertex<Id> || p >= n ? p : to_input[p]; }
  // The translation check's term of internal vertex v with internal parent p.
  static uint64_t internal_term(const Id* to_input, uint64_t n, uint64_t key, uint64_t v, Id p) {
    return validate_detail::entry_term(to_input[v], translated(to_input, n, p), key);
  }
  void fail(int s, int rule, const std::string& what) {  // s: within the pass's group
    std::lock_guard lock(mutex_);
    note_failure(verdict_[size_t(first_ + s)], rule, what);
  }
  // Search first_ + s's level of v (kUnreached: not reached), in either packing: say_why's, to name a failure
  // (the checks read the rows a vector at a time).
  uint8_t level(int s, uint64_t v) const {
    if (!nibble_) return rows_[v * stride_ + uint64_t(s)];
    const uint8_t x = (rows_[v * stride_ + uint64_t(s) / 2] >> (4 * (s & 1))) & 15;
    return x == 15 ? kUnreached : x;
  }

  const Csr<Id>& g_;
  const CsrFiles& files_;
  int slots_;
  int nibble_max_level_;
  uint64_t unit_bytes_;
  uint64_t chunk_;        // vertices a spill write or level load
  uint64_t window_;       // vertices a parents window
  uint64_t listed_;       // vertices [0, listed_) hold every list: the pass needs nothing of those beyond (ids by degree)
  bool packed_;           // a spilled word: the internal parent in its low shift_ bits, the level above (all ones:
  int shift_;             // unreached); else the parent alone, the levels a byte apart
  Id parent_mask_;
  int level_max_;         // the deepest level the spill holds (a deeper tree: kTooDeep)
  // The translation check's hash key, from the clock: no output can be made to cancel against it in advance
  // (std::random_device throws where it finds no source of entropy, as a bare chroot may have none).
  uint64_t key_ = validate_detail::mix64(uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
  SpillFile spill_;
  AlignedBuffer buffer_;  // spilling: WriteBehind's parts, one filled while the others are written
  std::vector<SearchToCheck<Id>> search_;
  std::vector<Verdict> verdict_;
  NumaArray<uint8_t> rows_;  // during a pass: v's levels from rows_[v * stride_], a nibble or a byte a search
  int first_ = 0, count_ = 0;  // the pass's group of searches
  bool nibble_ = true;
  uint64_t stride_ = 0;
  int max_level_ = 0;  // the batch's deepest tree
  int last_passes_ = 0;
  uint64_t carry_v_ = UINT64_MAX, carry_found_ = 0;  // the vertex whose list goes on into the next unit
  std::mutex mutex_;
  CsrPassPhases phases_;
};

// The group's parents during a pass: windows [lo, lo + kWindows) in a ring, read ahead asynchronously, a
// request each; the steps go up in vertices, so a window below a step's first vertex is done with. Packed, each
// window's levels go into the rows as it arrives, before any step needs them (a step's entries (v, w) with
// w < v need w's row, whose window is at or below v's) and before its slot is read again.
template <class Id>
struct CsrPassValidator<Id>::ParentWindows {
  CsrPassValidator& pv;
  std::vector<uint64_t>& twice_nedge;
  uint64_t windows;  // those holding a vertex with a list (the tail's have no parents to check in the pass)
  uint64_t ring;     // windows in DRAM at once
  std::vector<AlignedBuffer> buf;
  AlignedBuffer spare;  // a window's transposition goes here, then takes its slot's place
  std::vector<std::future<void>> reads;
  uint64_t issued = 0, taken = 0;  // windows [0, taken) waited for (and packed, their levels in the rows)

  ParentWindows(CsrPassValidator& v, std::vector<uint64_t>& nedge)
      : pv(v), twice_nedge(nedge), windows((v.listed_ + v.window_ - 1) / v.window_),
        ring(std::max<uint64_t>(1, ring_for(v.g_.n, v.window_))),
        spare(uint64_t(v.count_) * v.window_ * sizeof(Id)), reads(ring) {
    for (uint64_t i = 0; i < ring; ++i) buf.emplace_back(spare.bytes());
  }
  ~ParentWindows() {  // no read may outlive its buffer
    for (std::future<void>& r : reads)
      if (r.valid()) r.wait();
  }
  // The parents of vertices [va, vb) in DRAM, and the windows after them on their way.
  void hold(uint64_t va, uint64_t vb) {
    const uint64_t lo = va / pv.window_, hi = (vb - 1) / pv.window_;
    if (hi - lo >= ring) throw Error("internal error: a validation step spans more parent windows than read ahead");
    issue_below(std::min(windows, lo + ring));
    take_through(hi + 1);
  }
  // Every window waited for (packed: the levels of the vertices no step reached are in the rows too).
  void finish() {
    issue_below(windows);
    take_through(windows);
  }
  // v's parents, the group's side by side (search s's at [s]), with their levels above pv.parent_mask_ when
  // packed: a window is read search by search and transposed as it is taken, so that rule 5 reads one stream
  // (search by search, it read one per search: 64 at SCALE 28).
  const Id* parents_of(uint64_t v) const {
    return reinterpret_cast<const Id*>(buf[size_t((v / pv.window_) % ring)].data()) + v % pv.window_ * uint64_t(pv.count_);
  }
  Id parent(int s, uint64_t v) const { return parents_of(v)[s] & pv.parent_mask_; }

 private:
  void issue_below(uint64_t end) {
    for (; issued < end; ++issued) {
      if (issued >= ring) take_through(issued - ring + 1);  // its slot's window first
      const size_t slot = size_t(issued % ring);
      reads[slot] = std::async(std::launch::async, [this, w = issued, slot] {
        pv.spill_.read(pv.parents_at(pv.first_, w), buf[slot].data(), buf[slot].bytes());
      });
    }
  }
  void take_through(uint64_t end) {  // windows [taken, end)
    for (; taken < end; ++taken) {
      const size_t slot = size_t(taken % ring);
      if (reads[slot].valid()) reads[slot].get();
      if (pv.packed_) {  // transposed as its levels are taken
        pv.take_levels_and_transpose(taken, reinterpret_cast<const Id*>(buf[slot].data()),
                                     reinterpret_cast<Id*>(spare.data()), twice_nedge);
        std::swap(buf[slot], spare);
      } else {
        transpose(slot, std::min(pv.window_, pv.listed_ - taken * pv.window_));
      }
    }
  }
  // Slot's window of m vertices, search-major as read, made vertex-major (64 vertices at a time: their words
  // stay in L1 while each search's are read in order).
  void transpose(size_t slot, uint64_t m) {
    const double t0 = now();
    const Id* in = reinterpret_cast<const Id*>(buf[slot].data());
    Id* out = reinterpret_cast<Id*>(spare.data());
    const uint64_t count = uint64_t(pv.count_), window = pv.window_;
#pragma omp parallel for schedule(static)
    for (uint64_t b = 0; b < m; b += 64) {
      const uint64_t e = std::min(m, b + 64);
      for (uint64_t s = 0; s < count; ++s)
        for (uint64_t i = b; i < e; ++i) out[i * count + s] = in[s * window + i];
    }
    std::swap(buf[slot], spare);
    pv.phases_.rows += now() - t0;
  }
};

// The translation check covers every label only if to_input is a permutation: a bit per label.
template <class Id>
void CsrPassValidator<Id>::check_labels(std::span<int32_t> scratch) const {
  const uint64_t n = g_.n, words = (n + 31) / 32;
  std::vector<int32_t> own(scratch.size() < words ? words : 0);
  uint32_t* seen = reinterpret_cast<uint32_t*>(own.empty() ? scratch.data() : own.data());
  std::fill(seen, seen + words, 0u);
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t label = g_.to_input[v];
    if (label >= n || (seen[label / 32] >> (label % 32)) & 1)
      throw Error(fmt::format("{} is damaged: internal vertex {}'s label {} is out of range or shared; remove it to "
                              "rebuild",
                              files_.path(), v, label), Error::kFixSaid);
    seen[label / 32] |= 1u << (label % 32);
  }
}

// Search `slot`'s levels (level[v] < 0: unreached) of the listed vertices to the spill: packed, each word its
// parent with its level above (unreached: all ones), window by window; else a byte a level apart. Returns the
// deepest level, stopping once it is deeper than the spill holds. internal_sum: the translation check's internal
// side over every vertex (internal_terms), summed as the words are made: its labels' random reads then run while
// the device takes the spill's writes (they ran before the tree walk, with the device idle).
template <class Id>
int32_t CsrPassValidator<Id>::spill_levels(int slot, const Id* internal_parent, const int32_t* level,
                                           uint64_t& internal_sum) {
  const uint64_t n = g_.n, key = key_;
  const Id* to_input = g_.to_input.data();
  int32_t deepest = 0;
  uint64_t sum = 0, a = 0;
  const bool packed = packed_;
  WriteBehind behind(spill_, buffer_, kSpillParts);
  const uint64_t step = packed ? std::max<uint64_t>(1, behind.part_bytes() / (window_ * sizeof(Id))) * window_ : chunk_;
  for (uint64_t h = 0; a < listed_ && deepest <= level_max_; a += step, h = (h + 1) % kSpillParts) {
    const uint64_t m = std::min(step, listed_ - a);
    char* part = behind.fill(h);
    Id* words = reinterpret_cast<Id*>(part);
    uint8_t* bytes = reinterpret_cast<uint8_t*>(part);
#pragma omp parallel for schedule(static) reduction(max : deepest) reduction(+ : sum)
    for (uint64_t i = 0; i < m; ++i) {
      // The parents' labels fetched ahead: the terms' multiplications fill the core's window, which left few of
      // these (random) reads in flight (a 2-core VM: 2.2x faster than the exact compare with this fetch).
      if (i + kGatherAhead < m && internal_parent[a + i + kGatherAhead] < n)
        __builtin_prefetch(to_input + internal_parent[a + i + kGatherAhead]);
      const int32_t l = level[a + i];
      const Id p = internal_parent[a + i];
      deepest = std::max(deepest, l);
      sum += internal_term(to_input, n, key, a + i, p);
      if (packed) words[i] = l < 0 ? kNoVertex<Id> : Id((uint64_t(l) << shift_) | uint64_t(p));
      else bytes[i] = l < 0 ? kUnreached : uint8_t(l);
    }
    if (packed) {
      write_windows(behind, h, slot, a, m);
    } else {
      behind.write(h, levels_at(slot) + a, 0, align_up(m));
      behind.start(h);
    }
  }
  internal_sum = sum + internal_terms(internal_parent, std::min(a, listed_), n);  // the tail, or past a deep stop
  behind.finish();
  return deepest;
}

// Part h of the spill's buffer, the words of vertices [a, a + m) (a at a window's start), written as search
// `slot`'s windows (the tail's never: they are not read).
template <class Id>
void CsrPassValidator<Id>::write_windows(WriteBehind& behind, size_t h, int slot, uint64_t a, uint64_t m) {
  for (uint64_t w = 0; w * window_ < m && a + w * window_ < listed_; ++w)
    behind.write(h, parents_at(slot, a / window_ + w), w * window_ * sizeof(Id),
                 align_up(std::min(window_, m - w * window_) * sizeof(Id)));
  behind.start(h);
}

// The translation check: the output's entries and the search's own, translated to input labels, each summed as
// a multiset hash (validate_detail::entry_term) over arrays read in order: comparing entry by entry reads one of
// them at random, a cache miss a vertex over the whole array (most of the spill's CPU time at SCALE 25). The
// output's side is summed before the tree walk, which may write the levels over it; the internal side as the
// spill's words are made (spill_levels). Equal arrays always sum the same; a sum that differs proves a
// difference, which first_difference names while the output is still there.
template <class Id>
uint64_t CsrPassValidator<Id>::output_terms(const SearchToCheck<Id>& s) const {
  const uint64_t key = key_;
  uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (uint64_t v = 0; v < g_.n; ++v) sum += validate_detail::entry_term(v, s.parent[v], key);
  return sum;
}

// The internal side's terms of internal vertices [a, b).
template <class Id>
uint64_t CsrPassValidator<Id>::internal_terms(const Id* internal_parent, uint64_t a, uint64_t b) const {
  const uint64_t n = g_.n, key = key_;
  const Id* to_input = g_.to_input.data();
  uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (uint64_t v = a; v < b; ++v) {
    if (v + kGatherAhead < b && internal_parent[v + kGatherAhead] < n)
      __builtin_prefetch(to_input + internal_parent[v + kGatherAhead]);
    sum += internal_term(to_input, n, key, v, internal_parent[v]);
  }
  return sum;
}

// The first vertex whose output parent is not its internal parent translated, named ("": none).
template <class Id>
std::string CsrPassValidator<Id>::first_difference(const SearchToCheck<Id>& s, const Id* internal_parent) const {
  const uint64_t n = g_.n;
  const Id* to_input = g_.to_input.data();
  uint64_t mismatch = UINT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : mismatch)
  for (uint64_t v = 0; v < n; ++v)
    if (s.parent[to_input[v]] != translated(to_input, n, internal_parent[v])) mismatch = std::min(mismatch, v);
  if (mismatch == UINT64_MAX) return {};
  const Id p = internal_parent[mismatch];
  return fmt::format("the output parents are not the search's own: vertex {} has parent {} in the output, {} in "
                     "the search's array",
                     label(mismatch), uint64_t(s.parent[to_input[mismatch]]),
                     p == kNoVertex<Id> || p >= n ? std::to_string(uint64_t(p)) : std::to_string(label(p)));
}

// Levels apart (not packed): search `slot`'s parents to the spill, window by window.
template <class Id>
void CsrPassValidator<Id>::spill_parents(int slot, const Id* internal_parent) {
  WriteBehind behind(spill_, buffer_, kSpillParts);
  const uint64_t per = std::max<uint64_t>(1, behind.part_bytes() / (window_ * sizeof(Id)));  // windows a part
  for (uint64_t a = 0, h = 0; a < listed_; a += per * window_, h = (h + 1) % kSpillParts) {
    const uint64_t m = std::min(per * window_, listed_ - a);
    Id* buf = reinterpret_cast<Id*>(behind.fill(h));
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < m; ++i) buf[i] = internal_parent[a + i];
    write_windows(behind, h, slot, a, m);
  }
  behind.finish();
}

template <class Id>
typename CsrPassValidator<Id>::Added CsrPassValidator<Id>::add(const SearchToCheck<Id>& s, const Id* internal_parent,
                                                               Id internal_root, std::span<int32_t> scratch,
                                                               Verdict& verdict) {
  const uint64_t n = g_.n;
  const int slot = size();
  const Id* to_input = g_.to_input.data();
  double clock = now();
  auto lap = [&clock] { const double t = now(); return t - std::exchange(clock, t); };
  // The levels' scratch is the output's memory, or apart from it (see the declaration): then a difference the
  // translation check finds can still be named after the tree walk.
  const bool output_kept = static_cast<const void*>(scratch.data()) != static_cast<const void*>(s.parent);
  const uint64_t output_sum = output_terms(s);
  if (!packed_) spill_parents(slot, internal_parent);
  phases_.spill += lap();
  std::string why;
  int32_t* level = scratch.data();
  const bool tree = validate_detail::tree_levels(n, internal_parent, internal_root, level, why, to_input);
  phases_.tree += lap();
  if (!tree) {
    verdict = {false, 1, "rule 1: " + why, 0};
    return Added::kChecked;
  }
  // Rule 5 for the tail now (no list, so no parent: unreached or the root), so that neither the spill nor the
  // pass holds anything of it; noted, not judged, so that a lower rule the pass finds still takes precedence.
  uint64_t orphan = UINT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : orphan)
  for (uint64_t v = listed_; v < n; ++v)
    if (level[v] >= 0 && v != uint64_t(internal_root)) orphan = std::min(orphan, v);
  uint64_t internal_sum = 0;
  const int32_t deepest = spill_levels(slot, internal_parent, level, internal_sum);
  phases_.spill += lap();
  if (internal_sum != output_sum) {
    const std::string named = output_kept ? first_difference(s, internal_parent) : "";
    verdict = {false, 7,
               !named.empty() ? named
                              : "the output parents are not the search's own: their (vertex, parent) entries differ "
                                "from the search's array translated to input labels",
               0};
    return Added::kChecked;
  }
  const bool deep = deepest > level_max_;
  if (deep) {
    if (!output_kept) {
      Id* out = reinterpret_cast<Id*>(scratch.data());  // the output, rebuilt (it equals the translation)
#pragma omp parallel for schedule(static)
      for (uint64_t v = 0; v < n; ++v) out[to_input[v]] = translated(to_input, n, internal_parent[v]);
    }
    return Added::kTooDeep;
  }
  search_.push_back(s);
  verdict_.push_back(Verdict{});
  if (orphan != UINT64_MAX)
    note_failure(verdict_.back(), 5, bfs_rules::parent_without_edge(label(orphan), label(internal_parent[orphan])));
  max_level_ = std::max(max_level_, int(deepest));
  return Added::kAdded;
}

// The group's vertex-major rows of the listed vertices: nibbles (two searches a byte, the even one low) or bytes;
// a vector's load of padding, unreached. The tail is never reached (add checked it) and adds nothing to nedge.
template <class Id>
void CsrPassValidator<Id>::start_rows(int first, int count, bool nibble) {
  first_ = first, count_ = count, nibble_ = nibble;
  stride_ = nibble ? (uint64_t(count) + 1) / 2 : uint64_t(count);
  rows_ = NumaArray<uint8_t>(listed_ * stride_ + 64);
  std::memset(rows_.data() + listed_ * stride_, 0xff, rows_.size() - listed_ * stride_);
}

// Vertices [a, a + m) into their rows, search s's level of vertex a + i being level_of(s, i) (kUnreached: not
// reached). As they go by: nedge (twice: the reached vertices' raw degrees) and rule 5 for a listed vertex
// without a list, which can have no parent. A thread takes kRowBlock vertices at a time, search by search: their
// rows stay in L1 while each search's levels are read in order (vertex by vertex, every search's stream was
// read at once: 64 streams at SCALE 28).
template <class Id>
template <class LevelOf>
void CsrPassValidator<Id>::take_rows(uint64_t a, uint64_t m, LevelOf&& level_of, std::vector<uint64_t>& twice_nedge) {
  constexpr uint64_t kRowBlock = 64;
#pragma omp parallel
  {
    uint64_t mine[kMaxSlots] = {}, raw[kRowBlock];
#pragma omp for schedule(static)
    for (uint64_t b = 0; b < m; b += kRowBlock) {
      const uint64_t e = std::min(m, b + kRowBlock);
      for (uint64_t i = b; i < e; ++i) raw[i - b] = g_.raw_degree(a + i);
      uint8_t* rows = rows_.data() + (a + b) * stride_;
      if (nibble_) std::memset(rows, 0xff, (e - b) * stride_);
      for (int s = 0; s < count_; ++s) {
        uint64_t sum = 0;
        for (uint64_t i = b; i < e; ++i) {
          const uint8_t l = level_of(s, i), x = l == kUnreached ? 15 : l;
          uint8_t* row = rows + (i - b) * stride_;
          sum += l != kUnreached ? raw[i - b] : 0;
          if (!nibble_) row[s] = l;
          else row[s / 2] = uint8_t(s & 1 ? (row[s / 2] & 0x0f) | (x << 4) : (row[s / 2] & 0xf0) | x);
        }
        mine[s] += sum;
      }
      for (uint64_t i = b; i < e; ++i)
        if (g_.degree(a + i) == 0) finish_vertex(a + i, needs_parent(a + i), 0);
    }
#pragma omp critical
    for (int s = 0; s < count_; ++s) twice_nedge[size_t(first_ + s)] += mine[s];
  }
}

// Packed: window w's levels into the rows from its spilled words (search s's at words[s * window_]), and the words
// transposed, vertex by vertex (vertex i's at transposed[i * count_]), as they go by: one read of the window does
// both jobs, so take_rows' level_of writes the transposition too.
template <class Id>
void CsrPassValidator<Id>::take_levels_and_transpose(uint64_t w, const Id* words, Id* transposed, std::vector<uint64_t>& twice_nedge) {
  const double t0 = now();
  const uint64_t none = uint64_t(kNoVertex<Id>) >> shift_, count = uint64_t(count_);
  take_rows(w * window_, std::min(window_, listed_ - w * window_), [&](int s, uint64_t i) {
    const Id word = words[uint64_t(s) * window_ + i];
    transposed[i * count + uint64_t(s)] = word;
    const uint64_t field = uint64_t(word) >> shift_;
    return field == none ? kUnreached : uint8_t(field);
  }, twice_nedge);
  phases_.rows += now() - t0;
}

// Not packed: the group's levels, search by search from the scratch file (the next chunk read while this one is
// used), into the rows.
template <class Id>
void CsrPassValidator<Id>::load_rows(std::vector<uint64_t>& twice_nedge) {
  const uint64_t n = listed_;
  const int first = first_, count = count_;
  std::vector<AlignedBuffer> in[2];
  for (std::vector<AlignedBuffer>& set : in)
    for (int s = 0; s < count; ++s) set.emplace_back(chunk_);
  auto read = [&](uint64_t a, size_t h) {
    return std::async(std::launch::async, [&, a, h] {
      for (int s = 0; s < count; ++s)
        spill_.read(levels_at(first + s) + a, in[h][size_t(s)].data(), align_up(std::min(chunk_, n - a)));
    });
  };
  std::future<void> next = read(0, 0);
  for (uint64_t a = 0; a < n; a += chunk_) {
    const size_t h = size_t(a / chunk_ % 2);
    const uint64_t m = std::min(chunk_, n - a);
    next.get();
    if (a + chunk_ < n) next = read(a + chunk_, h ^ 1);
    const std::vector<AlignedBuffer>& got = in[h];
    take_rows(a, m, [&](int s, uint64_t i) { return uint8_t(got[size_t(s)].data()[i]); }, twice_nedge);
  }
}

// The pass's steps: each partition file in kUnitBytes pieces, with the vertices whose lists they hold.
template <class Id>
std::vector<typename CsrPassValidator<Id>::Unit> CsrPassValidator<Id>::units() const {
  const CsrLayout& L = files_.layout();
  std::vector<Unit> out;
  for (int p = 0; p < L.parts(); ++p) {
    const uint64_t bytes = L.adj_file_bytes(p);
    for (uint64_t off = 0; off < bytes; off += unit_bytes_) {
      Unit u{p, off, std::min(unit_bytes_, bytes - off), 0, 0, 0, 0};
      u.e0 = std::min(L.part_first[p + 1], L.part_first[p] + off / sizeof(Id));
      u.e1 = std::min(L.part_first[p + 1], u.e0 + u.length / sizeof(Id));
      // [va, vb): the vertices of partition p whose lists end after e0 and begin before e1.
      uint64_t lo = L.bounds[p], hi = L.bounds[p + 1];
      while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (g_.offsets[mid + 1] <= u.e0) lo = mid + 1; else hi = mid;
      }
      u.va = lo;
      hi = L.bounds[p + 1];
      while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (g_.offsets[mid] < u.e1) lo = mid + 1; else hi = mid;
      }
      u.vb = std::max(u.va, lo);
      out.push_back(u);
    }
  }
  return out;
}

// One step's adjacency (read ahead, kDepth at once).
template <class Id>
void CsrPassValidator<Id>::read_unit(const Unit& u, AlignedBuffer& adj) const {
  files_.adj(u.part).file.pread_all(adj.data(), u.length, u.offset);
}

// The steps' adjacency hashed in order; a 4 MiB block's checksum checked once its last step is in.
template <class Id>
void CsrPassValidator<Id>::check_block(const Unit& u, const AlignedBuffer& adj, Xxh3Stream& block_hash) const {
  block_hash.update(adj.data(), u.length);
  const uint64_t block = u.offset / kCsrHashBlock;
  if (u.offset + u.length == std::min(files_.layout().adj_file_bytes(u.part), (block + 1) * kCsrHashBlock)) {
    if (block_hash.digest() != files_.block_hash(u.part, block))
      throw Error(fmt::format("{} is corrupted: checksum mismatch in block {} (bytes {}..{}), found by validation",
                              files_.adj(u.part).file.path(), block, block * kCsrHashBlock, u.offset + u.length - 1));
    block_hash = Xxh3Stream();
  }
}

// The group's searches (bit s) that reached v below their root: those whose parent of v must be in v's list.
// From v's row, a byte at a time (two searches as nibbles), not a search at a time.
template <class Id>
uint64_t CsrPassValidator<Id>::needs_parent(uint64_t v) const {
  const uint8_t* row = rows_.data() + v * stride_;
  uint64_t need = 0;
  if (nibble_) {
    for (uint64_t j = 0; j < stride_; ++j) {
      const uint8_t lo = row[j] & 15, hi = row[j] >> 4;
      need |= uint64_t(lo != 15 && lo != 0) << (2 * j) | uint64_t(hi != 15 && hi != 0) << (2 * j + 1);
    }
  } else {
    for (uint64_t j = 0; j < stride_; ++j) need |= uint64_t(row[j] != kUnreached && row[j] != 0) << j;
  }
  return count_ == kMaxSlots ? need : need & ((uint64_t(1) << count_) - 1);
}

template <class Id>
void CsrPassValidator<Id>::finish_vertex(uint64_t v, uint64_t need, uint64_t found, const ParentWindows* pw) {
  for (uint64_t missing = need & ~found; missing != 0; missing &= missing - 1) {
    const int s = std::countr_zero(missing);
    fail(s, 5, pw ? bfs_rules::parent_without_edge(label(v), label(pw->parent(s, v)))
                  : bfs_rules::parent_without_edge(label(v)));
  }
}

template <class Id>
void CsrPassValidator<Id>::say_why(uint64_t v, uint64_t w) {
  for (int s = 0; s < count_; ++s) {
    const uint8_t a = level(s, v), b = level(s, w);
    if ((a == kUnreached) != (b == kUnreached))
      fail(s, 4, bfs_rules::joins_reached_and_unreached(label(v), label(w), a != kUnreached));
    else if (a != kUnreached && (a > b + 1 || b > a + 1))
      fail(s, 3, bfs_rules::joins_levels(label(v), label(w), a, b));
  }
}

// Rules 3 and 4 on the step's entries (v,w), w < v, sixteen bytes of levels a vector operation (32 searches
// as nibbles, 16 as bytes); the parents found in the lists (rule 5) for every vertex whose list ends here.
template <class Id>
void CsrPassValidator<Id>::check_unit(const Unit& u, const AlignedBuffer& step_adj, const ParentWindows& pw) {
  using V16 = uint8_t __attribute__((vector_size(16)));
  const uint64_t b = stride_, vectors = (b + 15) / 16;
  const bool nibble = nibble_;
  const uint8_t unreached = nibble ? 15 : kUnreached;
  // Lanes whose levels differ by more than one or are reached on one end only.
  auto broken = [unreached](V16 a, V16 x) {
    const V16 ua = a == unreached, ux = x == unreached, gap = V16(a - x + 1) > 2;
    return V16((ua ^ ux) | (gap & ~ua & ~ux));
  };
  const Id* adj = reinterpret_cast<const Id*>(step_adj.data());
  const uint8_t* rows = rows_.data();
  std::vector<uint64_t> found(u.vb - u.va, 0);
  // A thread takes kVertices lists at a time, whose entries are adjacent in the step: rows are fetched kAhead
  // entries ahead across the lists' ends (most lists are short: ahead within a list alone left most loads
  // unprefetched), for neighbours below the list's vertex only (an entry ahead is in this list or a later one,
  // so below this vertex is below its own).
  constexpr uint64_t kVertices = 256, kAhead = 16;
  const uint64_t chunks = (u.vb - u.va + kVertices - 1) / kVertices;
#pragma omp parallel for schedule(dynamic, 1)
  for (uint64_t chunk = 0; chunk < chunks; ++chunk) {
  const uint64_t v0 = u.va + chunk * kVertices, v1 = std::min(u.vb, v0 + kVertices);
  const Id* stop = adj + (std::min<uint64_t>(g_.offsets[v1], u.e1) - u.e0);
  const Id* start = adj + (std::max<uint64_t>(g_.offsets[v0], u.e0) - u.e0);
  for (const Id* ahead = start; ahead < stop && ahead < start + kAhead; ++ahead)
    if (*ahead < v0) __builtin_prefetch(rows + uint64_t(*ahead) * b);
  for (uint64_t v = v0; v < v1; ++v) {
    const uint64_t begin = std::max<uint64_t>(g_.offsets[v], u.e0), end = std::min<uint64_t>(g_.offsets[v + 1], u.e1);
    if (begin >= end) continue;
    const Id* list = adj + (begin - u.e0);
    const uint64_t len = end - begin;
    uint64_t below = 0;  // entries w < v: a prefix (sorted)
    while (below < len && list[below] < v) ++below;
    V16 bad{};
    for (uint64_t c = 0; c < vectors; ++c) {
      V16 a, mask;
      std::memcpy(&a, rows + v * b + 16 * c, 16);
      for (uint64_t i = 0; i < 16; ++i) mask[i] = 16 * c + i < b ? 0xff : 0;
      const V16 a_lo = a & 15, a_hi = a >> 4;
      for (uint64_t j = 0; j < below; ++j) {
        if (const Id* ahead = list + j + kAhead; ahead < stop && *ahead < v) __builtin_prefetch(rows + uint64_t(*ahead) * b + 16 * c);
        V16 x;
        std::memcpy(&x, rows + uint64_t(list[j]) * b + 16 * c, 16);
        if (nibble) bad |= (broken(a_lo, x & 15) | broken(a_hi, x >> 4)) & mask;
        else bad |= broken(a, x) & mask;
      }
    }
    bool any = false;
    for (uint64_t i = 0; i < 16; ++i) any |= bad[i] != 0;
    if (any) [[unlikely]]
      for (uint64_t j = 0; j < below; ++j) say_why(v, list[j]);
    uint64_t got = 0;
    const Id* parents = pw.parents_of(v);
    const uint64_t need = needs_parent(v);
    for (uint64_t m = need; m != 0; m &= m - 1) {
      const int s = std::countr_zero(m);
      const Id p = parents[s] & parent_mask_;
      uint64_t i = 0;  // parents sit early in a list (ids by degree, bottom-up takes the first): look there first
      while (i < len && i < 4 && list[i] < p) ++i;
      if (i == 4 && len > 4) i = uint64_t(std::lower_bound(list + 4, list + len, p) - list);
      got |= uint64_t(i < len && list[i] == p) << s;
    }
    found[v - u.va] = got;
    if (g_.offsets[v] >= u.e0 && g_.offsets[v + 1] <= u.e1 && (need & ~got) != 0) finish_vertex(v, need, got, &pw);
  }
  }
  // The lists cut by the step's edges: the first goes on from the last step, the last goes on into the next.
  if (u.vb == u.va) return;
  uint64_t first = found[0];
  if (g_.offsets[u.va] < u.e0) {
    if (carry_v_ == u.va) first |= carry_found_;
    if (g_.offsets[u.va + 1] <= u.e1) finish_vertex(u.va, needs_parent(u.va), first, &pw);
    else carry_v_ = u.va, carry_found_ = first;
  }
  const uint64_t last = u.vb - 1;
  if (g_.offsets[last + 1] > u.e1 && g_.offsets[last] >= u.e0) carry_v_ = last, carry_found_ = found[last - u.va];
}

// One pass over the on-disk CSR for searches [first, first + count) of the batch, their levels packed as asked;
// step() after each step read.
template <class Id>
void CsrPassValidator<Id>::pass(int first, int count, bool nibble, std::vector<uint64_t>& twice_nedge,
                                const std::function<void(uint64_t)>& step) {
  double t = now();
  start_rows(first, count, nibble);
  if (!packed_) load_rows(twice_nedge);
  phases_.rows += now() - t;
  const std::vector<Unit> steps = units();
  std::vector<AlignedBuffer> data;  // step i's adjacency: data[i % kDepth]
  for (int i = 0; i < kDepth; ++i) data.emplace_back(unit_bytes_);
  ParentWindows windows(*this, twice_nedge);
  Xxh3Stream block_hash;
  carry_v_ = UINT64_MAX;
  std::vector<std::future<void>> reads(kDepth);  // step i's read is reads[i % kDepth], its buffers data[i % kDepth]
  auto read = [&](size_t i) {
    if (i < steps.size()) reads[i % kDepth] = std::async(std::launch::async, [&, i] { read_unit(steps[i], data[i % kDepth]); });
  };
  for (size_t i = 0; i < size_t(kDepth); ++i) read(i);
  try {
    for (size_t i = 0; i < steps.size(); ++i) {
      t = now();
      const double taking = phases_.rows;  // packed: the windows' levels taken into the rows within hold
      reads[i % kDepth].get();
      if (steps[i].vb > steps[i].va) windows.hold(steps[i].va, steps[i].vb);
      const double t1 = now();
      check_block(steps[i], data[i % kDepth], block_hash);
      check_unit(steps[i], data[i % kDepth], windows);
      phases_.read_wait += t1 - t - (phases_.rows - taking), phases_.check += now() - t1;
      read(i + kDepth);
      if (step) step(steps.size());
    }
    windows.finish();
  } catch (...) {
    for (std::future<void>& r : reads)  // no read may outlive its buffers
      if (r.valid()) r.wait();
    throw;
  }
}

template <class Id>
std::vector<Verdict> CsrPassValidator<Id>::check(const std::function<void(uint64_t, uint64_t)>& progress) {
  if (search_.empty()) return {};
  // Nibbles for the whole batch while its trees allow; else bytes for half the batch a pass (the same DRAM).
  const bool nibble = max_level_ <= nibble_max_level_;
  const int group = nibble ? size() : std::min(size(), std::max(1, (slots_ + 1) / 2));
  const int passes = (size() + group - 1) / group;
  std::vector<uint64_t> twice_nedge(search_.size(), 0);
  uint64_t done = 0;
  for (int first = 0; first < size(); first += group) {
    pass(first, std::min(group, size() - first), nibble, twice_nedge, [&](uint64_t steps) {
      if (progress) progress(++done, steps * uint64_t(passes));
    });
  }
  std::vector<Verdict> out = std::move(verdict_);
  for (int s = 0; s < size(); ++s) {
    out[size_t(s)].nedge = twice_nedge[size_t(s)] / 2;
    if (out[size_t(s)].valid && twice_nedge[size_t(s)] / 2 != search_[size_t(s)].nedge)
      out[size_t(s)] = {false, 6,
                        fmt::format("nedge mismatch: the search counted {}, kernel 1's graph gives {}",
                                    search_[size_t(s)].nedge, twice_nedge[size_t(s)] / 2),
                        twice_nedge[size_t(s)] / 2};
  }
  search_.clear();
  verdict_.clear();
  rows_ = NumaArray<uint8_t>();
  max_level_ = 0;
  last_passes_ = passes;
  return out;
}

}  // namespace strata
