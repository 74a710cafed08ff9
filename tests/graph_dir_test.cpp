#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "generators/kronecker.hpp"
#include "core/error.hpp"
#include "storage/file.hpp"
#include "storage/graph_dir.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;

std::vector<Edge> all_edges(const Kronecker& gen) {
  std::vector<Edge> e(gen.spec().edge_count());
  gen.generate(0, e.size(), e.data());
  return e;
}

std::vector<Edge> read_all(const GraphDir& g) {
  std::vector<Edge> e(g.edge_count());
  g.for_each_edge_chunk([&](uint64_t first, std::span<const Edge> c) { std::copy(c.begin(), c.end(), e.begin() + first); });
  return e;
}

void expect_same(const std::vector<Edge>& a, const std::vector<Edge>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].u, b[i].u) << i;
    ASSERT_EQ(a[i].v, b[i].v) << i;
  }
}

void flip_byte(const std::string& path, uint64_t offset) {
  File f(path, O_RDWR);
  char c;
  f.pread_all(&c, 1, offset);
  c ^= 0x10;
  ASSERT_EQ(::pwrite(f.fd(), &c, 1, off_t(offset)), 1);
}

TEST(GraphDir, RoundTripSeveralBlocks) {
  test::TempDir tmp;
  Kronecker gen({17, 16, 5, 7});  // 2M edges: two blocks of 2^20
  write_graph_dir(gen, tmp / "g", false);
  GraphDir g = GraphDir::open(tmp / "g");
  EXPECT_EQ(g.spec().scale, 17);
  EXPECT_EQ(g.spec().seed1, 5u);
  EXPECT_EQ(g.spec().seed2, 7u);
  EXPECT_EQ(g.block_count(), 2u);
  EXPECT_EQ(g.id_bytes(), 4);
  g.verify();
  expect_same(read_all(g), all_edges(gen));
  // nothing but the directory is left behind
  for (auto& entry : fs::directory_iterator(tmp.path())) EXPECT_EQ(entry.path().filename(), "g");
}

TEST(GraphDir, SpecAloneRegeneratesTheSameTuples) {
  test::TempDir tmp;
  Kronecker gen({17, 16, 5, 7});  // two chunks of 2^20, regenerated
  write_graph_dir(gen, tmp / "g", false, {}, false);
  EXPECT_FALSE(fs::exists(tmp / "g/edges.bin"));
  GraphDir g = GraphDir::open(tmp / "g");
  EXPECT_FALSE(g.stores_tuples());
  EXPECT_EQ(g.data_bytes(), 0u);
  EXPECT_EQ(g.list_bytes(), 2u * 16 * 4 << 17);
  EXPECT_EQ(g.block_count(), 2u);
  g.verify();
  expect_same(read_all(g), all_edges(gen));
  // A tuple file where the header says there is none is a mixed-up directory, refused by name.
  std::ofstream(tmp / "g/edges.bin") << "x";
  try {
    GraphDir::open(tmp / "g");
    ADD_FAILURE() << "opened a directory whose header disowns its edges.bin";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not stored"), std::string::npos) << e.what();
  }
}

// A chunk's read takes the room its tuples need, not a whole block's: a small graph's every pass wrote 16 MiB a
// thread into a buffer it did not use (most of a SCALE 11 run's time went to those pages on a VM). Where the
// caller names its own array (ChunkBuffer::to) the tuples land there, equal to the buffer's.
TEST(GraphDir, ChunkReadsTakeTheBlocksRoomOrTheCallersArray) {
  test::TempDir tmp;
  Kronecker gen({10, 16, 5, 7});  // 16K tuples: one short block
  write_graph_dir(gen, tmp / "stored", false);
  write_graph_dir(gen, tmp / "spec", false, {}, false);
  const std::vector<Edge> want = all_edges(gen);
  for (const char* name : {"stored", "spec"}) {
    SCOPED_TRACE(name);
    const GraphDir g = GraphDir::open(tmp / name);
    ChunkBuffer buffer;
    const std::span<const Edge> got = g.read_chunk(0, buffer);
    EXPECT_EQ(buffer.edges.size(), want.size());  // a whole block: 1 << 20
    expect_same({got.begin(), got.end()}, want);
    std::vector<Edge> mine(want.size());
    ChunkBuffer in_place;
    in_place.to = mine.data();
    EXPECT_EQ(g.read_chunk(0, in_place).data(), mine.data());
    EXPECT_TRUE(in_place.edges.empty());
    expect_same(mine, want);
  }
  ChunkBuffer generated;
  EXPECT_EQ(GeneratedEdges{gen}.read_chunk(0, generated).size(), want.size());
  EXPECT_EQ(generated.edges.size(), want.size());  // a whole chunk: kDefaultEdgeChunk
}

TEST(GraphDir, RefusesExistingUnlessForced) {
  test::TempDir tmp;
  Kronecker small({6, 16, 2, 3}), other({7, 16, 2, 3});
  write_graph_dir(small, tmp / "g", false);
  EXPECT_THROW(write_graph_dir(other, tmp / "g", false), Error);
  EXPECT_EQ(GraphDir::open(tmp / "g").spec().scale, 6);
  write_graph_dir(other, tmp / "g", true);
  EXPECT_EQ(GraphDir::open(tmp / "g").spec().scale, 7);
  // --force never deletes a directory that is not ours
  fs::create_directory(tmp / "mine");
  std::ofstream(tmp / "mine/precious.txt") << "keep";
  EXPECT_THROW(write_graph_dir(small, tmp / "mine", true), Error);
  EXPECT_TRUE(fs::exists(tmp / "mine/precious.txt"));
}

TEST(GraphDir, DetectsTruncation) {
  test::TempDir tmp;
  write_graph_dir(Kronecker({10, 16, 2, 3}), tmp / "g", false);
  fs::resize_file(tmp / "g/edges.bin", fs::file_size(tmp / "g/edges.bin") - 8);
  try {
    GraphDir::open(tmp / "g");
    FAIL() << "truncated edge file accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  write_graph_dir(Kronecker({10, 16, 2, 3}), tmp / "h", false);
  fs::resize_file(tmp / "h/graph.hdr", 20);
  EXPECT_THROW(GraphDir::open(tmp / "h"), Error);
}

TEST(GraphDir, DetectsBitFlipsInDataHeaderAndMagic) {
  test::TempDir tmp;
  write_graph_dir(Kronecker({10, 16, 2, 3}), tmp / "g", false);
  flip_byte(tmp / "g/edges.bin", 12345);
  GraphDir g = GraphDir::open(tmp / "g");  // the header is fine; the data check happens on reading
  try {
    g.verify();
    FAIL() << "bit flip not detected";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch in block 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_all(g), Error);

  write_graph_dir(Kronecker({10, 16, 2, 3}), tmp / "h", false);
  flip_byte(tmp / "h/graph.hdr", 20);  // the SCALE field
  EXPECT_THROW(GraphDir::open(tmp / "h"), Error);

  write_graph_dir(Kronecker({10, 16, 2, 3}), tmp / "m", false);
  flip_byte(tmp / "m/graph.hdr", 0);
  try {
    GraphDir::open(tmp / "m");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad magic"), std::string::npos) << e.what();
  }
}

TEST(GraphDir, RefusesAnotherFormatVersion) {
  test::TempDir tmp;
  write_graph_dir(Kronecker({8, 16, 2, 3}), tmp / "g", false);
  flip_byte(tmp / "g/graph.hdr", 8);  // the version field follows the 8-byte magic
  try {
    GraphDir::open(tmp / "g");
    FAIL() << "another format version accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("format version"), std::string::npos) << e.what();
  }
}

TEST(GraphDir, MissingDirectoryIsAClearError) {
  try {
    GraphDir::open("/nonexistent/strata-graph");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos);
  }
}

}  // namespace
}  // namespace strata
