// A file mapped for DAX: written through libpmem (pmem_map_file, flushed with pmem_persist or msync), read
// through a read-only mmap: on a DAX filesystem over persistent memory the mapping is the media itself
// (is_pmem) and loads need no page cache; elsewhere it is page cache. One object owns the mapping.
#pragma once
#include <cstdint>
#include <string>

namespace strata {

class PmemMapping {
 public:
  PmemMapping() = default;
  // Maps an existing file whole, read-only (writes to it fault; the file is opened read-only, so read-only
  // files and mounts work): the search reads in place, never writes. If the file shrinks while mapped (another
  // process truncates it), a read past its new end ends the process with a message naming the file (SIGBUS
  // handled), not a crash; nothing is added to the reads themselves. is_pmem: the file is on a DAX
  // filesystem (or PMEM_IS_PMEM_FORCE=1); elsewhere the mapping is page cache and can use huge pages.
  static PmemMapping open_read(const std::string& path);
  // Creates (or replaces) a file of `bytes` and maps it for writing.
  static PmemMapping create(const std::string& path, uint64_t bytes);
  PmemMapping(PmemMapping&& o) noexcept;
  PmemMapping& operator=(PmemMapping&& o) noexcept;
  PmemMapping(const PmemMapping&) = delete;
  PmemMapping& operator=(const PmemMapping&) = delete;
  ~PmemMapping();

  const char* data() const { return static_cast<const char*>(addr_); }
  uint64_t size() const { return bytes_; }
  bool is_pmem() const { return is_pmem_; }
  const std::string& path() const { return path_; }
  // Copies src to offset and makes it durable: pmem_memcpy_persist on pmem, memcpy + pmem_msync elsewhere.
  void write_persist(uint64_t offset, const void* src, uint64_t len);
  void unmap();

 private:
  void* addr_ = nullptr;
  uint64_t bytes_ = 0;
  uint64_t mapped_ = 0;       // own mappings: the length mapped (at least one byte, for empty files)
  int guard_ = -1;            // read mappings: the SIGBUS guard's slot (a file truncated under the run)
  bool is_pmem_ = false;
  bool own_mapping_ = false;  // mapped with mmap (not pmem), unmapped with munmap
  std::string path_;
};

}  // namespace strata
