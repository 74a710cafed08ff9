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

// Opens path read-only, O_DIRECT where the filesystem supports it (checked with one aligned read); on
// tmpfs, where O_DIRECT is accepted but the file itself lives in DRAM, warns once. allow_direct = false
// opens buffered (the fallback path, for tests).
DirectFile open_direct(const std::string& path, bool allow_direct = true);

inline uint64_t align_down(uint64_t x) { return x & ~(kDirectAlign - 1); }
inline uint64_t align_up(uint64_t x) { return (x + kDirectAlign - 1) & ~(kDirectAlign - 1); }

}  // namespace strata
