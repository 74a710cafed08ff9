// The one "no vertex" value: parent of an unreached vertex, end of a shortened list. All ones, larger than
// any vertex id of its width.
#pragma once

namespace strata {

template <class Id>
inline constexpr Id kNoVertex = Id(-1);

}  // namespace strata
