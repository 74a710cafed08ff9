#include "core/units.hpp"

#include <cstdio>

namespace strata {

std::string plural_of(const std::string& noun) {
  const bool es = noun.ends_with("s") || noun.ends_with("ch") || noun.ends_with("sh") || noun.ends_with("x");
  return noun + (es ? "es" : "s");
}

std::string count_of(uint64_t n, const std::string& noun) {
  return std::to_string(n) + " " + (n == 1 ? noun : plural_of(noun));
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) bytes /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace strata
