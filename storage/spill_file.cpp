#include "storage/spill_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "core/error.hpp"
#include "core/units.hpp"

namespace strata {

namespace {
// "validation's", "kernel 1's tuple buckets'": the possessive of a use's name.
std::string owner(const std::string& what) { return what + (!what.empty() && what.back() == 's' ? "'" : "'s"); }
}  // namespace

SpillFile::SpillFile(const std::string& dir, uint64_t bytes, const std::string& what)
    : bytes_(align_up(bytes)), what_(what) {
  const std::string path = fmt::format("{}/.strata-spill-{}-XXXXXX", dir, ::getpid());
  std::string name = path;
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw Error(errno_message(fmt::format("cannot create {} scratch file in {}", owner(what), dir), errno));
  ::close(fd);
  // Reopened with O_DIRECT where the filesystem has it (tmpfs may not), and unlinked whatever happens.
  struct Unlink {
    const std::string& name;
    ~Unlink() { ::unlink(name.c_str()); }
  } unlink_at_end{name};
  try {
    file_ = File(name, O_RDWR | O_DIRECT);
    direct_ = true;
  } catch (const Error&) {
    file_ = File(name, O_RDWR);
  }
  if (const int err = ::posix_fallocate(file_.fd(), 0, off_t(bytes_)); err != 0)
    throw Error(errno_message(fmt::format("cannot reserve {} of scratch space for {} in {}", human_bytes(double(bytes_)),
                                          what, dir),
                              err));
}

void SpillFile::write(uint64_t offset, const void* data, uint64_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(file_.fd(), p, bytes, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(errno_message(fmt::format("cannot write {} scratch file", owner(what_)), n < 0 ? errno : ENOSPC));
    p += n, offset += uint64_t(n), bytes -= uint64_t(n);
  }
}

void SpillFile::read(uint64_t offset, void* data, uint64_t bytes) const {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pread(file_.fd(), p, bytes, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(errno_message(fmt::format("cannot read {} scratch file", owner(what_)), errno));
    if (n == 0) throw Error(fmt::format("cannot read {} scratch file: it ends early", owner(what_)));
    p += n, offset += uint64_t(n), bytes -= uint64_t(n);
  }
}

void SpillFile::release(uint64_t offset, uint64_t bytes) {
  // Best effort: a filesystem without holes keeps the space until the file is closed, which is still correct.
  if (bytes > 0) (void)::fallocate(file_.fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset), off_t(bytes));
}

const char* AlignedBuffer::read_range(const SpillFile& f, uint64_t offset, uint64_t len) {
  const uint64_t begin = align_down(offset), end = align_up(offset + len);
  if (end - begin > bytes_) throw Error("internal error: a scratch read larger than its buffer");
  if (end > begin) f.read(begin, data(), end - begin);
  return data() + (offset - begin);
}

}  // namespace strata
