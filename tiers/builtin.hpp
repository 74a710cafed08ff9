// The built-in tiers, in the order runs list them: adding a tier here registers it for one process
// (registry.cpp) and under mpirun (cluster/dist_<kernel>_searches.hpp) at once.
#pragma once
#include <fmt/format.h>

#include <utility>

#include "core/error.hpp"
#include "engine/tier.hpp"
#include "tiers/dax.hpp"
#include "tiers/in_core.hpp"
#include "tiers/out_of_core.hpp"

namespace strata {

template <class... T>
struct TierList {};
using BuiltinTiers = TierList<InCoreTier, OutOfCoreTier, DaxTier>;

// fn(T{}) for the tier type T of the list named like `tier` (by name: a copied Tier is the same tier).
template <class Fn, class T, class... Rest>
auto with_tier_in(TierList<T, Rest...>, const Tier& tier, Fn&& fn) {
  if (T::kTier.name == tier.name) return fn(T{});
  if constexpr (sizeof...(Rest) == 0) throw Error(fmt::format("--placement {} is not a built-in tier", tier.name));
  else return with_tier_in(TierList<Rest...>{}, tier, std::forward<Fn>(fn));
}
template <class Fn>
auto with_builtin_tier(const Tier& tier, Fn&& fn) {
  return with_tier_in(BuiltinTiers{}, tier, std::forward<Fn>(fn));
}
template <class... T>
bool is_builtin(TierList<T...>, const Tier& tier) {
  return ((T::kTier.name == tier.name) || ...);
}
inline bool is_builtin_tier(const Tier& tier) { return is_builtin(BuiltinTiers{}, tier); }

}  // namespace strata
