#include "driver/run_result.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include "core/error.hpp"
#include "validate/validator.hpp"

namespace strata {

const KernelRun* RunResult::found(const KernelInfo& k) const {
  for (const KernelRun& r : runs)
    if (r.kernel == &k) return &r;
  return nullptr;
}
KernelRun& RunResult::run(const KernelInfo& k) {
  if (const KernelRun* r = found(k)) return const_cast<KernelRun&>(*r);
  throw Error(fmt::format("internal error: kernel {} was not asked of this run", k.name));
}
size_t RunResult::roots() const {
  size_t most = 0;
  for (const KernelRun& r : runs) most = std::max(most, r.searches.size());
  return most;
}
std::vector<std::pair<const KernelInfo*, const std::vector<SearchRecord>*>> RunResult::timed() const {
  std::vector<std::pair<const KernelInfo*, const std::vector<SearchRecord>*>> t;
  for (const KernelRun& r : runs) t.push_back({r.kernel, &r.searches});
  return t;
}
RunResult result_for(const RunConfig& cfg) {
  RunResult r;
  r.graph_dir = cfg.graph_dir;
  r.bfs = cfg.bfs;
  r.validate = cfg.validate;
  r.place = cfg.place;
  r.kernels = cfg.kernels;
  for (const KernelInfo* k : kKernels)
    if (cfg.kernels.has(*k)) r.runs.push_back({k, {}, k->settings ? k->settings(cfg) : SearchFacts{}});
  return r;
}
SearchFacts sssp_settings(const RunConfig& cfg) {
  SearchFacts out;
  out.add("sssp_delta", double(cfg.delta));
  return out;
}
uint64_t RunResult::bytes_read() const {
  uint64_t sum = 0;
  for (const KernelRun& r : runs)
    for (const SearchRecord& s : r.searches) sum += s.io.bytes_read;
  return sum;
}
double RunResult::statistic(const std::string& name) const {
  for (const auto& [key, value] : statistics)
    if (key == name) return value;
  return 0;
}
void RunResult::record_verdict(const KernelInfo& k, size_t index, const Verdict& v, double seconds) {
  SearchRecord& s = run(k).searches[index];
  s.validate_time = seconds;
  s.valid = v.valid;
  validation.time += seconds;
  if (!s.valid && failure.empty())
    failure = fmt::format("validation failed for {} {} (root {}): {}", k.search, index, s.root, v.message);
}

size_t kernel_index(const KernelInfo& k) {
  for (size_t i = 0; i < kKernelCount; ++i)
    if (kKernels[i] == &k) return i;
  throw Error(fmt::format("internal error: kernel {} is not in kKernels", k.name));
}
bool KernelSet::has(const KernelInfo& k) const { return (bits >> kernel_index(k)) & 1; }
const KernelInfo& KernelSet::first() const {
  for (const KernelInfo* k : kKernels)
    if (has(*k)) return *k;
  throw Error("internal error: a run with no kernel");
}
bool KernelSet::id_lists() const {
  return std::any_of(std::begin(kKernels), std::end(kKernels), [&](const KernelInfo* k) { return has(*k) && !k->weighted; });
}
bool KernelSet::weighted_lists() const {
  return std::any_of(std::begin(kKernels), std::end(kKernels), [&](const KernelInfo* k) { return has(*k) && k->weighted; });
}
const char* KernelSet::name() const { return bits == 0 ? "none" : several() ? "both" : first().name; }
std::optional<KernelSet> KernelSet::from_name(const std::string& name) {
  const uint32_t every = (uint32_t(1) << std::size(kKernels)) - 1;
  if (name == "both") return KernelSet{every};
  for (size_t i = 0; i < std::size(kKernels); ++i)
    if (name == kKernels[i]->name) return KernelSet{uint32_t(1) << i};
  return std::nullopt;
}
uint64_t RunResult::io_requests() const {
  uint64_t sum = 0;
  for (const KernelRun& r : runs)
    for (const SearchRecord& s : r.searches) sum += s.io.requests;
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

}  // namespace strata
