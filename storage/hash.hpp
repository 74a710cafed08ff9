// XXH3-64, the checksum of every Strata format: one-shot, and a streaming state owned by one object
// (xxhash.h stays inside hash.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

struct XXH3_state_s;

namespace strata {

uint64_t xxh3(const void* data, size_t bytes);

class Xxh3Stream {
 public:
  Xxh3Stream();  // a fresh (reset) state
  void update(const void* data, size_t bytes);
  uint64_t digest() const;

 private:
  struct Free {
    void operator()(XXH3_state_s* s) const;
  };
  std::unique_ptr<XXH3_state_s, Free> state_;
};

}  // namespace strata
