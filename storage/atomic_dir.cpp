#include "storage/atomic_dir.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "storage/error.hpp"
#include "storage/file.hpp"

namespace strata {

namespace fs = std::filesystem;

namespace {
constexpr const char* kTempInfix = ".tmp-";  // a build's temporary directory: <target>.tmp-<pid>
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

AtomicDir::AtomicDir(const std::string& target, bool replace, const std::string& marker_file)
    : target_(fs::path(target).lexically_normal().string()), replace_(replace) {
  if (!target_.empty() && target_.back() == '/') target_.pop_back();
  parent_ = fs::path(target_).parent_path().string();
  if (parent_.empty()) parent_ = ".";
  if (!fs::is_directory(parent_)) throw Error(fmt::format("cannot create {}: {} is not a directory", target_, parent_));
  if (path_exists(target_)) {
    if (!replace) throw Error(target_ + " already exists (use --force to replace it)");
    std::error_code ec;
    const bool ours = fs::exists(target_ + "/" + marker_file) || fs::is_empty(target_, ec);
    if (!fs::is_directory(target_) || !ours)
      throw Error("refusing to replace " + target_ + ": it is not a Strata directory");
  }
  temp_ = target_ + kTempInfix + std::to_string(::getpid());
  remove_tree(temp_);  // a leftover from a crashed run of ours with the same pid
  if (::mkdir(temp_.c_str(), 0755) != 0) throw Error(errno_message("cannot create " + temp_, errno));
}

AtomicDir::~AtomicDir() {
  if (!committed_) remove_tree(temp_);
}

void AtomicDir::commit() {
  sync_directory(temp_);
  std::string old;
  if (path_exists(target_)) {
    old = target_ + ".old-" + std::to_string(::getpid());
    if (::rename(target_.c_str(), old.c_str()) != 0) throw Error(errno_message("cannot move aside " + target_, errno));
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) throw Error(errno_message("cannot rename into " + target_, errno));
  committed_ = true;
  sync_directory(parent_);
  if (!old.empty()) remove_tree(old);
}

int remove_unfinished_builds(const std::string& target) {
  const fs::path t = fs::path(target).lexically_normal();
  const std::string prefix = t.filename().string() + kTempInfix;
  int removed = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(t.parent_path().empty() ? fs::path(".") : t.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(pid_t(pid), 0) == 0) continue;  // a build in progress
    remove_tree(e.path().string());
    ++removed;
  }
  return removed;
}

}  // namespace strata
