#include "driver/run_result.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "validate/validator.hpp"

namespace strata {

uint64_t RunResult::bytes_read() const {
  uint64_t sum = 0;
  for (const SearchStats& s : search_stats) sum += s.io.bytes_read;
  for (const SsspStats& s : sssp_stats) sum += s.io.bytes_read;
  return sum;
}
double RunResult::statistic(const std::string& name) const {
  for (const auto& [key, value] : statistics)
    if (key == name) return value;
  return 0;
}
namespace {
void record(RunResult& result, SearchRecord& r, const char* what, size_t index, const Verdict& v, double seconds) {
  r.validate_time = seconds;
  r.valid = v.valid;
  result.validation.time += seconds;
  if (!r.valid && result.failure.empty())
    result.failure = fmt::format("validation failed for {} {} (root {}): {}", what, index, r.root, v.message);
}
}  // namespace

void RunResult::record_verdict(size_t index, const Verdict& v, double seconds) {
  record(*this, searches[index], "search", index, v, seconds);
}
void RunResult::record_sssp_verdict(size_t index, const Verdict& v, double seconds) {
  record(*this, sssp_searches[index], "SSSP search", index, v, seconds);
}

std::optional<KernelSet> KernelSet::from_name(const std::string& name) {
  for (const KernelSet k : {KernelSet{true, false}, KernelSet{false, true}, KernelSet{true, true}})
    if (name == k.name()) return k;
  return std::nullopt;
}
uint64_t RunResult::io_requests() const {
  uint64_t sum = 0;
  for (const SearchStats& s : search_stats) sum += s.io.requests;
  for (const SsspStats& s : sssp_stats) sum += s.io.requests;
  return sum;
}

const char* validation_method_name(ValidationMethod m) {
  switch (m) {
    case ValidationMethod::kAuto: return "auto";
    case ValidationMethod::kTuples: return "tuples";
    case ValidationMethod::kCsr: return "csr";
  }
  return "?";
}
std::optional<ValidationMethod> validation_method_from_name(const std::string& name) {
  for (ValidationMethod m : {ValidationMethod::kAuto, ValidationMethod::kTuples, ValidationMethod::kCsr})
    if (name == validation_method_name(m)) return m;
  return std::nullopt;
}

void DistanceFacts::add(const float* dist, uint64_t count) {
  uint64_t hash = dist_fnv;
  for (uint64_t v = 0; v < count; ++v) {
    const uint32_t bits = std::bit_cast<uint32_t>(dist[v]);
    for (int byte = 0; byte < 4; ++byte) hash = (hash ^ ((bits >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
    if (dist[v] == -1.0f) continue;
    ++reached;
    dist_sum += double(dist[v]);
    max_dist = std::max(max_dist, dist[v]);
  }
  dist_fnv = hash;
}

}  // namespace strata
