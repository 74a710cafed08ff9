// What a kernel reports of one search beside the record every kernel has (root, time, nedge, validation): named
// values, filled by the kernel's own code as each search ends, that the front end writes as they are (the JSON
// keys of a search), so that reporting a new kernel's figures touches no formatting code.
#pragma once
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

namespace strata {

// A hash, written in hex ("0x" and 16 digits).
struct Hash64 {
  uint64_t value;
};
using FactValue = std::variant<uint64_t, double, Hash64, bool>;

struct SearchFacts {
  std::vector<std::pair<const char*, FactValue>> list;  // (JSON key, value), keys unique

  // key: a string literal (kept by pointer).
  void add(const char* key, FactValue value) { list.emplace_back(key, value); }
};

}  // namespace strata
