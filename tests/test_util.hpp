// Helpers shared by the tests: a scratch directory removed at the end of the test; BFS depths of a
// parent array; a small hand-drawn graph as an edge source; many searches' results validated in one pass.
#pragma once
#include <unistd.h>

#include "core/ids.hpp"
#include "generators/edge_stream.hpp"
#include "validate/validator.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace strata::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "strata-test-XXXXXX").string();
    const char* made = ::mkdtemp(tmpl.data());
    if (!made) throw std::runtime_error("mkdtemp " + tmpl + ": " + std::strerror(errno));
    path_ = made;
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
    if (parent[v] == kNoVertex<Id>) continue;
    int steps = 0;
    for (uint64_t u = v; u != root; u = parent[u])
      if (++steps > int(parent.size())) return {};
    d[v] = steps;
  }
  return d;
}

// A hand-drawn graph as an edge source: the listed edges on 2^scale vertices, padded with self-loops (which
// kernel 1, nedge and validation ignore) up to edgefactor * 2^scale tuples, in one chunk.
struct ListedEdges {
  KroneckerSpec spec_;
  std::vector<Edge> edges;
  ListedEdges(int scale, std::vector<Edge> listed) : spec_{scale, 1, 1, 1}, edges(std::move(listed)) {
    while (spec_.edge_count() < edges.size()) ++spec_.edgefactor;
    edges.resize(spec_.edge_count(), Edge{0, 0});
  }
  const KroneckerSpec& spec() const { return spec_; }
  uint64_t chunk_edges() const { return edges.size(); }
  uint64_t chunk_count() const { return 1; }
  std::span<const Edge> read_chunk(uint64_t, ChunkBuffer&) const { return edges; }
  template <class Fn>
  void for_each_edge_chunk(Fn&& fn) const {
    for_each_chunk(*this, std::forward<Fn>(fn));
  }
};

// Searches' results kept for one validation at the end: validate_searches checks them all in one pass over the
// tuples (a pass a result took most of the every-mode tests' time, sanitized). what[k] names result k.
struct ResultBatch {
  std::vector<std::vector<uint32_t>> parents;
  std::vector<uint64_t> roots, nedges;
  std::vector<std::string> what;
  void add(std::vector<uint32_t> parent, uint64_t root, uint64_t nedge, std::string name) {
    parents.push_back(std::move(parent));
    roots.push_back(root);
    nedges.push_back(nedge);
    what.push_back(std::move(name));
  }
  template <class Source>
  std::vector<Verdict> validate(const Source& source) const {
    std::vector<SearchToCheck<uint32_t>> checks;
    for (size_t k = 0; k < parents.size(); ++k) checks.push_back({roots[k], parents[k].data(), nedges[k]});
    return validate_searches<uint32_t>(source, checks);
  }
};

}  // namespace strata::test
