#include "storage/numa_array.hpp"

#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include <fmt/format.h>

#include "core/error.hpp"
#include "storage/file.hpp"

namespace strata {

namespace {
size_t page_size() {
  static const size_t p = size_t(::sysconf(_SC_PAGESIZE));
  return p;
}

// A mapping refused: for ENOMEM, the limit that can refuse one. Never a fault of stored data, so a reader of the
// on-disk CSR adds no rebuild hint (the message counts as saying its fix).
Error allocation_error(size_t bytes, int err) {
  std::string why = errno_message("cannot allocate " + human_bytes(double(bytes)), err);
  struct rlimit as;
  if (err == ENOMEM && ::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    why += fmt::format(" (this process's address space is limited to {}: ulimit -v)", human_bytes(double(as.rlim_cur)));
  else if (err == ENOMEM)
    why += " (the machine's memory, a cgroup limit or ulimit -d)";
  return Error(why, Error::kFixSaid);
}
}  // namespace

PageRegion::PageRegion(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw allocation_error(bytes, errno);
  ::madvise(p, bytes, MADV_HUGEPAGE);  // fewer TLB misses on big random-access arrays; a hint only
  base_ = p;
}

PageRegion::PageRegion(size_t bytes, size_t readable_bytes) : PageRegion(std::max(bytes, readable_bytes)) {
  const size_t ps = page_size(), writable = (bytes + ps - 1) / ps * ps;
  if (base_ && writable < bytes_ && ::mprotect(static_cast<char*>(base_) + writable, bytes_ - writable, PROT_READ) != 0)
    throw Error(errno_message("cannot protect a guard region", errno));
}

PageRegion& PageRegion::operator=(PageRegion&& o) noexcept {
  if (this != &o) {
    if (base_) ::munmap(base_, bytes_);
    base_ = std::exchange(o.base_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

PageRegion::~PageRegion() {
  if (base_) ::munmap(base_, bytes_);
}

void PageRegion::prefer_node(size_t begin, size_t end, int node) {
  if (!base_ || node < 0 || numa_available() < 0) return;  // node < 0: first touch decides
  const size_t ps = page_size();
  begin = begin / ps * ps;
  end = std::min(bytes_, (end + ps - 1) / ps * ps);
  if (begin >= end) return;
  unsigned long mask = 1UL << node;
  // MPOL_PREFERRED, not BIND: a full node spills over instead of failing the run.
  // MPOL_MF_MOVE migrates pages already touched (the CSR is placed after it is built).
  ::mbind(static_cast<char*>(base_) + begin, end - begin, MPOL_PREFERRED, &mask, sizeof(mask) * 8, MPOL_MF_MOVE);
}

void PageRegion::place_on(size_t begin, size_t end, const std::vector<int>& nodes, bool interleave) {
  if (!base_ || numa_available() < 0 || nodes.empty()) return;
  const size_t ps = page_size();
  begin = begin / ps * ps;
  end = std::min(bytes_, (end + ps - 1) / ps * ps);
  if (begin >= end) return;
  struct bitmask* mask = numa_allocate_nodemask();
  for (int n : nodes) numa_bitmask_setbit(mask, unsigned(n));
  const long rc = ::mbind(static_cast<char*>(base_) + begin, end - begin, interleave ? MPOL_INTERLEAVE : MPOL_BIND,
                          mask->maskp, mask->size + 1, MPOL_MF_MOVE);
  const int err = errno;
  numa_free_nodemask(mask);
  if (rc != 0) throw Error(errno_message("cannot place " + human_bytes(double(end - begin)) + " on the chosen NUMA nodes", err));
}

void PageRegion::release(size_t begin, size_t end) {
  const size_t ps = page_size();
  begin = (begin + ps - 1) / ps * ps;
  end = std::min(end, bytes_) / ps * ps;
  if (base_ && begin < end) ::madvise(static_cast<char*>(base_) + begin, end - begin, MADV_DONTNEED);
}

}  // namespace strata
