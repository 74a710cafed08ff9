// What a new tier costs: this file and one registration. "in-core-copy" is the in-core tier whose kernel 1
// moves the adjacency into a fresh copy before the search reads it; the driver, the validation and the report
// serve it without naming it.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "apps/report.hpp"
#include "driver/graph500.hpp"
#include "engine/prepare.hpp"
#include "tiers/in_core.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {
namespace {

struct InCoreCopyTier : InCoreTier {  // the in-core tier's sources, its own kernel 1
  static constexpr Tier kTier{"in-core-copy", false, false, true, false};

  template <class Id, class Source>
  static void prepare(PlacedGraph<Id>& pg, const Source& source, const PlacementSpec& spec, const Topology& topo,
                      const PhaseProgress& progress) {
    prepare_in_core(pg, source, spec, topo, progress);
    NumaArray<Id> copy(pg.g.adj.size());
    std::copy(pg.g.adj.begin(), pg.g.adj.end(), copy.begin());
    pg.g.adj = std::move(copy);
  }
};

const bool registered = [] {
  register_tier(make_tier_entry<InCoreCopyTier>());
  return true;
}();

TEST(Tiers, ATierRegisteredInOneFileRunsValidatedThroughTheDriverAndReport) {
  ASSERT_TRUE(registered);
  const Tier* tier = find_tier("in-core-copy");
  ASSERT_NE(tier, nullptr);
  EXPECT_NE(tier_names().find("in-core-copy"), std::string::npos);
  RunConfig cfg;
  cfg.spec = {12, 16, 2, 3};
  cfg.roots = 4;
  cfg.threads = 2;
  const RunResult in_core = run_graph500(cfg);
  cfg.place.tier = tier;
  const RunResult copy = run_graph500(cfg);
  ASSERT_TRUE(copy.ok()) << copy.failure;
  ASSERT_EQ(copy.runs.at(0).searches.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(copy.runs.at(0).searches[i].valid);
    EXPECT_EQ(copy.runs.at(0).searches[i].nedge, in_core.runs.at(0).searches[i].nedge);
  }
  EXPECT_EQ(to_json(copy)["placement"], "in-core-copy");
  EXPECT_NE(summary_line(copy, "").find("in-core-copy, 4 of 4 searches validated"), std::string::npos);
}

TEST(Tiers, NamesAreUniqueAndTheBuiltInsComeFirst) {
  EXPECT_THROW(register_tier(make_tier_entry<InCoreTier>()), Error);
  const std::vector<const Tier*> tiers = registered_tiers();
  ASSERT_GE(tiers.size(), 3u);
  EXPECT_EQ(tiers[0]->name, "in-core");
  EXPECT_EQ(tiers[1]->name, "out-of-core");
  EXPECT_EQ(tiers[2]->name, "dax");
  EXPECT_EQ(find_tier("tape"), nullptr);
}

}  // namespace
}  // namespace strata
