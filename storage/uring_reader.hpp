// Batched reads with io_uring: up to `depth` requests in flight into registered, aligned buffers, each
// handed to the caller as it completes while the rest are still on the device (compute overlaps I/O).
// Short reads are completed by resubmitting the rest; errors end the batch, after draining it, with the
// file, offset and cause named -- a failed read never yields a partial buffer.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "storage/direct_file.hpp"
#include "storage/numa_array.hpp"

struct io_uring;  // liburing.h (heavy, inline-only) stays inside uring_reader.cpp

namespace strata {

// How tails are read: requests of up to request_bytes (lists that are close merged into one; a gap of at
// most merge_gap bytes is read rather than paid for with another request), depth in flight per thread.
struct IoOptions {
  unsigned depth = 64;
  uint32_t request_bytes = 128 << 10;
  uint64_t merge_gap = 16 << 10;
};


struct ReadRequest {
  uint32_t file = 0;    // index into the reader's files
  uint64_t offset = 0;  // bytes; a multiple of kDirectAlign for O_DIRECT files
  uint32_t length = 0;  // bytes, at most the reader's buffer size
  uint64_t tag[2] = {0, 0};  // the caller's bookkeeping
};

// Test hook (--debug-io-faults): faults planted into completions of every reader in the process (0 = off).
// Unarmed, a completion reads two fields that never change; only armed faults count completions (a counter
// shared by every thread, kept off the production path).
struct IoFaults {
  std::atomic<uint64_t> short_every{0};  // every Nth completion of >= 8 KiB reports half its length
  std::atomic<uint64_t> error_at{0};     // the Nth completion fails with EIO
  std::atomic<uint64_t> completions{0};  // counted while a fault is armed

  bool armed() const {
    return (short_every.load(std::memory_order_relaxed) | error_at.load(std::memory_order_relaxed)) != 0;
  }
  int plant(int res);  // a completion's result, with the armed faults applied
};
IoFaults& io_faults();

class UringReader {
 public:
  UringReader(std::vector<const DirectFile*> files, unsigned depth, uint32_t buffer_bytes);
  UringReader(const UringReader&) = delete;
  UringReader& operator=(const UringReader&) = delete;
  ~UringReader();

  using NextFn = std::function<bool(ReadRequest&)>;                   // fills the next request; false: none left
  using DoneFn = std::function<void(const ReadRequest&, const char*)>;  // a request's bytes, complete
  void run(const NextFn& next, const DoneFn& done);

  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t requests() const { return requests_; }
  bool registered_buffers() const { return registered_; }
  uint64_t buffer_bytes() const { return uint64_t(depth_) * buffer_bytes_; }

 private:
  struct Slot {
    ReadRequest req;
    uint32_t done = 0;     // bytes already read
    uint32_t stalls = 0;   // completions that made no progress
  };
  void prepare(unsigned slot);
  bool complete(unsigned slot, int res);  // true: slot finished; throws Error on failure

  std::vector<const DirectFile*> files_;
  unsigned depth_;
  uint32_t buffer_bytes_;
  PageRegion buffers_;  // depth buffers, page-aligned, returned to the OS when the reader goes
  std::unique_ptr<io_uring> ring_;
  bool registered_ = false;
  std::vector<Slot> slots_;
  std::vector<unsigned> free_;
  std::vector<std::pair<unsigned, int>> ready_;  // completions reaped in one round (slot, result)
  uint64_t bytes_read_ = 0, requests_ = 0;
};

}  // namespace strata
