// Builds a directory under a temporary sibling name and renames it into place only when complete, so a
// crash, a full disk or an error never leaves something half-written that looks valid; and the flock-based
// locks that keep concurrent writers and readers of one directory from undoing each other's work.
#pragma once
#include <sys/types.h>

#include <string>

namespace strata {

// A flock(2) on a directory, released when the object dies (or its process does: a crash leaves no lock).
// Runs hold a graph directory shared; `generate --force` holds it exclusive while it replaces it.
class DirLock {
 public:
  enum Mode { kShared, kExclusive };
  DirLock() = default;
  DirLock(DirLock&& o) noexcept;
  DirLock& operator=(DirLock&& o) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

  // Locks the directory now at `path` without waiting; false if another process holds a conflicting lock.
  // The lock is taken on the directory the path names after locking (a directory swapped in meanwhile is
  // locked instead), so a holder knows `path` is the directory it locked.
  // open_error, where given, gets errno when the directory cannot be opened at all (not a directory, no
  // permission), which no wait cures; 0 when the lock is held by another process.
  static bool try_lock(const std::string& path, Mode mode, DirLock& out, int* open_error = nullptr);
  // Locks a file (for example the graph header, as the CSR build lock), waiting for other holders.
  static DirLock wait_file(const std::string& path);
  // Locks a lock file exclusively without waiting, creating it if missing; false if another process holds it.
  // Throws an Error naming the path where it cannot be opened or created (a read-only file system).
  static bool try_file(const std::string& path, DirLock& out);
  bool held() const { return fd_ >= 0; }
  dev_t dev() const { return dev_; }
  ino_t ino() const { return ino_; }

 private:
  int fd_ = -1;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

class AtomicDir {
 public:
  // Refuses an existing target unless replace; with replace, only a Strata directory (marker file
  // present) or an empty one is replaced, it is locked exclusively until commit (refused while a run or a
  // build holds it), and commit replaces exactly the directory checked here.
  AtomicDir(const std::string& target, bool replace, const std::string& marker_file);
  AtomicDir(const AtomicDir&) = delete;
  AtomicDir& operator=(const AtomicDir&) = delete;
  ~AtomicDir();  // removes the temporary directory unless committed

  const std::string& temp_path() const { return temp_; }
  std::string file(const std::string& name) const { return temp_ + "/" + name; }
  // Syncs and moves the temporary directory into place: a target that appeared meanwhile is never
  // replaced; a replaced target is swapped atomically (the path never goes missing), then removed.
  void commit();

 private:
  std::string swap_in();  // replaces the checked target by temp_; returns where the old one now is

  std::string target_, temp_, parent_;
  bool replace_;
  bool committed_ = false;
  DirLock target_lock_;  // replace: the checked target, held exclusive until commit
  DirLock temp_lock_;    // the temporary directory, held exclusive: tells cleaners this writer is alive
};

void remove_tree(const std::string& path);

// Ctrl-C (SIGINT), SIGTERM or SIGHUP while an AtomicDir is being written (generate, a CSR build): its
// temporary directory is removed before the process ends as the signal ends it, so nothing is left until the
// next write of that target. Call once, first thing in main, before any thread starts (it blocks the signals
// in every thread but a watcher's).
void remove_unfinished_on_interrupt();

// Removes the temporary directories that AtomicDirs for target left behind when their process died, and
// puts back a target that a crash left moved aside; returns how many were cleared. A writer is alive while
// it holds the lock on its temporary directory (any user's: an unreadable one is left alone).
int remove_unfinished_builds(const std::string& target);

}  // namespace strata
