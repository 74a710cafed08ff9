#include "storage/direct_file.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "core/error.hpp"

namespace strata {

namespace {

// Whether an aligned O_DIRECT read works on this file (older tmpfs refuses the open, some filesystems the read).
bool direct_read_works(const File& f) {
  if (f.size() < kDirectAlign) return true;
  void* buf = std::aligned_alloc(kDirectAlign, kDirectAlign);
  std::unique_ptr<void, decltype(&std::free)> owner(buf, &std::free);
  ssize_t n;
  do n = ::pread(f.fd(), buf, kDirectAlign, 0); while (n < 0 && errno == EINTR);
  return n >= 0 || errno != EINVAL;
}

// One warning line per process and kind.
void warn_once(std::atomic<bool>& warned, const std::string& message) {
  if (!warned.exchange(true)) std::fprintf(stderr, "strata: warning: %s\n", message.c_str());
}

void warn_buffered(const std::string& path) {
  static std::atomic<bool> warned{false};
  warn_once(warned, path + ": the filesystem does not support O_DIRECT; reading through the page cache (DRAM use "
                           "is then not bounded by --dram-budget)");
}

void warn_tmpfs(const std::string& path) {
  struct statfs fs;
  if (::statfs(path.c_str(), &fs) != 0 || fs.f_type != TMPFS_MAGIC) return;
  static std::atomic<bool> warned{false};
  warn_once(warned, path + " is on tmpfs: the file itself lives in DRAM, so reads measure no storage and DRAM use "
                           "exceeds --dram-budget by the file's size");
}

}  // namespace

DirectFile open_direct(const std::string& path, bool allow_direct) {
  warn_tmpfs(path);
  if (!allow_direct) return {File(path, O_RDONLY), false};
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    File f(path, O_RDONLY | O_DIRECT);
    if (direct_read_works(f)) return {std::move(f), true};
  } else if (errno != EINVAL) {
    throw Error(errno_message("cannot open " + path, errno));
  }
  warn_buffered(path);
  return {File(path, O_RDONLY), false};
}

}  // namespace strata
