// One error type for every layer: a one-line message naming the cause, shown to the user as is; and the
// first error of a parallel region, carried out of it (an exception must not cross an OpenMP boundary).
#pragma once
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

namespace strata {

struct Error : std::runtime_error {
  // Whether the message says its own fix (what to remove to rebuild, which flag to change). A caller that refuses
  // stored data adds how to rebuild it only where it does not (with_rebuild_hint).
  enum Fix : bool { kFixUnsaid = false, kFixSaid = true };
  explicit Error(const std::string& what, Fix fix = kFixUnsaid) : std::runtime_error(what), fix_said(fix) {}
  bool fix_said;
};

// e as it is where it says its fix, else e with "; remove PATH and run again to rebuild it": every refusal of
// stored data (the on-disk CSR, a rank's rows) says how to get good data.
inline Error with_rebuild_hint(const Error& e, const std::string& path) {
  return e.fix_said ? e : Error(std::string(e.what()) + "; remove " + path + " and run again to rebuild it", Error::kFixSaid);
}

// "what: strerror(errno)", for failures of system calls.
std::string errno_message(const std::string& what, int err);

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

}  // namespace strata
