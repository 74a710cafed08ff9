#include "storage/uring_reader.hpp"

#include <liburing.h>

#include <fmt/format.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "core/error.hpp"

namespace strata {

IoFaults& io_faults() {
  static IoFaults faults;
  return faults;
}

int IoFaults::plant(int res) {
  const uint64_t nth = completions.fetch_add(1, std::memory_order_relaxed) + 1;
  if (const uint64_t e = error_at.load(std::memory_order_relaxed); e != 0 && nth == e) res = -EIO;
  if (const uint64_t k = short_every.load(std::memory_order_relaxed); k != 0 && nth % k == 0 && res >= 8192)
    res = int(align_down(uint64_t(res) / 2));
  return res;
}

UringReader::UringReader(std::vector<const DirectFile*> files, unsigned depth, uint32_t buffer_bytes)
    : files_(std::move(files)), depth_(depth), buffer_bytes_(uint32_t(align_up(buffer_bytes))),
      ring_(std::make_unique<io_uring>()), slots_(depth) {
  if (depth == 0) throw Error("I/O depth must be at least 1");
  const int rc = io_uring_queue_init(depth, ring_.get(), 0);
  if (rc < 0) throw Error(errno_message("cannot set up io_uring", -rc));
  try {
    buffers_ = PageRegion(size_t(depth) * buffer_bytes_);
  } catch (...) {
    io_uring_queue_exit(ring_.get());
    throw;
  }
  char* base = static_cast<char*>(buffers_.base());
  // Registered buffers save the kernel mapping pages per request; they count against RLIMIT_MEMLOCK, so
  // where that is too low we read into the same buffers unregistered.
  std::vector<iovec> iov(depth);
  for (unsigned i = 0; i < depth; ++i) iov[i] = {base + size_t(i) * buffer_bytes_, buffer_bytes_};
  registered_ = io_uring_register_buffers(ring_.get(), iov.data(), depth) == 0;
  for (unsigned i = depth; i-- > 0;) free_.push_back(i);
}

UringReader::~UringReader() {
  io_uring_queue_exit(ring_.get());  // nothing is in flight: run() drains before returning or throwing
}

void UringReader::prepare(unsigned slot) {
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  if (!sqe) {  // cannot happen with at most depth in flight; submit what is queued and retry
    if (const int rc = io_uring_submit(ring_.get()); rc < 0) throw Error(errno_message("io_uring submit failed", -rc));
    sqe = io_uring_get_sqe(ring_.get());
    if (!sqe) throw Error("internal error: no io_uring submission slot free after submitting");
  }
  Slot& s = slots_[slot];
  char* buf = static_cast<char*>(buffers_.base()) + size_t(slot) * buffer_bytes_ + s.done;
  const int fd = files_[s.req.file]->file.fd();
  const unsigned len = s.req.length - s.done;
  if (registered_) io_uring_prep_read_fixed(sqe, fd, buf, len, s.req.offset + s.done, int(slot));
  else io_uring_prep_read(sqe, fd, buf, len, s.req.offset + s.done);
  io_uring_sqe_set_data64(sqe, slot);
}

bool UringReader::complete(unsigned slot, int res) {
  Slot& s = slots_[slot];
  if (IoFaults& f = io_faults(); f.armed()) [[unlikely]] res = f.plant(res);
  const DirectFile& file = *files_[s.req.file];
  const uint64_t at = s.req.offset + s.done;
  if (res == -EINTR || res == -EAGAIN) {
    prepare(slot);
    return false;
  }
  if (res < 0)
    throw Error(fmt::format("read failed: {} at offset {} ({} bytes): {}", file.file.path(), at,
                            s.req.length - s.done, std::strerror(-res)));
  if (res == 0)
    throw Error(fmt::format("read failed: {} ends before offset {} (truncated?)", file.file.path(), at));
  // A direct read must resume on an aligned offset: keep only whole aligned units of a short read.
  const uint32_t got = file.direct && s.done + uint32_t(res) < s.req.length ? uint32_t(align_down(uint64_t(res))) : uint32_t(res);
  s.stalls = got == 0 ? s.stalls + 1 : 0;
  if (s.stalls > 3)
    throw Error(fmt::format("read failed: {} at offset {}: the device keeps returning short reads", file.file.path(), at));
  s.done += got;
  if (s.done < s.req.length) {
    prepare(slot);
    return false;
  }
  return true;
}

void UringReader::run(const NextFn& next, const DoneFn& done) {
  unsigned in_flight = 0;
  bool more = true;
  std::exception_ptr error;
  for (;;) {
    while (more && !error && !free_.empty()) {
      Slot& s = slots_[free_.back()];
      s = Slot{};
      if (!next(s.req)) {
        more = false;
        break;
      }
      if (s.req.length == 0 || s.req.length > buffer_bytes_ || s.req.file >= files_.size()) {
        error = std::make_exception_ptr(Error(fmt::format("internal error: bad read request ({} bytes)", s.req.length)));
        break;
      }
      prepare(free_.back());
      free_.pop_back();
      ++in_flight;
    }
    if (in_flight == 0) break;
    const int rc = io_uring_submit_and_wait(ring_.get(), 1);
    if (rc < 0 && rc != -EINTR) {
      // The ring itself failed: nothing more can complete; the kernel cancels what is queued on exit.
      throw Error(errno_message("io_uring submit failed", -rc));
    }
    io_uring_cqe* cqe;
    unsigned head, seen = 0;
    ready_.clear();
    io_uring_for_each_cqe(ring_.get(), head, cqe) {
      ready_.push_back({unsigned(io_uring_cqe_get_data64(cqe)), cqe->res});
      ++seen;
    }
    io_uring_cq_advance(ring_.get(), seen);
    for (auto [slot, res] : ready_) {
      bool finished = true;
      if (!error) {
        try {
          finished = complete(slot, res);
        } catch (...) {
          error = std::current_exception();
        }
      }
      if (!finished) continue;  // resubmitted
      --in_flight;
      free_.push_back(slot);
      if (error) continue;
      const Slot& s = slots_[slot];
      bytes_read_ += s.req.length;
      ++requests_;
      try {
        done(s.req, static_cast<const char*>(buffers_.base()) + size_t(slot) * buffer_bytes_);
      } catch (...) {
        error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace strata
