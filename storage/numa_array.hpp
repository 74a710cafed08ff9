// A large array of plain data in anonymous memory: zero-filled pages that appear on first touch, ranges
// placeable on NUMA nodes, and a tail that can be handed back to the OS. One object owns the mapping.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace strata {

class PageRegion {
 public:
  PageRegion() = default;
  explicit PageRegion(size_t bytes);
  // bytes of memory followed, up to readable_bytes, by pages that read as zero and cannot be written: any
  // index below readable_bytes is a safe load (costs address space only, never memory).
  PageRegion(size_t bytes, size_t readable_bytes);
  PageRegion(PageRegion&& o) noexcept : base_(std::exchange(o.base_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  PageRegion& operator=(PageRegion&& o) noexcept;
  PageRegion(const PageRegion&) = delete;
  PageRegion& operator=(const PageRegion&) = delete;
  ~PageRegion();

  void* base() const { return base_; }
  size_t bytes() const { return bytes_; }
  // Prefers NUMA node `node` for the pages covering [begin, end) bytes (no-op where libnuma sees no NUMA).
  void prefer_node(size_t begin, size_t end, int node);
  // Places the pages covering bytes [begin, end) strictly on `nodes`: bound (filled in node order) or
  // interleaved page by page. Pages already touched are migrated. Throws Error if the kernel refuses.
  void place_on(size_t begin, size_t end, const std::vector<int>& nodes, bool interleave);
  // Returns the pages from byte `keep` on to the OS; they read as zero if touched again.
  void release_from(size_t keep) { release(keep, bytes_); }
  // Returns the whole pages inside bytes [begin, end) to the OS.
  void release(size_t begin, size_t end);

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

template <class T>
class NumaArray {
 public:
  NumaArray() = default;
  explicit NumaArray(size_t n) : region_(n * sizeof(T)), size_(n) {}
  NumaArray(size_t n, size_t readable_n) : region_(n * sizeof(T), readable_n * sizeof(T)), size_(n) {}
  // A moved-from array is empty (size 0), not an old size over no pages.
  NumaArray(NumaArray&& o) noexcept : region_(std::move(o.region_)), size_(std::exchange(o.size_, 0)) {}
  NumaArray& operator=(NumaArray&& o) noexcept {
    if (this != &o) region_ = std::move(o.region_), size_ = std::exchange(o.size_, 0);
    return *this;
  }
  T* data() const { return static_cast<T*>(region_.base()); }
  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() const { return data(); }
  T* end() const { return data() + size_; }
  void prefer_node(size_t begin, size_t end, int node) { region_.prefer_node(begin * sizeof(T), end * sizeof(T), node); }
  void place_on(const std::vector<int>& nodes, bool interleave) { region_.place_on(0, bytes(), nodes, interleave); }
  void release(size_t first, size_t last) { region_.release(first * sizeof(T), last * sizeof(T)); }
  void shrink(size_t n) {  // logical size n, pages past it released
    region_.release_from(n * sizeof(T));
    size_ = n;
  }

 private:
  PageRegion region_;
  size_t size_ = 0;
};

}  // namespace strata
