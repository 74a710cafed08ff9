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

namespace {
std::string temp_beside(const std::string& path) { return path + ".tmp-" + std::to_string(::getpid()); }
}  // namespace

void check_output_file(const std::string& path, const std::string& flag) {
  if (path.empty()) throw Error(flag + " needs a file name");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw Error(fmt::format("{} {}: is a directory", flag, path));
  const std::string probe = temp_beside(path);  // the name write_file_atomically will use
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(errno_message(fmt::format("{} {}: cannot write there", flag, path), errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

void write_file_atomically(const std::string& path, const std::string& text) {
  // System calls, not File: every failure is reported with the user's path, not the temporary one's.
  const std::string tmp = temp_beside(path);
  auto fail = [&](int err) {
    ::unlink(tmp.c_str());
    throw Error(errno_message("cannot write " + path, err));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(errno);
  for (size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      fail(err);
    }
    at += size_t(n);
  }
  const int sync_err = ::fsync(fd) == 0 ? 0 : errno;
  const int close_err = ::close(fd) == 0 ? 0 : errno;
  if (sync_err || close_err) fail(sync_err ? sync_err : close_err);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail(errno);
}



}  // namespace strata
