#include "storage/hash.hpp"

#include <xxhash.h>

#include <new>

namespace strata {

uint64_t xxh3(const void* data, size_t bytes) { return XXH3_64bits(data, bytes); }

void Xxh3Stream::Free::operator()(XXH3_state_s* s) const { XXH3_freeState(s); }

Xxh3Stream::Xxh3Stream() : state_(XXH3_createState()) {
  if (!state_) throw std::bad_alloc();
  XXH3_64bits_reset(state_.get());
}

void Xxh3Stream::update(const void* data, size_t bytes) { XXH3_64bits_update(state_.get(), data, bytes); }

uint64_t Xxh3Stream::digest() const { return XXH3_64bits_digest(state_.get()); }

}  // namespace strata
