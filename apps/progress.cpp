#include "apps/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace strata {

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

bool Progress::enabled() {
  static const bool tty = ::isatty(STDERR_FILENO);
  return tty;
}

Progress::Progress(std::string label) : label_(std::move(label)) {}

Progress::~Progress() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void Progress::update(uint64_t done, uint64_t total, const std::string& detail) {
  if (!enabled()) return;
  const double t = now();
  if (done < total && t - last_ < 0.1) return;  // at most ten redraws a second
  last_ = t;
  const int width = 30, filled = total ? int(double(done) / double(total) * width) : width;
  std::fprintf(stderr, "\r\033[K%s [%s%s] %3d%% %s", label_.c_str(), std::string(filled, '#').c_str(),
               std::string(width - filled, '.').c_str(), total ? int(100.0 * double(done) / double(total)) : 100,
               detail.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace strata
