// An atomic that moves with its owner (std::atomic neither copies nor moves): a neighbour source's "first bad
// entry" or "a tail was marked" flag, so the source keeps its implicit move instead of a hand-written one. Moving
// is for construction, before any thread shares the value.
#pragma once
#include <atomic>

namespace strata {

template <class T>
struct MovableAtomic : std::atomic<T> {
  using std::atomic<T>::atomic;
  using std::atomic<T>::operator=;
  MovableAtomic(MovableAtomic&& o) noexcept : std::atomic<T>(o.load(std::memory_order_relaxed)) {}
};

}  // namespace strata
