#include "storage/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "core/error.hpp"

namespace strata {


File::File(const std::string& path, int flags, int mode) : path_(path) {
  // Non-blocking while opening: a FIFO or device in place of a file is refused instead of waited on.
  fd_ = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK, mode);
  if (fd_ < 0) throw Error(errno_message("cannot open " + path, errno));
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
    ::close(std::exchange(fd_, -1));
    throw Error("cannot open " + path + ": not a regular file");
  }
  if (!(flags & O_NONBLOCK)) ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

File::File(File&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

uint64_t File::size() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0) throw Error(errno_message("cannot stat " + path_, errno));
  return uint64_t(st.st_size);
}

void File::write_all(const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = ::write(fd_, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(errno_message("cannot write " + path_, errno));
    if (n == 0) throw Error("cannot write " + path_ + ": no progress (device full?)");
    p += n;
    bytes -= size_t(n);
  }
}

void File::pread_all(void* data, size_t bytes, uint64_t offset) const {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t n = ::pread(fd_, p, bytes, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(errno_message("cannot read " + path_ + " at offset " + std::to_string(offset), errno));
    if (n == 0) throw Error(path_ + " is truncated: nothing to read at offset " + std::to_string(offset));
    p += n;
    bytes -= size_t(n);
    offset += uint64_t(n);
  }
}

void File::sync() {
  if (::fsync(fd_) != 0) throw Error(errno_message("cannot sync " + path_, errno));
}

void File::close() {
  if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0) throw Error(errno_message("cannot close " + path_, errno));
}

void sync_directory(const std::string& path) {
  File dir(path, O_RDONLY | O_DIRECTORY);
  dir.sync();
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

uint64_t free_bytes_at(const std::string& dir) {
  struct statvfs st;
  if (::statvfs(dir.c_str(), &st) != 0) throw Error(errno_message("cannot stat filesystem of " + dir, errno));
  return uint64_t(st.f_bavail) * st.f_frsize;
}

std::string follow_links(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::string target(size_t(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0) throw Error(errno_message("cannot read the link " + path, errno));
    target.resize(size_t(n));
    if (target.empty() || target[0] != '/') {
      const size_t slash = path.rfind('/');
      target = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + target;
    }
    path = target;
  }
  throw Error("too many levels of symbolic links: " + path);
}

namespace {
std::string temp_beside(const std::string& path) { return path + ".tmp-" + std::to_string(::getpid()); }

// Where a result named `path` goes: one of this process's descriptors, a file written in place (a device, a
// FIFO), or a regular file (new or old) written by rename at `file` (the final target of any symbolic links).
struct OutputTarget {
  int own_fd = -1;
  bool in_place = false;
  std::string file;
};

// The descriptor behind /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N; -1 for any other path.
int own_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string p(prefix);
    if (path.rfind(p, 0) == 0 && path.size() > p.size() && path.size() - p.size() < 9 &&
        path.find_first_not_of("0123456789", p.size()) == std::string::npos)
      return std::stoi(path.substr(p.size()));
  }
  return -1;
}

OutputTarget output_target(const std::string& path) {
  OutputTarget t;
  t.own_fd = own_descriptor(path);
  if (t.own_fd >= 0) return t;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    t.in_place = true;
    t.file = path;
    return t;
  }
  t.file = follow_links(path);
  return t;
}

int write_all(int fd, const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    at += size_t(n);
  }
  return 0;
}
}  // namespace

void check_output_file(const std::string& path, const std::string& flag) {
  if (path.empty()) throw Error(flag + " needs a file name");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw Error(fmt::format("{} {}: is a directory", flag, path));
  const OutputTarget t = output_target(path);
  if (t.own_fd >= 0) {
    if (::fcntl(t.own_fd, F_GETFL) < 0) throw Error(errno_message(fmt::format("{} {}: cannot write there", flag, path), errno));
    return;
  }
  if (t.in_place) {  // a device or FIFO: opened when written (a FIFO's reader may come later)
    if (::access(t.file.c_str(), W_OK) != 0)
      throw Error(errno_message(fmt::format("{} {}: cannot write there", flag, path), errno));
    return;
  }
  const std::string probe = temp_beside(t.file);  // the name write_output_file will use
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(errno_message(fmt::format("{} {}: cannot write there", flag, path), errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

void write_output_file(const std::string& path, const std::string& text) {
  // System calls, not File: every failure is reported with the user's path, not the temporary one's.
  const OutputTarget t = output_target(path);
  if (t.own_fd >= 0 || t.in_place) {
    std::fflush(nullptr);  // what this process printed before comes first
    const int fd = t.own_fd >= 0 ? t.own_fd : ::open(t.file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw Error(errno_message("cannot write " + path, errno));
    const int err = write_all(fd, text);
    const int close_err = t.own_fd >= 0 || ::close(fd) == 0 ? 0 : errno;
    if (err || close_err) throw Error(errno_message("cannot write " + path, err ? err : close_err));
    return;
  }
  const std::string tmp = temp_beside(t.file);
  auto fail = [&](int err) {
    ::unlink(tmp.c_str());
    throw Error(errno_message("cannot write " + path, err));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(errno);
  if (const int err = write_all(fd, text)) {
    ::close(fd);
    fail(err);
  }
  const int sync_err = ::fsync(fd) == 0 ? 0 : errno;
  const int close_err = ::close(fd) == 0 ? 0 : errno;
  if (sync_err || close_err) fail(sync_err ? sync_err : close_err);
  if (::rename(tmp.c_str(), t.file.c_str()) != 0) fail(errno);
}

}  // namespace strata
