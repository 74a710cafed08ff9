#include "core/error.hpp"

#include <cstring>

namespace strata {

std::string errno_message(const std::string& what, int err) { return what + ": " + std::strerror(err); }

}  // namespace strata
