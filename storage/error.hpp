// One error type for every layer: a one-line message naming the cause, shown to the user as is.
#pragma once
#include <stdexcept>
#include <string>

namespace strata {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "what: strerror(errno)", for failures of system calls.
std::string errno_message(const std::string& what, int err);

}  // namespace strata
