// The tiers a run can name: the built-ins, then any registered later (tests register their own).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "tiers/builtin.hpp"
#include "tiers/tier_ops.hpp"

namespace strata {

namespace {

template <class... T>
std::vector<TierEntry> entries_of(TierList<T...>) {
  return {make_tier_entry<T>()...};
}

std::vector<TierEntry>& entries() {
  static std::vector<TierEntry> all = entries_of(BuiltinTiers{});
  return all;
}

}  // namespace

void register_tier(const TierEntry& entry) {
  if (find_tier(std::string(entry.tier->name))) throw Error(fmt::format("a tier named {} is registered already", entry.tier->name));
  entries().push_back(entry);
}

std::vector<const Tier*> registered_tiers() {
  std::vector<const Tier*> tiers;
  for (const TierEntry& e : entries()) tiers.push_back(e.tier);
  return tiers;
}

const Tier* find_tier(const std::string& name) {
  for (const TierEntry& e : entries())
    if (e.tier->name == name) return e.tier;
  return nullptr;
}

std::string tier_names(const std::string& last_separator) {
  const std::vector<const Tier*> tiers = registered_tiers();
  std::string names;
  for (size_t i = 0; i < tiers.size(); ++i)
    names += (i == 0 ? "" : i + 1 == tiers.size() ? last_separator : ", ") + std::string(tiers[i]->name);
  return names;
}

// By name: a Tier copied (PlacementSpec's default is the engine's kInCore) is still the same tier.
const TierEntry& tier_entry(const Tier& tier) {
  for (const TierEntry& e : entries())
    if (e.tier->name == tier.name) return e;
  throw Error(fmt::format("internal error: no tier named {} is registered", tier.name));
}

}  // namespace strata
