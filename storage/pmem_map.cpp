#include "storage/pmem_map.hpp"

#include <fcntl.h>
#include <libpmem.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "storage/error.hpp"
#include "storage/file.hpp"

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
  if (m.is_pmem_) {  // the media itself: keep libpmem's mapping, made read-only
    if (::mprotect(m.addr_, len, PROT_READ) != 0)
      throw Error(errno_message("cannot make the mapping of " + path + " read-only", errno));
    return m;
  }
  // Not pmem: libpmem's mapping is a writable shared mapping of page cache, which the kernel maps with 4 KiB
  // pages only. A read-only mapping at a 2 MiB-aligned address can use the page cache's huge folios (PMD
  // mappings), sparing the search most TLB misses; it reads the same bytes.
  pmem_unmap(m.addr_, len);
  m.addr_ = nullptr;
  m.own_mapping_ = true;
  const File f(path, O_RDONLY);
  constexpr size_t kHuge = size_t(2) << 20;
  void* reserve = ::mmap(nullptr, len + kHuge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserve == MAP_FAILED) throw Error(errno_message("cannot map " + path, errno));
  const uintptr_t start = (reinterpret_cast<uintptr_t>(reserve) + kHuge - 1) & ~(kHuge - 1);
  // Trim the reservation to [start, start + len), then map the file over it.
  const size_t head = start - reinterpret_cast<uintptr_t>(reserve);
  if (head) ::munmap(reserve, head);
  ::munmap(reinterpret_cast<char*>(start) + len, kHuge - head);
  void* p = ::mmap(reinterpret_cast<void*>(start), len, PROT_READ, MAP_SHARED | MAP_FIXED, f.fd(), 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::munmap(reinterpret_cast<void*>(start), len);
    throw Error(errno_message("cannot map " + path, err));
  }
  m.addr_ = p;
  ::madvise(p, len, MADV_HUGEPAGE);
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
    : addr_(std::exchange(o.addr_, nullptr)), bytes_(o.bytes_), is_pmem_(o.is_pmem_), own_mapping_(o.own_mapping_),
      path_(std::move(o.path_)) {}

PmemMapping& PmemMapping::operator=(PmemMapping&& o) noexcept {
  if (this != &o) {
    unmap();
    addr_ = std::exchange(o.addr_, nullptr);
    bytes_ = o.bytes_;
    is_pmem_ = o.is_pmem_;
    own_mapping_ = o.own_mapping_;
    path_ = std::move(o.path_);
  }
  return *this;
}

PmemMapping::~PmemMapping() { unmap(); }

void PmemMapping::unmap() {
  if (addr_) {
    if (own_mapping_) ::munmap(addr_, bytes_);
    else pmem_unmap(addr_, bytes_);
  }
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
