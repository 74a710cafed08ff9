// Delta-stepping's buckets as the threads file them: bins[thread][bucket] lists of vertices, filled without a
// lock and merged only when a bucket is gathered; shared by the search in one process and across ranks.
#pragma once
#include <algorithm>
#include <cstdint>
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

// Keeps the frontier's vertices whose distance still lies in bucket b (bucket_now(v) == b), each once (stale
// entries moved to a lower bucket were settled there), and adds them to `settled`.
template <class Id, class BucketNow>
void keep_current(std::vector<Id>& frontier, uint64_t b, std::vector<Id>& settled, BucketNow&& bucket_now) {
  std::erase_if(frontier, [&](Id v) { return bucket_now(v) != b; });
  std::sort(frontier.begin(), frontier.end());
  frontier.erase(std::unique(frontier.begin(), frontier.end()), frontier.end());
  settled.insert(settled.end(), frontier.begin(), frontier.end());
}

}  // namespace strata::buckets
