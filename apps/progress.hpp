// Progress for long work: one self-overwriting line on stderr when it is a terminal, nothing otherwise.
#pragma once
#include <cstdint>
#include <string>

namespace strata {

class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();  // clears the line
  void update(uint64_t done, uint64_t total, const std::string& detail = "");
  void set_label(std::string label) { label_ = std::move(label); }
  static bool enabled();

 private:
  std::string label_;
  double last_ = -1;
  bool drawn_ = false;
};

}  // namespace strata
