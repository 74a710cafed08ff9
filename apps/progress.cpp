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

namespace {
std::string duration(double seconds) {
  const long s = long(seconds + 0.5);
  if (s < 60) return std::to_string(s) + "s";
  char buf[32];
  if (s < 3600) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}
}  // namespace

std::string eta_text(uint64_t done, uint64_t total, double elapsed, double min_elapsed) {
  if (elapsed < min_elapsed || done == 0 || total == 0) return "";
  if (done >= total) return duration(elapsed);
  return duration(elapsed) + ", ETA " + duration(elapsed * double(total - done) / double(done));
}

Progress::Progress(std::string label) : label_(std::move(label)) {}

void Progress::set_label(std::string label) {
  if (label != label_) phase_start_ = -1;
  label_ = std::move(label);
}

Progress::~Progress() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void Progress::update(uint64_t done, uint64_t total, const std::string& detail) {
  if (!enabled()) return;
  const double t = now();
  if (phase_start_ < 0 || done == 0) phase_start_ = t;
  if (done < total && t - last_ < 0.1) return;  // at most ten redraws a second
  last_ = t;
  const int width = 30, filled = total ? int(double(done) / double(total) * width) : width;
  const std::string eta = eta_text(done, total, t - phase_start_);
  const std::string timing = eta.empty() ? "" : "(" + eta + ") ";
  std::fprintf(stderr, "\r\033[K%s [%s%s] %3d%% %s%s", label_.c_str(), std::string(filled, '#').c_str(),
               std::string(width - filled, '.').c_str(), total ? int(100.0 * double(done) / double(total)) : 100,
               timing.c_str(), detail.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace strata
