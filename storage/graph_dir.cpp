#include "storage/graph_dir.hpp"

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "storage/atomic_dir.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "storage/hash.hpp"
#include "storage/header.hpp"

namespace strata {

static_assert(std::endian::native == std::endian::little, "graph files are little-endian");

namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'E', 'L'};
constexpr uint32_t kVersion = 1;

struct DiskHeader {
  char magic[8];
  uint32_t version;
  uint32_t id_bytes;
  uint32_t scale;
  uint32_t block_edges_log2;
  uint64_t edgefactor, seed1, seed2, edge_count, block_count;
  uint64_t header_hash;  // XXH3 of this struct (with header_hash = 0) followed by the block hashes
};

uint64_t header_hash(DiskHeader h, const std::vector<uint64_t>& blocks) {
  h.header_hash = 0;
  Xxh3Stream st;
  st.update(&h, sizeof h);
  st.update(blocks.data(), blocks.size() * sizeof(uint64_t));
  return st.digest();
}

void encode(std::span<const Edge> edges, int id_bytes, char* out) {
  if (id_bytes == 4) {
    uint32_t* o = reinterpret_cast<uint32_t*>(out);
    for (size_t i = 0; i < edges.size(); ++i) o[2 * i] = uint32_t(edges[i].u), o[2 * i + 1] = uint32_t(edges[i].v);
  } else {
    std::memcpy(out, edges.data(), edges.size() * sizeof(Edge));
  }
}

void decode(const char* in, size_t n, int id_bytes, Edge* out) {
  if (id_bytes == 4) {
    const uint32_t* p = reinterpret_cast<const uint32_t*>(in);
    for (size_t i = 0; i < n; ++i) out[i] = {p[2 * i], p[2 * i + 1]};
  } else {
    std::memcpy(out, in, n * sizeof(Edge));
  }
}

}  // namespace

GraphDir GraphDir::open(const std::string& path) {
  GraphDir g;
  g.path_ = path;
  const std::string hdr_path = path + "/" + kHeaderFile;
  if (!path_exists(path)) throw Error("graph directory " + path + " does not exist");
  File hdr(hdr_path, O_RDONLY);
  const DiskHeader h = read_header<DiskHeader>(hdr, kMagic, kVersion, "Strata graph directory");
  if (h.block_edges_log2 != kBlockEdgesLog2 || (h.id_bytes != 4 && h.id_bytes != 8) || h.block_count > (uint64_t(1) << 40))
    throw Error(hdr_path + " is corrupted (impossible layout fields)");
  if (h.block_count != 0 && h.block_count != (h.edge_count + kBlockEdges - 1) / kBlockEdges)
    throw Error(hdr_path + " is corrupted (block count does not match the edge count)");
  if (hdr.size() != sizeof h + h.block_count * sizeof(uint64_t))
    throw Error(hdr_path + " is truncated or has trailing data (block table size mismatch)");
  g.block_hashes_.resize(h.block_count);
  hdr.pread_all(g.block_hashes_.data(), h.block_count * sizeof(uint64_t), sizeof h);
  if (strata::header_hash(h, g.block_hashes_) != h.header_hash) throw Error(hdr_path + " is corrupted (header checksum mismatch)");

  g.header_hash_ = h.header_hash;
  g.spec_ = {int(h.scale), h.edgefactor, h.seed1, h.seed2};
  g.id_bytes_ = int(h.id_bytes);
  if (std::string why = g.spec_.check(); !why.empty()) throw Error(hdr_path + " is corrupted: " + why);
  if (h.edge_count != g.spec_.edge_count())
    throw Error(hdr_path + " is corrupted (edge count does not match SCALE and edgefactor)");
  if (h.block_count == 0) {  // the spec alone: the tuples are regenerated
    if (path_exists(path + "/" + kEdgesFile))
      throw Error(path + " holds " + kEdgesFile + " but its header says the tuples are not stored (a mixed-up "
                  "directory: regenerate it with `strata generate --force`)");
    g.generator_ = std::make_shared<const Kronecker>(g.spec_);
    return g;
  }

  g.edges_ = std::make_shared<File>(path + "/" + kEdgesFile, O_RDONLY);
  const uint64_t size = g.edges_->size();
  if (size < g.data_bytes())
    throw Error(g.edges_->path() + " is truncated: " + std::to_string(size) + " of " + count_of(g.data_bytes(), "byte"));
  if (size > g.data_bytes()) throw Error(g.edges_->path() + " has " + count_of(size - g.data_bytes(), "byte") + " of trailing data");
  return g;
}

std::span<const Edge> GraphDir::read_block(uint64_t b, std::vector<char>& raw, Edge* out) const {
  const uint64_t first = b * kBlockEdges, n = std::min(kBlockEdges, edge_count() - first);
  const uint64_t bytes = n * 2 * uint64_t(id_bytes_);
  raw.resize(bytes);
  edges_->pread_all(raw.data(), bytes, first * 2 * uint64_t(id_bytes_));  // pread: safe from any thread
  if (xxh3(raw.data(), bytes) != block_hashes_[b])
    throw Error(edges_->path() + " is corrupted: checksum mismatch in block " + std::to_string(b) + " (edges " +
                std::to_string(first) + ".." + std::to_string(first + n - 1) + ")");
  decode(raw.data(), n, id_bytes_, out);
  return {out, n};
}

void GraphDir::verify(const ProgressFn& progress) const {
  std::atomic<uint64_t> done{0};
  for_each_edge_chunk([&](uint64_t, std::span<const Edge>) {  // reading a block checks its hash
    const uint64_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (progress && omp_get_thread_num() == 0) progress(d, block_count());
  });
}

void write_graph_dir(const Kronecker& gen, const std::string& path, bool force, const ProgressFn& progress,
                     bool store_tuples) {
  const KroneckerSpec& spec = gen.spec();
  const int id_bytes = spec.scale <= 32 ? 4 : 8;
  const uint64_t m = spec.edge_count();
  const uint64_t blocks = store_tuples ? (m + GraphDir::kBlockEdges - 1) / GraphDir::kBlockEdges : 0;
  const uint64_t data_bytes = store_tuples ? m * 2 * uint64_t(id_bytes) : 0;

  AtomicDir dir(path, force, GraphDir::kHeaderFile);
  const uint64_t need = data_bytes + sizeof(DiskHeader) + blocks * 8;
  const uint64_t free = free_bytes_at(dir.temp_path());
  if (free < need)
    throw Error("not enough space for " + path + ": needs " + human_bytes(double(need)) + ", " +
                human_bytes(double(free)) + " free");

  std::vector<uint64_t> hashes(blocks);
  if (store_tuples) {
    File edges(dir.file(GraphDir::kEdgesFile), O_WRONLY | O_CREAT | O_TRUNC);
    std::vector<Edge> buffer(std::min(m, GraphDir::kBlockEdges));
    std::vector<char> raw(buffer.size() * 2 * id_bytes);
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint64_t first = b * GraphDir::kBlockEdges, n = std::min(GraphDir::kBlockEdges, m - first);
      gen.generate_parallel(first, first + n, buffer.data());
      encode({buffer.data(), n}, id_bytes, raw.data());
      hashes[b] = xxh3(raw.data(), n * 2 * id_bytes);
      edges.write_all(raw.data(), n * 2 * id_bytes);
      if (progress) progress(first + n, m);
    }
    edges.sync();
    edges.close();
  }

  DiskHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.id_bytes = uint32_t(id_bytes);
  h.scale = uint32_t(spec.scale);
  h.block_edges_log2 = GraphDir::kBlockEdgesLog2;
  h.edgefactor = spec.edgefactor;
  h.seed1 = spec.seed1;
  h.seed2 = spec.seed2;
  h.edge_count = m;
  h.block_count = blocks;
  h.header_hash = strata::header_hash(h, hashes);
  File hdr(dir.file(GraphDir::kHeaderFile), O_WRONLY | O_CREAT | O_TRUNC);
  hdr.write_all(&h, sizeof h);
  hdr.write_all(hashes.data(), hashes.size() * sizeof(uint64_t));
  hdr.sync();
  hdr.close();
  dir.commit();
}

}  // namespace strata
