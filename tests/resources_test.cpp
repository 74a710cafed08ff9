// The DRAM model (engine/memory.hpp): every figure a run reports or refuses by, checked by hand.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "engine/memory.hpp"

namespace strata {
namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;

TEST(DramModel, FormulasByHand) {
  // Before the graph is loaded, 32-bit ids: offsets at least 2 (+ a base per 64) + labels 4 + duplicates 1 +
  // internal and output parents 8 = 15 bytes a vertex, plus the cache index (n / 8) and four bitmaps (n / 2).
  EXPECT_EQ(tiered_search_bytes(1024, 4), 1024u * 8 + 512);
  EXPECT_EQ(tiered_state_bytes(1024, 4), 1024u * 15 + 2 * 128 + 512);
  EXPECT_EQ(tiered_state_bytes(1024, 8), 1024u * (2 + 8 + 1 + 16) + 2 * 128 + 512);
  EXPECT_EQ(io_buffer_bytes(2, IoOptions{.depth = 64, .request_bytes = 128 << 10}), 16 * kMiB);
  // The on-disk CSR build: labels, raw offsets, duplicates and the range marks (13 bytes a vertex and a bit),
  // never above the search's state.
  EXPECT_EQ(tiered_build_state_bytes(1024, 4), 1024u * 13 + 128);
  EXPECT_EQ(tiered_build_state_bytes(1024, 8), 1024u * 17 + 128);
  EXPECT_LE(tiered_build_state_bytes(1 << 20, 4), tiered_state_bytes(1 << 20, 4));
  EXPECT_LE(tiered_build_state_bytes(1 << 20, 8), tiered_state_bytes(1 << 20, 8));
  EXPECT_EQ(search_state_bytes(1024, 4, 1), 2u * 1024 * 4 + 3 * 128);  // no queues since issue 11
  EXPECT_EQ(search_state_bytes(1024, 4, 2), 1024u * 4 + 3 * 128 + 2 * 1024 * 4);
  // In-core: the larger of kernel 1's peak (pre-dedup adjacency, 64-bit offsets, relabel map: 143360 here) and
  // the search's (adjacency bound, block offsets, labels, duplicates, two parent arrays: 148480).
  const KroneckerSpec spec{10, 16, 2, 3};
  // validated in place (a bitmap), or in a packed batch of 3: a row of 8 level bytes, 8 parent hashes and a
  // byte of seen bits (eight searches a group), and 3 parents, a vertex
  EXPECT_EQ(in_core_bytes(spec, 4, 1), 2u * 16384 * 4 + 1024 * (4 + 4 + 1) + 2 * 1024 * 4 + 1024 / 8);
  EXPECT_EQ(in_core_bytes(spec, 4, 3), 2u * 16384 * 4 + 1024 * (4 + 4 + 1) + 2 * 1024 * 4 + 1024 * (8 + 8 + 1 + 3 * 4));
  // Against the CSR: the inverse label map (4) a vertex and a bit per adjacency entry (a check's levels fit).
  EXPECT_EQ(csr_validation_bytes(1024, 32768, 4), 1024u * 4 + 4096);
  EXPECT_EQ(in_core_bytes(spec, 4, 1, true), 2u * 16384 * 4 + 1024 * (4 + 4 + 1) + 2 * 1024 * 4 + 1024 * 4 + 4096);
}

TEST(DramModel, TieredBudgetDefaultsAndRefusals) {
  const IoOptions io{.depth = 64, .request_bytes = 128 << 10};
  const uint64_t buffers = io_buffer_bytes(2, io);
  // Default out-of-core budget: half of what is free beyond the state; DAX: none.
  EXPECT_EQ(tiered_budget(0, false, 100 * kMiB, buffers, 1100 * kMiB, 2, io, "out-of-core", 20), 500 * kMiB);
  EXPECT_EQ(tiered_budget(0, true, 100 * kMiB, 0, 1100 * kMiB, 2, io, "dax", 20), 0u);
  // The refusal's message, or "" when the budget was granted.
  auto refusal = [&](uint64_t requested, uint64_t state, uint64_t available, uint64_t stream = 0) -> std::string {
    try {
      tiered_budget(requested, false, state, buffers, available, 2, io, "out-of-core", 20, stream);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  // a budget below the I/O buffers
  EXPECT_NE(refusal(8 * kMiB, 100 * kMiB, 1100 * kMiB).find("is below the minimum 16.0 MiB"), std::string::npos);
  // state + budget above what is available
  EXPECT_NE(refusal(1000 * kMiB, 200 * kMiB, 1100 * kMiB).find("needs 200.0 MiB of O(N) state plus the 1000.0 MiB budget"),
            std::string::npos);
  // no budget given: the message names the state, not a "--dram-budget 0 B" the user never wrote
  EXPECT_NE(refusal(0, 200 * kMiB, 100 * kMiB)
                .find("needs 200.0 MiB of O(N) state plus at least 16.0 MiB of I/O buffers; 100.0 MiB available"),
            std::string::npos);
  // the tuple stream's buffers are named apart from the O(N) state
  EXPECT_NE(refusal(0, 60 * kMiB, 100 * kMiB, 48 * kMiB)
                .find("needs 60.0 MiB of O(N) state and 48.0 MiB of tuple-stream buffers (validation) plus at least "
                      "16.0 MiB of I/O buffers"),
            std::string::npos);
  EXPECT_NO_THROW(check_cache_fits(4, 84 * kMiB, buffers, 100 * kMiB, true, 10 * kMiB, 1000 * kMiB));
  EXPECT_THROW(check_cache_fits(4, 85 * kMiB, buffers, 100 * kMiB, true, 10 * kMiB, 1000 * kMiB), Error);
  EXPECT_NO_THROW(check_cache_fits(4, 85 * kMiB, buffers, 100 * kMiB, false, 10 * kMiB, 1000 * kMiB));  // no budget given
  EXPECT_THROW(check_cache_fits(4, 985 * kMiB, buffers, 0, false, 10 * kMiB, 1000 * kMiB), Error);  // not available
}

}  // namespace
}  // namespace strata
