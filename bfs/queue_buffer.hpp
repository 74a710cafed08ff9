// Thread-local buffering of top-down discoveries: a thread collects the vertices it claims per destination
// part and publishes each batch into that part's next queue with one fetch_add, instead of one per vertex.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "storage/numa_array.hpp"

namespace strata {

// The per-part queues of one frontier: part q's vertices are queue[q][0, size[q]).
template <class Id>
struct PartQueues {
  std::vector<NumaArray<Id>> queue;
  std::vector<std::atomic<uint64_t>> size;
};

template <class Id>
class QueueBuffer {
 public:
  static constexpr size_t kBatch = 512;  // vertices buffered per part before publishing

  QueueBuffer() = default;
  explicit QueueBuffer(int parts) : local_(parts) {}

  void push(Id v, int q, PartQueues<Id>& next) {
    std::vector<Id>& l = local_[q];
    l.push_back(v);
    if (l.size() == kBatch) publish(q, next);
  }
  void flush(PartQueues<Id>& next) {
    for (int q = 0; q < int(local_.size()); ++q) publish(q, next);
  }

 private:
  void publish(int q, PartQueues<Id>& next) {
    std::vector<Id>& l = local_[q];
    if (l.empty()) return;
    const uint64_t at = next.size[q].fetch_add(l.size(), std::memory_order_relaxed);
    std::memcpy(next.queue[q].data() + at, l.data(), l.size() * sizeof(Id));
    l.clear();
  }

  std::vector<std::vector<Id>> local_;
};

}  // namespace strata
