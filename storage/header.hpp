// The common start of Strata's file headers: a fixed-size struct beginning with an 8-byte magic and a
// 32-bit format version, read and checked the same way for every format.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "core/error.hpp"
#include "storage/file.hpp"

namespace strata {

// Reads Header (fields `magic` and `version` first) from the start of f; what names the format in errors.
template <class Header>
Header read_header(const File& f, const char (&magic)[8], uint32_t version, const std::string& what) {
  Header h;
  if (f.size() < sizeof h) throw Error(fmt::format("{} is truncated (not a complete {} header)", f.path(), what));
  f.pread_all(&h, sizeof h, 0);
  if (std::memcmp(h.magic, magic, sizeof magic) != 0) throw Error(fmt::format("{} has a bad magic: not a {}", f.path(), what));
  if (h.version != version)
    throw Error(fmt::format("{} has format version {}; this build reads version {}", f.path(), h.version, version));
  return h;
}

}  // namespace strata
