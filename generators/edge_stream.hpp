// Streams a Kronecker edge list in chunks across OpenMP threads, so no one holds all M edges at once.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "generators/kronecker.hpp"

namespace strata {

inline constexpr uint64_t kDefaultEdgeChunk = uint64_t(1) << 16;

// An exception may not leave an OpenMP region: the first one is kept, later work is skipped, and it is
// rethrown by the thread that started the region.
class FirstError {
 public:
  template <class F>
  void run(F&& f) {
    if (failed_.load(std::memory_order_relaxed)) return;
    try {
      f();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_ = true;
    }
  }
  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::exception_ptr error_;
};

// Calls fn(first_index, std::span<const Edge>) for consecutive chunks covering [0, M); chunks run
// concurrently on the current OpenMP team, so fn must be thread-safe.
template <class Fn>
void for_each_edge_chunk(const Kronecker& gen, Fn&& fn, uint64_t chunk = kDefaultEdgeChunk) {
  const uint64_t m = gen.spec().edge_count();
  const uint64_t chunks = (m + chunk - 1) / chunk;
  FirstError error;
#pragma omp parallel
  {
    std::vector<Edge> buffer(chunk);
#pragma omp for schedule(dynamic, 1)
    for (uint64_t c = 0; c < chunks; ++c)
      error.run([&] {
        const uint64_t begin = c * chunk, end = std::min(m, begin + chunk);
        gen.generate(begin, end, buffer.data());
        fn(begin, std::span<const Edge>(buffer.data(), end - begin));
      });
  }
  error.rethrow();
}

}  // namespace strata

namespace strata {

// An edge source that regenerates the list on every pass instead of storing it (kernel 1 may do this).
struct GeneratedEdges {
  Kronecker gen;
  const KroneckerSpec& spec() const { return gen.spec(); }
  template <class Fn>
  void for_each_edge_chunk(Fn&& fn) const {
    strata::for_each_edge_chunk(gen, std::forward<Fn>(fn));
  }
};

}  // namespace strata
