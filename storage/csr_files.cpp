#include "storage/csr_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/units.hpp"
#include "storage/hash.hpp"
#include "storage/header.hpp"
#include "storage/numa_array.hpp"

namespace strata {

namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'C', 'S'};
// Version 2 added the entry width and the weighted flag (kernel 3); version 1 (ids only) still reads.
constexpr uint32_t kVersion = 2;
constexpr const char* kHeader = CsrFiles::kHeaderFile;
constexpr const char* kMeta = "meta.bin";

struct DiskHeaderV1 {
  char magic[8];
  uint32_t version, id_bytes, scale, parts;
  uint64_t graph_hash, n, entries, many_duplicates, meta_hash, hash_block;
  double build_seconds;
  uint64_t header_hash;  // XXH3 of this struct (header_hash = 0) and the arrays that follow
};
struct DiskHeader {
  char magic[8];
  uint32_t version, id_bytes, scale, parts;
  uint64_t graph_hash, n, entries, many_duplicates, meta_hash, hash_block;
  double build_seconds;
  uint32_t entry_bytes, weighted;  // an adjacency entry's bytes; 1: (id, float weight) pairs, by weight
  uint64_t header_hash;  // XXH3 of this struct (header_hash = 0) and the arrays that follow
};
// Followed by bounds[parts + 1], part_first[parts + 1], then each partition's block hashes.

template <class H>
uint64_t hash_all(H h, const std::vector<uint64_t>& tail) {
  h.header_hash = 0;
  Xxh3Stream st;
  st.update(&h, sizeof h);
  st.update(tail.data(), tail.size() * 8);
  return st.digest();
}

// The header of either version, as version 2 (a version-1 CSR holds ids alone), and its checksum's check.
DiskHeader read_disk_header(const File& hdr, uint64_t& header_bytes, bool& hash_ok, std::vector<uint64_t>& tail) {
  DiskHeaderV1 v1;
  if (hdr.size() < sizeof v1) throw Error(hdr.path() + " is truncated (not a complete Strata CSR header)");
  hdr.pread_all(&v1, sizeof v1, 0);
  if (std::memcmp(v1.magic, kMagic, sizeof kMagic) != 0) throw Error(hdr.path() + " has a bad magic: not a Strata CSR");
  DiskHeader h{};
  if (v1.version == 1) {
    header_bytes = sizeof v1;
  } else if (v1.version == kVersion) {
    h = read_header<DiskHeader>(hdr, kMagic, kVersion, "Strata CSR");
    header_bytes = sizeof h;
  } else {
    throw Error(fmt::format("{} has format version {}; this build reads versions 1 and {}", hdr.path(), v1.version,
                            kVersion));
  }
  const uint64_t tail_bytes = hdr.size() - header_bytes;
  if (tail_bytes % 8 != 0 || tail_bytes > (uint64_t(1) << 32)) throw Error(hdr.path() + " is corrupted (impossible size)");
  tail.resize(tail_bytes / 8);
  hdr.pread_all(tail.data(), tail.size() * 8, header_bytes);
  if (v1.version == 1) {
    hash_ok = hash_all(v1, tail) == v1.header_hash;
    std::memcpy(&h, &v1, offsetof(DiskHeaderV1, header_hash));
    h.entry_bytes = v1.id_bytes;
    h.weighted = 0;
    h.header_hash = v1.header_hash;
  } else {
    hash_ok = hash_all(h, tail) == h.header_hash;
  }
  return h;
}

// Whether name is head, a number, then tail: the names path_for and adj_name write.
bool numbered(const std::string& name, const std::string& head, const std::string& tail) {
  return name.size() > head.size() + tail.size() && name.compare(0, head.size(), head) == 0 &&
         name.compare(name.size() - tail.size(), tail.size(), tail) == 0 &&
         std::all_of(name.begin() + head.size(), name.end() - tail.size(), [](char c) { return c >= '0' && c <= '9'; });
}

uint64_t blocks_of(uint64_t bytes) { return (bytes + kCsrHashBlock - 1) / kCsrHashBlock; }

}  // namespace

uint64_t CsrLayout::meta_bytes() const {
  return (n + 1) * 8 + n * uint64_t(id_bytes) + n + 8 + many_duplicates * 16;
}

std::string CsrFiles::path_for(const std::string& graph_dir, int parts, bool weighted) {
  return fmt::format("{}/csr-{}p{}", graph_dir, weighted ? "w-" : "", parts);
}
std::string CsrFiles::adj_name(int p) { return fmt::format("adj.{}.bin", p); }
bool CsrFiles::is_own_file(const std::string& name) {
  return name == kHeader || name == kMeta || numbered(name, "adj.", ".bin");
}

std::vector<const DirectFile*> CsrFiles::adj_files() const {
  std::vector<const DirectFile*> files;
  for (const auto& f : adj_) files.push_back(f.get());
  return files;
}

CsrFiles CsrFiles::open(const std::string& path, uint64_t graph_hash, int scale) {
  CsrFiles c;
  c.path_ = path;
  const std::string hdr_path = path + "/" + kHeader;
  File hdr(hdr_path, O_RDONLY);
  uint64_t header_bytes = 0;
  bool hash_ok = false;
  std::vector<uint64_t> tail;
  const DiskHeader h = read_disk_header(hdr, header_bytes, hash_ok, tail);
  // The checksum first: a damaged field (parts, say) must read as damage, not as a truncated file.
  if (!hash_ok) throw Error(hdr_path + " is corrupted (header checksum mismatch)");
  if ((h.id_bytes != 4 && h.id_bytes != 8) || h.parts == 0 || h.parts > 4096 || h.hash_block != kCsrHashBlock ||
      h.n > (uint64_t(1) << 40) || h.weighted > 1 || h.entry_bytes != h.id_bytes + 4 * h.weighted)
    throw Error(hdr_path + " is corrupted (impossible layout fields)");
  const uint64_t arrays = 2 * (uint64_t(h.parts) + 1);
  if (tail.size() < arrays) throw Error(hdr_path + " is truncated");
  if (int(h.scale) != scale || h.graph_hash != graph_hash)
    throw Error(fmt::format("{} was built from another graph (SCALE {}, graph checksum {:016x}; this graph: SCALE {}, "
                            "{:016x}): remove it and run again to rebuild",
                            path, h.scale, h.graph_hash, scale, graph_hash), Error::kFixSaid);
  CsrLayout& L = c.layout_;
  L.graph_hash = h.graph_hash;
  L.scale = int(h.scale);
  L.id_bytes = int(h.id_bytes);
  L.weighted = h.weighted != 0;
  L.n = h.n;
  L.entries = h.entries;
  L.many_duplicates = h.many_duplicates;
  L.build_seconds = h.build_seconds;
  L.bounds.assign(tail.begin(), tail.begin() + h.parts + 1);
  L.part_first.assign(tail.begin() + h.parts + 1, tail.begin() + arrays);
  c.meta_hash_ = h.meta_hash;
  uint64_t at = arrays;
  for (int p = 0; p < L.parts(); ++p) {
    const uint64_t nb = blocks_of(L.adj_file_bytes(p));
    if (at + nb > tail.size()) throw Error(hdr_path + " is corrupted (block table too short)");
    c.hashes_.emplace_back(tail.begin() + at, tail.begin() + at + nb);
    at += nb;
  }
  if (at != tail.size()) throw Error(hdr_path + " is corrupted (trailing data)");

  File meta(path + "/" + kMeta, O_RDONLY);
  if (meta.size() != L.meta_bytes())
    throw Error(fmt::format("{} has {}, expected {} (truncated or damaged)", meta.path(), count_of(meta.size(), "byte"),
                            L.meta_bytes()));
  for (int p = 0; p < L.parts(); ++p) {
    auto f = std::make_shared<DirectFile>(open_direct(path + "/" + adj_name(p)));
    if (f->file.size() != L.adj_file_bytes(p))
      throw Error(fmt::format("{} has {}, expected {} (truncated or damaged)", f->file.path(), count_of(f->file.size(), "byte"),
                              L.adj_file_bytes(p)));
    c.adj_.push_back(std::move(f));
  }
  return c;
}

std::vector<std::string> CsrFiles::find_in(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  const auto committed = [](const fs::path& p) {  // AtomicDir's temporary and moved-aside names hold a '.'
    std::error_code ec;
    return p.filename().string().find('.') == std::string::npos && fs::is_directory(p, ec);
  };
  // Kernel 1's names (path_for), listed with or without a header: a run would refuse one without, and so does info.
  const auto csr_name = [](const std::string& name) { return numbered(name, "csr-p", "") || numbered(name, "csr-w-p", ""); };
  std::error_code ec;
  fs::directory_iterator entries(dir, ec);
  if (ec) throw Error(fmt::format("cannot list {}: {}", dir, ec.message()));
  for (const auto& e : entries) {
    if (csr_name(e.path().filename().string()) || (committed(e.path()) && path_exists((e.path() / kHeader).string()))) {
      found.push_back(e.path().filename().string());
      continue;
    }
    if (!committed(e.path())) continue;
    std::error_code inner;
    for (const auto& r : fs::directory_iterator(e.path(), inner))
      if (committed(r.path()) && path_exists((r.path() / kHeader).string()))
        found.push_back((e.path().filename() / r.path().filename()).string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

void CsrFiles::verify(const ProgressFn& progress) const {
  uint64_t total = layout_.meta_bytes(), done = 0;
  for (int p = 0; p < layout_.parts(); ++p) total += layout_.adj_file_bytes(p);
  PageRegion buffer(kCsrHashBlock);  // page-aligned, as O_DIRECT reads need
  char* data = static_cast<char*>(buffer.base());
  MetaReader meta(*this);
  for (uint64_t at = 0; at < layout_.meta_bytes(); at += kCsrHashBlock) {
    const uint64_t len = std::min(kCsrHashBlock, layout_.meta_bytes() - at);
    meta.read(data, len);
    if (progress) progress(done += len, total);
  }
  meta.finish();
  for (int p = 0; p < layout_.parts(); ++p) {
    const File& f = adj_[p]->file;
    for (uint64_t off = 0, b = 0; off < layout_.adj_file_bytes(p); off += kCsrHashBlock, ++b) {
      const uint64_t len = std::min(kCsrHashBlock, layout_.adj_file_bytes(p) - off);  // a multiple of 4 KiB
      f.pread_all(data, len, off);
      if (xxh3(data, len) != hashes_[p][b])
        throw Error(fmt::format("{} is corrupted: checksum mismatch in block {} (bytes {}..{})", f.path(), b, off,
                                off + len - 1));
      if (progress) progress(done += len, total);
    }
  }
}

CsrFiles::MetaReader::MetaReader(const CsrFiles& files)
    : file_(files.path_ + "/" + kMeta, O_RDONLY),
      expected_hash_(files.meta_hash_),
      expected_bytes_(files.layout_.meta_bytes()) {}

void CsrFiles::MetaReader::read(void* out, uint64_t bytes) {
  char* p = static_cast<char*>(out);
  if (at_ + bytes > expected_bytes_) throw Error(file_.path() + " is shorter than its header says");
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t len = std::min(kCsrHashBlock, bytes - done);
    file_.pread_all(p + done, len, at_);
    state_.update(p + done, len);
    done += len;
    at_ += len;
  }
}

void CsrFiles::MetaReader::finish() {
  if (at_ != expected_bytes_ || state_.digest() != expected_hash_)
    throw Error(file_.path() + " is corrupted (checksum mismatch)");
}

CsrWriter::CsrWriter(const std::string& path, const CsrLayout& layout, bool pmem)
    : dir_(path, true, kHeader), layout_(layout), pmem_(pmem), meta_(dir_.file(kMeta), O_WRONLY | O_CREAT | O_TRUNC) {
  reserved_.assign(layout_.parts(), 0);
  layout_.part_first.assign(1, 0);
  block_.reserve(kCsrHashBlock);
}

void CsrWriter::reserve_part(int part, uint64_t max_entries) { reserved_.at(part) = max_entries; }

void CsrWriter::flush_block(bool last) {
  if (block_.empty()) return;
  if (last) block_.resize(align_up(block_.size()), 0);
  put_block(block_.data(), block_.size());
  block_.clear();
}

void CsrWriter::put_block(const char* data, uint64_t bytes) {
  hashes_.back().push_back(xxh3(data, bytes));
  if (pmem_) {
    mapped_.write_persist(mapped_at_, data, bytes);
    mapped_at_ += bytes;
  } else {
    adj_.write_all(data, bytes);
  }
}

void CsrWriter::open_part(int part) {
  part_ = part;
  if (pmem_) {
    mapped_ = PmemMapping::create(dir_.file(CsrFiles::adj_name(part)), align_up(reserved_[part] * layout_.entry_bytes()));
    mapped_at_ = 0;
  } else {
    adj_ = File(dir_.file(CsrFiles::adj_name(part)), O_WRONLY | O_CREAT | O_TRUNC);
  }
  hashes_.emplace_back();
  part_entries_ = 0;
}

void CsrWriter::append(int part, const void* ids, uint64_t count) {
  if (part < part_ || part >= layout_.parts()) throw Error("internal error: CSR partitions written out of order");
  while (part_ < part) {  // partitions skipped over (empty ones: no vertex) still get their (empty) file
    if (part_ >= 0) finish_part(part_);
    open_part(part_ + 1);
  }
  const char* p = static_cast<const char*>(ids);
  uint64_t bytes = count * layout_.entry_bytes();
  part_entries_ += count;
  while (bytes > 0) {
    if (block_.empty() && bytes >= kCsrHashBlock) {  // a whole block: hashed and written from the caller's memory
      put_block(p, kCsrHashBlock);
      p += kCsrHashBlock;
      bytes -= kCsrHashBlock;
      continue;
    }
    const uint64_t take = std::min<uint64_t>(bytes, kCsrHashBlock - block_.size());
    block_.insert(block_.end(), p, p + take);
    p += take;
    bytes -= take;
    if (block_.size() == kCsrHashBlock) flush_block(false);
  }
}

void CsrWriter::finish_part(int part) {
  if (part != part_ || (pmem_ ? mapped_.data() == nullptr : adj_.fd() < 0)) return;
  flush_block(true);
  if (pmem_) {  // the data is durable; the file is cut to what was written and its size made durable
    mapped_.unmap();
    File f(dir_.file(CsrFiles::adj_name(part)), O_RDWR);
    if (::ftruncate(f.fd(), off_t(mapped_at_)) != 0) throw Error(errno_message("cannot truncate " + f.path(), errno));
    f.sync();
  } else {
    adj_.sync();
    adj_.close();
  }
  layout_.part_first.push_back(layout_.part_first.back() + part_entries_);
}

void CsrWriter::write_meta(const void* data, uint64_t bytes) {
  meta_state_.update(data, bytes);
  meta_.write_all(data, bytes);
  meta_written_ += bytes;
}

void CsrWriter::commit(double build_seconds) {
  // Partitions with no lists still get an (empty) file.
  while (part_ + 1 < layout_.parts()) append(part_ + 1, nullptr, 0);
  finish_part(part_);
  layout_.entries = layout_.part_first.back();
  layout_.build_seconds = build_seconds;
  if (meta_written_ != layout_.meta_bytes())
    throw Error(fmt::format("internal error: CSR meta is {} bytes, expected {}", meta_written_, layout_.meta_bytes()));
  meta_.sync();
  meta_.close();
  DiskHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.id_bytes = uint32_t(layout_.id_bytes);
  h.scale = uint32_t(layout_.scale);
  h.parts = uint32_t(layout_.parts());
  h.graph_hash = layout_.graph_hash;
  h.n = layout_.n;
  h.entries = layout_.entries;
  h.many_duplicates = layout_.many_duplicates;
  h.meta_hash = meta_state_.digest();
  h.hash_block = kCsrHashBlock;
  h.build_seconds = build_seconds;
  h.entry_bytes = uint32_t(layout_.entry_bytes());
  h.weighted = layout_.weighted;
  std::vector<uint64_t> tail(layout_.bounds);
  tail.insert(tail.end(), layout_.part_first.begin(), layout_.part_first.end());
  for (const auto& hs : hashes_) tail.insert(tail.end(), hs.begin(), hs.end());
  h.header_hash = hash_all(h, tail);
  File hdr(dir_.file(kHeader), O_WRONLY | O_CREAT | O_TRUNC);
  hdr.write_all(&h, sizeof h);
  hdr.write_all(tail.data(), tail.size() * 8);
  hdr.sync();
  hdr.close();
  dir_.commit();
}

}  // namespace strata
