// Helpers shared by the tests: a scratch directory removed at the end of the test; BFS depths of a
// parent array.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strata::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "strata-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Depth of every vertex in the tree given by parent (-1: unreached); empty if the parents hold a cycle.
template <class Id>
std::vector<int> depths(const std::vector<Id>& parent, uint64_t root) {
  std::vector<int> d(parent.size(), -1);
  d[root] = 0;
  for (uint64_t v = 0; v < parent.size(); ++v) {
    if (parent[v] == Id(-1)) continue;
    int steps = 0;
    for (uint64_t u = v; u != root; u = parent[u])
      if (++steps > int(parent.size())) return {};
    d[v] = steps;
  }
  return d;
}

}  // namespace strata::test
