// Delta-stepping's buckets as the threads file them: bins[thread][bucket] lists of vertices, filled without a
// lock and merged only when a bucket is gathered; shared by the search in one process and across ranks.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

namespace strata::buckets {

template <class Id>
using Bins = std::vector<std::vector<std::vector<Id>>>;  // [thread][bucket]

// Files v in bucket k of one thread's bins.
template <class Id>
void file(std::vector<std::vector<Id>>& mine, uint64_t k, Id v) {
  if (k >= mine.size()) mine.resize(k + 1);
  mine[k].push_back(v);
}

// Bucket b's entries from every thread's bins, the bins' memory given back.
template <class Id>
std::vector<Id> gather(Bins<Id>& bins, uint64_t b) {
  std::vector<Id> all;
  for (auto& per_thread : bins)
    if (b < per_thread.size()) {
      all.insert(all.end(), per_thread[b].begin(), per_thread[b].end());
      std::vector<Id>().swap(per_thread[b]);
    }
  return all;
}

// The first bucket from `from` on that some thread's bins hold entries of (UINT64_MAX: none).
template <class Id>
uint64_t first_filled(const Bins<Id>& bins, uint64_t from) {
  uint64_t next = UINT64_MAX;
  for (const auto& per_thread : bins)
    for (uint64_t k = from; k < std::min<uint64_t>(per_thread.size(), next); ++k)
      if (!per_thread[k].empty()) {
        next = k;
        break;
      }
  return next;
}

// Orders v by id, each id once. Many ids (from n/1024: setting their bits and reading the words they span
// costs less than a sort from a few thousand) go through `marks`, a bit a vertex, all clear between calls.
template <class Id>
void order_unique(std::vector<Id>& v, std::vector<uint64_t>& marks) {
  if (v.size() * 16 < marks.size()) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return;
  }
  uint64_t lo = UINT64_MAX, hi = 0;
  for (Id x : v) {
    marks[x >> 6] |= uint64_t(1) << (x & 63);
    lo = std::min<uint64_t>(lo, x >> 6), hi = std::max<uint64_t>(hi, x >> 6);
  }
  v.clear();
  for (uint64_t w = lo; w <= hi; ++w)  // none when v was empty (lo > hi)
    for (uint64_t bits = std::exchange(marks[w], 0); bits != 0; bits &= bits - 1)
      v.push_back(Id(w * 64 + uint64_t(std::countr_zero(bits))));
}

// Keeps the frontier's vertices whose distance still lies in bucket b (bucket_now(v) == b), each once (stale
// entries moved to a lower bucket were settled there), in id order, and adds them to `settled`.
template <class Id, class BucketNow>
void keep_current(std::vector<Id>& frontier, uint64_t b, std::vector<Id>& settled, BucketNow&& bucket_now,
                  std::vector<uint64_t>& marks) {
  std::erase_if(frontier, [&](Id v) { return bucket_now(v) != b; });
  order_unique(frontier, marks);
  settled.insert(settled.end(), frontier.begin(), frontier.end());
}

}  // namespace strata::buckets
