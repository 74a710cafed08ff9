// Scratch space on storage for what a run cannot keep in DRAM (validation's spilled parents and levels): one
// file, unlinked as soon as it is made so that nothing is left behind however the run ends, its whole size
// reserved up front (a full disk is refused before any work, not met half-way), read and written with
// O_DIRECT where the filesystem has it, so that it takes no page cache (a cgroup cap counts page cache).
#pragma once
#include <cstdint>
#include <string>

#include "storage/direct_file.hpp"
#include "storage/numa_array.hpp"

namespace strata {

class SpillFile {
 public:
  SpillFile() = default;
  // A file of `bytes` in directory dir; `what` names its use in messages. Throws Error naming the cause.
  SpillFile(const std::string& dir, uint64_t bytes, const std::string& what);

  // offset and bytes multiples of kDirectAlign, data page-aligned.
  void write(uint64_t offset, const void* data, uint64_t bytes);
  void read(uint64_t offset, void* data, uint64_t bytes) const;
  // Hands [offset, offset + bytes) back to the filesystem (a hole), where it can; the range reads as zeros after.
  void release(uint64_t offset, uint64_t bytes);
  uint64_t bytes() const { return bytes_; }
  bool direct() const { return direct_; }
  bool is_open() const { return file_.fd() >= 0; }

 private:
  File file_;
  uint64_t bytes_ = 0;
  bool direct_ = false;
  std::string what_;
};

// A page-aligned buffer for direct I/O, and reads of unaligned byte ranges through it.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(uint64_t bytes = 0) : region_(align_up(bytes)), bytes_(align_up(bytes)) {}
  char* data() const { return static_cast<char*>(region_.base()); }
  uint64_t bytes() const { return bytes_; }
  // Bytes [offset, offset + len) of f, read as the aligned range around them; returns where they start.
  const char* read_range(const SpillFile& f, uint64_t offset, uint64_t len);
  // Room for a read of len bytes at any offset.
  static uint64_t bytes_for_range(uint64_t len) { return align_up(len) + kDirectAlign; }

 private:
  PageRegion region_;
  uint64_t bytes_ = 0;
};

}  // namespace strata
