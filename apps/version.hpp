// `strata --version`: the version, commit and build of this binary.
#pragma once
#include <string>

namespace strata {

std::string version_text();

}  // namespace strata
