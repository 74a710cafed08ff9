// A file descriptor owned by one object, with whole-buffer reads and writes whose errors name the file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "core/units.hpp"  // every user of files reports sizes

namespace strata {

// Long reads report how far they are (apps draw it as a progress line).
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

class File {
 public:
  File() = default;
  File(const std::string& path, int flags, int mode = 0644);  // throws Error naming path and cause
  File(File&& other) noexcept;
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  uint64_t size() const;
  void write_all(const void* data, size_t bytes);
  void pread_all(void* data, size_t bytes, uint64_t offset) const;  // a short file is an error
  void sync();
  void close();

 private:
  int fd_ = -1;
  std::string path_;
};

// Syncs a directory so that renames and new entries inside it are durable.
void sync_directory(const std::string& path);
bool path_exists(const std::string& path);
// Follows a chain of symbolic links to the path it ends at, which need not exist (a link to a new file); a path
// that is no link is returned as it is.
std::string follow_links(std::string path);
uint64_t free_bytes_at(const std::string& dir);

// Checks, before any work, that `path` (given with `flag`, e.g. "--json") can be written: not a directory; a
// regular file (or a link to one) in an existing directory where a file can be created, or a device or FIFO
// that can be opened for writing. Throws an Error naming the user's path and cause.
void check_output_file(const std::string& path, const std::string& flag);
// Writes a result the user named (--json, --csv, --plot). A regular file, new or old, is written through a
// temporary file beside it and a rename, so a reader never sees half a file; through a symbolic link, that file is
// the link's target (the link stays). /dev/stdout, /dev/stderr and /dev/fd/N are written on this process's own
// descriptor (in order with what it prints); another device or a FIFO is written in place, never replaced. A
// failure (a full disk) removes the temporary file and names the user's path.
void write_output_file(const std::string& path, const std::string& text);

}  // namespace strata
