// Builds a directory under a temporary sibling name and renames it into place only when complete, so a
// crash, a full disk or an error never leaves something half-written that looks valid.
#pragma once
#include <string>

namespace strata {

class AtomicDir {
 public:
  // Refuses an existing target unless replace; with replace, only a Strata directory (marker file
  // present) or an empty one is replaced.
  AtomicDir(const std::string& target, bool replace, const std::string& marker_file);
  AtomicDir(const AtomicDir&) = delete;
  AtomicDir& operator=(const AtomicDir&) = delete;
  ~AtomicDir();  // removes the temporary directory unless committed

  const std::string& temp_path() const { return temp_; }
  std::string file(const std::string& name) const { return temp_ + "/" + name; }
  void commit();  // caller has synced the files; syncs, renames, syncs the parent

 private:
  std::string target_, temp_, parent_;
  bool replace_;
  bool committed_ = false;
};

void remove_tree(const std::string& path);

// Removes the temporary directories that AtomicDirs for target left behind when their process died (a live
// process's build is left alone); returns how many. A crash is thereby detected and its debris cleared.
int remove_unfinished_builds(const std::string& target);

}  // namespace strata
