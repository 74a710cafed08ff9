// A file opened for O_DIRECT reads (no page cache: what a run reads costs no DRAM beyond its own buffers).
// Filesystems without O_DIRECT (tmpfs) fall back to buffered reads, with one warning on stderr, since DRAM
// use is then no longer bounded by the run's budget.
#pragma once
#include <cstdint>
#include <string>

#include "storage/file.hpp"

namespace strata {

inline constexpr uint64_t kDirectAlign = 4096;  // offsets, lengths and buffers of direct reads

struct DirectFile {
  File file;
  bool direct = false;
};

// Opens path read-only, O_DIRECT where the filesystem supports it (checked with one aligned read).
DirectFile open_direct(const std::string& path);

inline uint64_t align_down(uint64_t x) { return x & ~(kDirectAlign - 1); }
inline uint64_t align_up(uint64_t x) { return (x + kDirectAlign - 1) & ~(kDirectAlign - 1); }

}  // namespace strata
