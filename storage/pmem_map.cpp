#include "storage/pmem_map.hpp"

#include <libpmem.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "storage/error.hpp"

namespace strata {

PmemMapping PmemMapping::open_read(const std::string& path) {
  PmemMapping m;
  m.path_ = path;
  size_t len = 0;
  int is_pmem = 0;
  m.addr_ = pmem_map_file(path.c_str(), 0, 0, 0, &len, &is_pmem);
  if (!m.addr_) throw Error(fmt::format("cannot map {} with libpmem: {}", path, pmem_errormsg()));
  m.bytes_ = len;
  m.is_pmem_ = is_pmem != 0;
  if (::mprotect(m.addr_, len, PROT_READ) != 0) throw Error(errno_message("cannot make the mapping of " + path + " read-only", errno));
  // Off pmem the mapping is page cache in 4 KiB pages; ask for huge pages (read-only file THP), which spares
  // the search TLB misses. Hints only: refused where the kernel or filesystem cannot.
  ::madvise(m.addr_, len, MADV_HUGEPAGE);
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
  if (!m.is_pmem_) ::madvise(m.addr_, len, MADV_COLLAPSE);
  return m;
}

PmemMapping PmemMapping::create(const std::string& path, uint64_t bytes) {
  PmemMapping m;
  m.path_ = path;
  size_t len = 0;
  int is_pmem = 0;
  // libpmem cannot map an empty file; an empty partition still gets one (zero) page.
  m.addr_ = pmem_map_file(path.c_str(), std::max<uint64_t>(bytes, 4096), PMEM_FILE_CREATE, 0644, &len, &is_pmem);
  if (!m.addr_) throw Error(fmt::format("cannot create {} with libpmem: {}", path, pmem_errormsg()));
  m.bytes_ = len;
  m.is_pmem_ = is_pmem != 0;
  return m;
}

PmemMapping::PmemMapping(PmemMapping&& o) noexcept
    : addr_(std::exchange(o.addr_, nullptr)), bytes_(o.bytes_), is_pmem_(o.is_pmem_), path_(std::move(o.path_)) {}

PmemMapping& PmemMapping::operator=(PmemMapping&& o) noexcept {
  if (this != &o) {
    unmap();
    addr_ = std::exchange(o.addr_, nullptr);
    bytes_ = o.bytes_;
    is_pmem_ = o.is_pmem_;
    path_ = std::move(o.path_);
  }
  return *this;
}

PmemMapping::~PmemMapping() { unmap(); }

void PmemMapping::unmap() {
  if (addr_) pmem_unmap(addr_, bytes_);
  addr_ = nullptr;
}

void PmemMapping::write_persist(uint64_t offset, const void* src, uint64_t len) {
  if (offset + len > bytes_) throw Error(fmt::format("internal error: write past the end of {}", path_));
  char* dst = static_cast<char*>(addr_) + offset;
  if (is_pmem_) {
    pmem_memcpy_persist(dst, src, len);
    return;
  }
  std::memcpy(dst, src, len);
  if (pmem_msync(dst, len) != 0) throw Error(errno_message("cannot flush " + path_, errno));
}

}  // namespace strata
