// The on-disk CSR of a graph directory, built once by kernel 1 for the out-of-core and DAX placements and
// reused by later runs:
//
//   DIR/csr-p<K>/csr.hdr    header: the graph it was built from (graph.hdr's checksum), SCALE, id width,
//                           K partitions and their vertex bounds, entry counts, build time, checksums
//   DIR/csr-p<K>/meta.bin   O(N) arrays: offsets (n+1 x u64), to_input (n ids), duplicates (n x u8),
//                           saturated duplicate counts (count, then (v, count) u64 pairs)
//   DIR/csr-p<K>/adj.<p>.bin  partition p's neighbour lists, back to back from offset 0, padded with zeros
//                           to a multiple of 4 KiB (for O_DIRECT); one XXH3 per 4 MiB block in the header
//   DIR/csr-w-p<K>/         the weighted CSR kernel 3 reads on storage (header version 2, weighted): the same
//                           meta.bin, and each entry of adj.<p>.bin an (id, float32 weight) pair, every list
//                           sorted by weight (light edges first: the edge cache holds them), then by id.
//                           Kernel 2 never reads it, so a BFS-only run costs what it did.
//
// Offsets are global entry indices; partition p's lists start at entry part_first[p] of the concatenation.
// The directory is written under a temporary name and renamed when complete: a crashed build leaves only
// a temporary directory, which the next build removes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/atomic_dir.hpp"
#include "storage/direct_file.hpp"
#include "storage/file.hpp"
#include "storage/hash.hpp"
#include "storage/pmem_map.hpp"

namespace strata {

struct CsrLayout {
  uint64_t graph_hash = 0;  // GraphDir::header_hash() of the graph it was built from
  int scale = 0;
  int id_bytes = 4;
  bool weighted = false;     // entries are (id, float) pairs, lists by weight
  uint64_t n = 0;
  uint64_t entries = 0;      // directed edges after deduplication
  uint64_t many_duplicates = 0;  // vertices whose duplicate count saturates one byte
  double build_seconds = 0;  // how long the build took
  std::vector<uint64_t> bounds;      // parts + 1 vertex bounds
  std::vector<uint64_t> part_first;  // parts + 1 entry bounds: partition p holds [part_first[p], part_first[p+1])
  int parts() const { return int(bounds.size()) - 1; }
  uint64_t meta_bytes() const;
  uint64_t entry_bytes() const { return uint64_t(id_bytes) + (weighted ? 4 : 0); }
  uint64_t adj_file_bytes(int p) const { return align_up((part_first[p + 1] - part_first[p]) * entry_bytes()); }
};

inline constexpr uint64_t kCsrHashBlock = uint64_t(4) << 20;

class CsrFiles {
 public:
  static constexpr const char* kHeaderFile = "csr.hdr";  // the commit record: written last
  static std::string path_for(const std::string& graph_dir, int parts, bool weighted = false);
  static std::string adj_name(int p);
  // Whether `name` is a file a CSR directory holds (csr.hdr, meta.bin, adj.<p>.bin): what no output may replace.
  static bool is_own_file(const std::string& name);

  // Opens a built CSR and checks its header against the graph (hash and SCALE); throws Error naming the
  // mismatch. Adjacency files are opened for O_DIRECT reads and their sizes checked.
  static CsrFiles open(const std::string& path, uint64_t graph_hash, int scale);
  // The CSR directories under dir, relative paths, sorted: every csr-p<K> and csr-w-p<K> (path_for's names, whole
  // or not), and the directories one or two levels down that hold a CSR header (a rank's rows under mpi-p<P>).
  // Unfinished builds (temporary names) are left out.
  static std::vector<std::string> find_in(const std::string& dir);
  // Reads meta.bin and every adjacency block whole and checks each against its checksum; throws Error naming the
  // file and the bytes of the first mismatch. progress counts bytes.
  void verify(const ProgressFn& progress = {}) const;

  const std::string& path() const { return path_; }
  const CsrLayout& layout() const { return layout_; }
  uint64_t meta_hash() const { return meta_hash_; }  // of meta.bin: equal for kernel 2's and kernel 3's CSRs
  const DirectFile& adj(int p) const { return *adj_[p]; }
  std::vector<const DirectFile*> adj_files() const;
  // Checksum of 4 MiB block b of partition p's file (the last block may be shorter).
  uint64_t block_hash(int p, uint64_t b) const { return hashes_[p][b]; }
  // Reads meta.bin in order, piece by piece, into the caller's arrays; finish() checks the checksum.
  class MetaReader {
   public:
    explicit MetaReader(const CsrFiles& files);
    MetaReader(const MetaReader&) = delete;
    MetaReader& operator=(const MetaReader&) = delete;
    void read(void* out, uint64_t bytes);
    void finish();  // throws Error if the bytes read do not match the header's checksum or size

   private:
    File file_;
    uint64_t at_ = 0, expected_hash_, expected_bytes_;
    Xxh3Stream state_;
  };

 private:
  std::string path_;
  CsrLayout layout_;
  uint64_t meta_hash_ = 0;
  std::vector<std::vector<uint64_t>> hashes_;
  std::vector<std::shared_ptr<DirectFile>> adj_;
};

// Writes a CSR directory: the adjacency of each partition in order (append), then meta, then commit. The
// header is written last and the directory renamed into place: it is the commit record, so a crash at any
// point leaves no CSR that looks complete. With pmem, adjacency files are written through a libpmem
// mapping (pmem_memcpy_persist, or pmem_msync off pmem), the way a DAX filesystem is meant to be written.
class CsrWriter {
 public:
  // layout: all but entries/part_first/seconds
  CsrWriter(const std::string& path, const CsrLayout& layout, bool pmem = false);
  CsrWriter(const CsrWriter&) = delete;
  CsrWriter& operator=(const CsrWriter&) = delete;
  // With pmem, a partition's file is sized before its first append: at most max_entries entries.
  void reserve_part(int part, uint64_t max_entries);
  void append(int part, const void* ids, uint64_t count);     // partitions in order 0..K-1
  void finish_part(int part);                                 // pads and syncs partition part's file
  void write_meta(const void* data, uint64_t bytes);          // may be called repeatedly, in order
  void set_many_duplicates(uint64_t count) { layout_.many_duplicates = count; }  // before commit
  void commit(double build_seconds);                           // header last, then rename into place
  const CsrLayout& layout() const { return layout_; }

 private:
  void flush_block(bool last);
  void put_block(const char* data, uint64_t bytes);  // hashed, then written (pmem: persisted)
  void open_part(int part);

  AtomicDir dir_;
  CsrLayout layout_;
  bool pmem_;
  File adj_, meta_;
  PmemMapping mapped_;          // pmem: the partition file being written
  uint64_t mapped_at_ = 0;
  std::vector<uint64_t> reserved_;
  int part_ = -1;
  std::vector<char> block_;  // the adjacency block being filled (hashed when full)
  uint64_t part_entries_ = 0;
  std::vector<std::vector<uint64_t>> hashes_;
  uint64_t meta_written_ = 0;
  Xxh3Stream meta_state_;  // of meta.bin, as it is written
};

}  // namespace strata
