#include "storage/atomic_dir.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "storage/file.hpp"

namespace strata {

namespace fs = std::filesystem;

namespace {
constexpr const char* kTempInfix = ".tmp-";  // a writer's temporary directory: <target>.tmp-<pid>
constexpr const char* kOldInfix = ".old-";   // a replaced target, where renameat2 cannot swap: <target>.old-<pid>
constexpr time_t kFreshSeconds = 10;         // a temporary directory this young may not be locked yet

bool same_dir(const DirLock& lock, const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && st.st_dev == lock.dev() && st.st_ino == lock.ino();
}

// rename(2) that never replaces an existing target (falls back to plain rename, which refuses a non-empty
// directory, where the filesystem lacks RENAME_NOREPLACE).
int rename_noreplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  if (path_exists(to)) return errno = EEXIST, -1;
  return ::rename(from.c_str(), to.c_str());
}

// A process that has exited but not been reaped yet (it holds no locks any more).
bool is_zombie(long pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return false;
  char state = 0;
  // "pid (comm) state ...": comm may hold spaces and parentheses, so the state follows the last ')'.
  char line[512];
  const size_t n = std::fread(line, 1, sizeof line - 1, f);
  std::fclose(f);
  line[n] = 0;
  if (const char* close = std::strrchr(line, ')'); close && close[1] == ' ') state = close[2];
  return state == 'Z';
}

// Whether the writer that made temporary directory `path` (named after its pid) is gone: its lock is free,
// and its process is dead or the directory is old enough to have been locked (a reused pid).
bool writer_is_dead(const std::string& path, long pid) {
  DirLock lock;
  if (!DirLock::try_lock(path, DirLock::kExclusive, lock)) return false;  // held: alive; or unreadable
  const bool process_gone = pid <= 0 || (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) || is_zombie(pid);
  struct stat st;
  const bool old = ::stat(path.c_str(), &st) == 0 && std::time(nullptr) - st.st_mtime > kFreshSeconds;
  return process_gone || old;
}
}  // namespace

namespace {
// This process's AtomicDirs not yet committed or removed, for the interrupt watcher.
std::mutex unfinished_mutex;
std::set<std::string> unfinished_dirs;

// A temporary directory is made and entered in the set, or removed and taken out, under the lock the signal
// watcher takes for good: an interrupt never falls between the two (it did between mkdir and the entry: an empty
// <target>.tmp-<pid> was left, about once in 40 interrupts under load).
void make_unfinished(const std::string& temp) {
  const std::lock_guard<std::mutex> hold(unfinished_mutex);
  if (::mkdir(temp.c_str(), 0755) != 0) throw Error(errno_message("cannot create " + temp, errno));
  unfinished_dirs.insert(temp);
}
void drop_unfinished(const std::string& temp, bool remove) {
  const std::lock_guard<std::mutex> hold(unfinished_mutex);
  if (remove) remove_tree(temp);
  unfinished_dirs.erase(temp);
}
}  // namespace

void remove_unfinished_on_interrupt() {
  static sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction now = {};
    // An ignored signal stays ignored (nohup, a background job of a script): it must not end the process.
    if (::sigaction(sig, nullptr, &now) == 0 && now.sa_handler != SIG_IGN) sigaddset(&signals, sig);
  }
  if (sigisemptyset(&signals)) return;
  // Blocked here, before any other thread exists, so every later thread inherits the mask and the signals
  // reach only the watcher: it removes the temporary directories, then ends the process as the signal would.
  if (::pthread_sigmask(SIG_BLOCK, &signals, nullptr) != 0) return;
  std::thread([] {
    int sig = 0;
    while (::sigwait(&signals, &sig) != 0) {
    }
    unfinished_mutex.lock();  // held until the process ends: no directory is made after these passes
    for (int pass = 0; pass < 2; ++pass)  // again: a writer may have added a file meanwhile
      for (const std::string& temp : unfinished_dirs) remove_tree(temp);
    ::signal(sig, SIG_DFL);
    ::pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
    ::raise(sig);
    std::_Exit(128 + sig);
  }).detach();
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

DirLock::DirLock(DirLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)), dev_(o.dev_), ino_(o.ino_) {}

DirLock& DirLock::operator=(DirLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    dev_ = o.dev_;
    ino_ = o.ino_;
  }
  return *this;
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);
}

bool DirLock::try_lock(const std::string& path, Mode mode, DirLock& out, int* open_error) {
  if (open_error) *open_error = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    DirLock l;
    l.fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (l.fd_ < 0) {
      if (open_error) *open_error = errno;
      return false;
    }
    if (::flock(l.fd_, (mode == kShared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) return false;
    struct stat st;
    if (::fstat(l.fd_, &st) != 0) return false;
    l.dev_ = st.st_dev;
    l.ino_ = st.st_ino;
    if (same_dir(l, path)) {  // not swapped away between open and flock
      out = std::move(l);
      return true;
    }
  }
  return false;
}

DirLock DirLock::wait_file(const std::string& path) {
  DirLock l;
  l.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (l.fd_ < 0) throw Error(errno_message("cannot open " + path, errno));
  while (::flock(l.fd_, LOCK_EX) != 0)
    if (errno != EINTR) throw Error(errno_message("cannot lock " + path, errno));
  return l;
}

bool DirLock::try_file(const std::string& path, DirLock& out) {
  DirLock l;
  l.fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  if (l.fd_ < 0) throw Error(errno_message("cannot create the lock file " + path, errno));
  if (::flock(l.fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return false;
    throw Error(errno_message("cannot lock " + path, errno));
  }
  out = std::move(l);
  return true;
}

AtomicDir::AtomicDir(const std::string& target, bool replace, const std::string& marker_file)
    : target_(fs::path(target).lexically_normal().string()), replace_(replace) {
  if (!target_.empty() && target_.back() == '/') target_.pop_back();
  parent_ = fs::path(target_).parent_path().string();
  if (parent_.empty()) parent_ = ".";
  if (!fs::is_directory(parent_)) throw Error(fmt::format("cannot create {}: {} is not a directory", target_, parent_));
  if (path_exists(target_)) {
    std::error_code ec;
    const bool ours = fs::is_directory(target_) && (fs::exists(target_ + "/" + marker_file) || fs::is_empty(target_, ec));
    // Not ours: refused whatever --force says, so the refusal does not suggest it.
    if (!ours) throw Error(target_ + " already exists and is not a Strata directory: not replaced; choose another path");
    if (!replace) throw Error(target_ + " already exists (use --force to replace it)");
    if (!DirLock::try_lock(target_, DirLock::kExclusive, target_lock_))
      throw Error(target_ + " is in use by another strata process (a run, a build or a replacement); not replaced");
  }
  temp_ = target_ + kTempInfix + std::to_string(::getpid());
  remove_tree(temp_);  // a leftover from a crashed run of ours with the same pid
  make_unfinished(temp_);
  // Another process clearing the target's unfinished writes may hold this new directory's lock for a moment, to
  // see whether its writer is gone (writer_is_dead: a live, fresh one is left alone); wait that out. (Taking it
  // once failed the slower of two racing generates with "cannot lock": cli_concurrency, seen once under load.)
  bool locked = false;
  for (int attempt = 0; attempt < 2000 && !locked; ++attempt) {
    locked = DirLock::try_lock(temp_, DirLock::kExclusive, temp_lock_);
    if (!locked) ::usleep(1000);
  }
  if (!locked) {
    drop_unfinished(temp_, true);
    throw Error("cannot lock " + temp_);
  }
}

AtomicDir::~AtomicDir() { drop_unfinished(temp_, !committed_); }

void AtomicDir::commit() {
  sync_directory(temp_);
  std::string old;  // what to remove once the new directory is in place
  if (!target_lock_.held()) {  // nothing was checked for replacement: never replace what appeared meanwhile
    if (rename_noreplace(temp_, target_) != 0) {
      if (errno == EEXIST || errno == ENOTEMPTY)
        throw Error(target_ + " appeared while this was being written (another strata process?); it was left as it "
                              "is and nothing was written");
      throw Error(errno_message("cannot rename into " + target_, errno));
    }
  } else {
    if (!same_dir(target_lock_, target_))
      throw Error(target_ + " was replaced or removed by someone else while this was being written; not replaced");
    old = swap_in();
  }
  committed_ = true;
  sync_directory(parent_);
  if (!old.empty()) remove_tree(old);
}

std::string AtomicDir::swap_in() {
  // Atomically: the target path always names a complete directory, and the old one lands on temp_.
  if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) return temp_;
  if (errno != EINVAL && errno != ENOSYS) throw Error(errno_message("cannot swap into " + target_, errno));
  // No RENAME_EXCHANGE here: two renames; a crash between them is repaired by remove_unfinished_builds.
  const std::string old = target_ + kOldInfix + std::to_string(::getpid());
  if (::rename(target_.c_str(), old.c_str()) != 0) throw Error(errno_message("cannot move aside " + target_, errno));
  if (::rename(temp_.c_str(), target_.c_str()) != 0) throw Error(errno_message("cannot rename into " + target_, errno));
  return old;
}

int remove_unfinished_builds(const std::string& target) {
  std::string normal = fs::path(target).lexically_normal().string();
  if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  const fs::path t(normal);
  const std::string tmp_prefix = t.filename().string() + kTempInfix, old_prefix = t.filename().string() + kOldInfix;
  const fs::path parent = t.parent_path().empty() ? fs::path(".") : t.parent_path();
  int removed = 0;
  std::error_code ec;
  std::vector<fs::path> dead_old;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename().string();
    const bool tmp = name.rfind(tmp_prefix, 0) == 0, old = name.rfind(old_prefix, 0) == 0;
    if (!tmp && !old) continue;
    const long pid = std::strtol(name.c_str() + (tmp ? tmp_prefix : old_prefix).size(), nullptr, 10);
    if (!writer_is_dead(e.path().string(), pid)) continue;
    if (old) dead_old.push_back(e.path());
    else remove_tree(e.path().string()), ++removed;
  }
  // A replacement that died between moving the target aside and renaming the new one in: put the old back.
  for (const fs::path& p : dead_old) {
    if (!path_exists(t.string()) && ::rename(p.c_str(), t.c_str()) == 0) ++removed;
    else if (path_exists(p.string())) remove_tree(p.string()), ++removed;
  }
  return removed;
}

}  // namespace strata
