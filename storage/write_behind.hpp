// Writes to a scratch file behind the computation that makes them: a buffer in parts, each filled, then written
// (a list of pieces) by a task of its own while the next part is filled; a part is filled again once its writes
// are done. Validation's spill and kernel 1's tuple buckets: on a 2-core machine a write the computing thread
// waits for is a core idle (the buckets' distribution at SCALE 26 took 3-5 s less with no writes at all).
#pragma once
#include <cstdint>
#include <future>
#include <vector>

#include "storage/spill_file.hpp"

namespace strata {

// Waited for by finish() (a write error is thrown there) or the destructor. The buffer must outlive it.
class WriteBehind {
 public:
  WriteBehind(SpillFile& file, AlignedBuffer& buffer, size_t parts)
      : file_(file), buffer_(buffer), pieces_(parts), writing_(parts) {}
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
      for (const Piece& p : pieces_[h]) file_.write(p.at, buffer_.data() + uint64_t(h) * part_bytes() + p.from, p.bytes);
    });
  }
  void finish() {
    for (std::future<void>& w : writing_)
      if (w.valid()) w.get();
  }

 private:
  struct Piece {
    uint64_t at, from, bytes;
  };
  SpillFile& file_;
  AlignedBuffer& buffer_;
  std::vector<std::vector<Piece>> pieces_;
  std::vector<std::future<void>> writing_;
};

}  // namespace strata
