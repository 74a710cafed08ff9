#include "storage/pmem_map.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <libpmem.h>
#include <sys/mman.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "storage/file.hpp"

namespace strata {

#ifdef STATX_ATTR_DAX
constexpr uint64_t kStatxAttrDax = STATX_ATTR_DAX;
#else
constexpr uint64_t kStatxAttrDax = 0x00200000;  // Linux 5.8
#endif

namespace {

// libpmem, loaded the first time a file is written through it: only a DAX placement's build does, and linking it
// loads its chain (libndctl, libdaxctl, libkmod, libcrypto, the compressors) into every process, 2.2 MB resident
// at start -- an eighth of a byte a tuple of an in-core SCALE 20 run. It reads PMEM_IS_PMEM_FORCE as it loads.
struct LibPmem {
  decltype(&::pmem_map_file) map_file;
  decltype(&::pmem_unmap) unmap;
  decltype(&::pmem_memcpy_persist) memcpy_persist;
  decltype(&::pmem_msync) msync;
  decltype(&::pmem_errormsg) errormsg;

  static const LibPmem& get() {
    static const LibPmem lib = load();
    return lib;
  }

 private:
  static LibPmem load() {
    void* h = ::dlopen("libpmem.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) throw Error(fmt::format("cannot load libpmem for the DAX placement: {} (apt-get install libpmem1)", ::dlerror()));
    LibPmem lib{};
    const auto bind = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(h, name));
      if (!fn) throw Error(fmt::format("libpmem.so.1 has no {}: {}", name, ::dlerror()));
    };
    bind(lib.map_file, "pmem_map_file");
    bind(lib.unmap, "pmem_unmap");
    bind(lib.memcpy_persist, "pmem_memcpy_persist");
    bind(lib.msync, "pmem_msync");
    bind(lib.errormsg, "pmem_errormsg");
    return lib;  // the library stays loaded for the process
  }
};

// Whether the file is accessed directly from persistent memory (statx's DAX attribute, Linux 5.8+), or
// libpmem's own override PMEM_IS_PMEM_FORCE=1 (for tests and file-backed experiments) asks to treat it so.
bool file_is_pmem(int fd) {
  if (const char* force = std::getenv("PMEM_IS_PMEM_FORCE"); force && std::string(force) == "1") return true;
  struct statx stx;
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) != 0) return false;
  return (stx.stx_attributes_mask & kStatxAttrDax) && (stx.stx_attributes & kStatxAttrDax);
}
}  // namespace

namespace {
// The read mappings a SIGBUS may come from: a file truncated (or shrunk) by someone else while it is mapped turns
// a load past its new end into SIGBUS. The handler names the file and ends the process with status 1 (a
// message, not a crash); a fault anywhere else is re-raised as before. Slots are claimed and freed with atomics:
// the handler reads them without locks.
struct GuardedRange {
  std::atomic<uintptr_t> begin{0}, end{0};
  char path[480] = {};
};
constexpr int kGuardSlots = 256;
GuardedRange guarded[kGuardSlots];

void write_stderr(const char* text) {
  for (size_t len = std::strlen(text); len > 0;) {
    const ssize_t n = ::write(STDERR_FILENO, text, len);
    if (n <= 0) return;
    text += n;
    len -= size_t(n);
  }
}

void on_sigbus(int sig, siginfo_t* info, void*) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (const GuardedRange& g : guarded) {
    if (at < g.begin.load(std::memory_order_acquire) || at >= g.end.load(std::memory_order_acquire)) continue;
    write_stderr("strata: error: ");
    write_stderr(g.path);
    write_stderr(" shrank while it was mapped (truncated or rewritten under the run): the mapped adjacency is "
                 "gone; run again once nothing else writes it\n");
    ::_exit(1);
  }
  ::signal(sig, SIG_DFL);  // not ours: the default action, as without the guard
  ::raise(sig);
}

int guard_range(const void* addr, uint64_t len, const std::string& path) {
  static const bool installed = [] {
    struct sigaction sa = {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGBUS, &sa, nullptr) == 0;
  }();
  if (!installed) return -1;
  for (int i = 0; i < kGuardSlots; ++i) {
    uintptr_t expected = 0;
    if (!guarded[i].begin.compare_exchange_strong(expected, 1)) continue;  // claimed; 1 matches no mapping
    std::snprintf(guarded[i].path, sizeof(guarded[i].path), "%s", path.c_str());
    guarded[i].end.store(reinterpret_cast<uintptr_t>(addr) + len, std::memory_order_release);
    guarded[i].begin.store(reinterpret_cast<uintptr_t>(addr), std::memory_order_release);
    return i;
  }
  return -1;  // more mappings than slots: the rest stay unguarded
}

void unguard_range(int slot) {
  if (slot < 0) return;
  guarded[slot].end.store(0, std::memory_order_release);
  guarded[slot].begin.store(0, std::memory_order_release);
}
}  // namespace

PmemMapping PmemMapping::open_read(const std::string& path) {
  // The file is opened read-only (a read-only mount, another user's 0644 files) and mapped read-only at a
  // 2 MiB-aligned address: on a DAX filesystem that is the media itself, PMD-mapped; elsewhere page cache,
  // which can then use huge folios (libpmem's writable shared mapping never gets huge pages).
  PmemMapping m;
  m.path_ = path;
  m.own_mapping_ = true;
  const File f(path, O_RDONLY);
  m.bytes_ = f.size();
  m.is_pmem_ = file_is_pmem(f.fd());
  m.mapped_ = std::max<uint64_t>(m.bytes_, 1);  // an empty partition's file still gets a (never read) page
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t len = m.mapped_;
  void* reserve = ::mmap(nullptr, len + kHuge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserve == MAP_FAILED) throw Error(errno_message("cannot map " + path, errno));
  const uintptr_t start = (reinterpret_cast<uintptr_t>(reserve) + kHuge - 1) & ~(kHuge - 1);
  // Trim the reservation to [start, start + len), then map the file over it.
  const size_t head = start - reinterpret_cast<uintptr_t>(reserve);
  if (head) ::munmap(reserve, head);
  ::munmap(reinterpret_cast<char*>(start) + len, kHuge - head);
  if (m.bytes_ == 0) {
    m.addr_ = reinterpret_cast<void*>(start);  // the reserved page: readable nowhere, never read
    return m;
  }
  void* p = ::mmap(reinterpret_cast<void*>(start), len, PROT_READ, MAP_SHARED | MAP_FIXED, f.fd(), 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::munmap(reinterpret_cast<void*>(start), len);
    throw Error(errno_message("cannot map " + path, err));
  }
  m.addr_ = p;
  m.guard_ = guard_range(p, len, path);
  if (!m.is_pmem_) ::madvise(p, len, MADV_HUGEPAGE);
  return m;
}

PmemMapping PmemMapping::create(const std::string& path, uint64_t bytes) {
  PmemMapping m;
  m.path_ = path;
  size_t len = 0;
  int is_pmem = 0;
  // libpmem cannot map an empty file; an empty partition still gets one (zero) page.
  const LibPmem& pmem = LibPmem::get();
  m.addr_ = pmem.map_file(path.c_str(), std::max<uint64_t>(bytes, 4096), PMEM_FILE_CREATE, 0644, &len, &is_pmem);
  if (!m.addr_) throw Error(fmt::format("cannot create {} with libpmem: {}", path, pmem.errormsg()));
  m.bytes_ = len;
  m.is_pmem_ = is_pmem != 0;
  return m;
}

PmemMapping::PmemMapping(PmemMapping&& o) noexcept
    : addr_(std::exchange(o.addr_, nullptr)), bytes_(o.bytes_), mapped_(o.mapped_), guard_(std::exchange(o.guard_, -1)),
      is_pmem_(o.is_pmem_), own_mapping_(o.own_mapping_), path_(std::move(o.path_)) {}

PmemMapping& PmemMapping::operator=(PmemMapping&& o) noexcept {
  if (this != &o) {
    unmap();
    addr_ = std::exchange(o.addr_, nullptr);
    bytes_ = o.bytes_;
    mapped_ = o.mapped_;
    guard_ = std::exchange(o.guard_, -1);
    is_pmem_ = o.is_pmem_;
    own_mapping_ = o.own_mapping_;
    path_ = std::move(o.path_);
  }
  return *this;
}

PmemMapping::~PmemMapping() { unmap(); }

void PmemMapping::unmap() {
  unguard_range(std::exchange(guard_, -1));
  if (addr_) {
    if (own_mapping_) ::munmap(addr_, mapped_);
    else LibPmem::get().unmap(addr_, bytes_);
  }
  addr_ = nullptr;
}

void PmemMapping::write_persist(uint64_t offset, const void* src, uint64_t len) {
  if (offset + len > bytes_) throw Error(fmt::format("internal error: write past the end of {}", path_));
  char* dst = static_cast<char*>(addr_) + offset;
  if (is_pmem_) {
    LibPmem::get().memcpy_persist(dst, src, len);
    return;
  }
  std::memcpy(dst, src, len);
  if (LibPmem::get().msync(dst, len) != 0) throw Error(errno_message("cannot flush " + path_, errno));
}

}  // namespace strata
