// Byte counts and plural nouns for messages: "1.5 GiB", "1 byte", "2 bytes".
#pragma once
#include <cstdint>
#include <string>

namespace strata {

std::string human_bytes(double bytes);                       // "512 B", "1.5 GiB"
std::string plural_of(const std::string& noun);              // "searches", "passes", "bytes"
std::string count_of(uint64_t n, const std::string& noun);   // "1 byte", "2 bytes", "3 passes"

}  // namespace strata
