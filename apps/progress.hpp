// Progress for long work: one self-overwriting line on stderr when it is a terminal, nothing otherwise; once a
// phase has run a few seconds the line gives its elapsed time and an ETA.
#pragma once
#include <cstdint>
#include <string>

namespace strata {

class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();  // clears the line
  void update(uint64_t done, uint64_t total, const std::string& detail = "");
  void set_label(std::string label);  // a new label starts a new phase (its own clock)
  static bool enabled();

 private:
  std::string label_;
  double last_ = -1;
  double phase_start_ = -1;
  bool drawn_ = false;
};

// "12s, ETA 3m05s": elapsed time and the rest at the rate so far; empty before `min_elapsed` seconds or with
// nothing done yet (no rate to go by).
std::string eta_text(uint64_t done, uint64_t total, double elapsed, double min_elapsed = 3);

}  // namespace strata
