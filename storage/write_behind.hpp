// Writes to a file behind the computation that makes them: a buffer in parts, each filled, then written (a list
// of pieces) by a task of its own while the next part is filled; a part is filled again once its writes are done.
// Validation's spill and kernel 1's tuple buckets (scratch files), and the on-disk CSR's adjacency: on a 2-core
// machine a write the computing thread waits for is a core idle (the buckets' distribution at SCALE 26 took 3-5 s
// less with no writes at all). The writes are direct where the file is: aligned buffer, offsets and lengths.
#pragma once
#include <cstdint>
#include <functional>
#include <future>
#include <utility>
#include <vector>

#include "storage/file.hpp"
#include "storage/spill_file.hpp"

namespace strata {

// Waited for by finish() (a write error is thrown there) or the destructor. The buffer must outlive it.
class WriteBehind {
 public:
  WriteBehind(SpillFile& file, AlignedBuffer& buffer, size_t parts)
      : WriteBehind([&file](uint64_t at, const char* data, uint64_t bytes) { file.write(at, data, bytes); }, buffer, parts) {}
  WriteBehind(File& file, AlignedBuffer& buffer, size_t parts)
      : WriteBehind([&file](uint64_t at, const char* data, uint64_t bytes) { file.pwrite_all(data, bytes, at); }, buffer, parts) {}
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;
  ~WriteBehind() {
    for (std::future<void>& w : writing_)
      if (w.valid()) w.wait();
  }
  size_t parts() const { return writing_.size(); }
  uint64_t part_bytes() const { return buffer_.bytes() / parts() / kDirectAlign * kDirectAlign; }
  char* fill(size_t h) {  // part h, once its last writes are done
    if (writing_[h].valid()) writing_[h].get();
    pieces_[h].clear();
    return buffer_.data() + uint64_t(h) * part_bytes();
  }
  // Part h's bytes [from, from + bytes) to the file at `at` once start(h) is called (multiples of kDirectAlign).
  void write(size_t h, uint64_t at, uint64_t from, uint64_t bytes) { pieces_[h].push_back({at, from, bytes}); }
  void start(size_t h) {
    writing_[h] = std::async(std::launch::async, [this, h] {
      for (const Piece& p : pieces_[h]) write_(p.at, buffer_.data() + uint64_t(h) * part_bytes() + p.from, p.bytes);
    });
  }
  void finish() {
    for (std::future<void>& w : writing_)
      if (w.valid()) w.get();
  }

 private:
  using Write = std::function<void(uint64_t at, const char* data, uint64_t bytes)>;
  WriteBehind(Write write, AlignedBuffer& buffer, size_t parts)
      : write_(std::move(write)), buffer_(buffer), pieces_(parts), writing_(parts) {}
  struct Piece {
    uint64_t at, from, bytes;
  };
  Write write_;
  AlignedBuffer& buffer_;
  std::vector<std::vector<Piece>> pieces_;
  std::vector<std::future<void>> writing_;
};

}  // namespace strata
