#include "apps/report.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <type_traits>
#include <variant>

#include "core/error.hpp"
#include "core/units.hpp"
#include "storage/file.hpp"
#include "validate/stats.hpp"

namespace strata {

std::string format_block(const std::vector<std::pair<std::string, double>>& stats) {
  std::string out;
  for (const auto& [key, value] : stats) {
    const bool integral = key == "SCALE" || key == "edgefactor" || key == "NBFS" || key == "num_mpi_processes";
    out += integral ? fmt::format("{:<31} {}\n", key + ":", int64_t(value)) : fmt::format("{:<31} {:.17e}\n", key + ":", value);
  }
  return out;
}

void write_json_file(const std::string& path, const nlohmann::json& j) { write_output_file(path, j.dump(2) + "\n"); }

namespace {

// A kernel's figures (core/search_facts.hpp) as JSON keys.
void add_facts(nlohmann::json& j, const SearchFacts& facts) {
  for (const auto& [key, value] : facts.list)
    std::visit([&, k = key](auto v) {
      if constexpr (std::is_same_v<decltype(v), Hash64>) j[k] = fmt::format("0x{:016x}", v.value);
      else j[k] = v;
    }, value);
}

nlohmann::json placement_json(const RunResult& r) {
  const PlacementReport& p = r.placement;
  nlohmann::json j = {{"placement", p.tier->name}, {"csr_bytes", r.dram.graph}, {"memory_placement", p.memory_placement},
                      {"degree_count_in_kernel0_time", p.degree_count_in_kernel0_time}};
  if (!p.tier->on_storage) return j;
  j.update({{"dram_budget", r.dram.budget},
            {"on_mem_edges", p.on_mem_edges},
            {"on_mem_edges_all", p.on_mem_edges_all},
            {"hub_degree", p.hub_degree == kNoHubs ? nlohmann::json(nullptr) : nlohmann::json(p.hub_degree)},
            {"edge_cache_bytes", r.dram.edge_cache},
            {"state_bytes", r.dram.state},
            {"stream_buffer_bytes", r.dram.stream_buffers},
            {"adjacency_bytes", p.adjacency_bytes},
            {"csr_dir", p.csr_dir},
            {"csr_disk_bytes", p.csr_disk_bytes},
            {"tuple_file_bytes", p.tuple_file_bytes},
            {"csr_reused", p.csr_reused},
            {"csr_build_time", p.csr_build_time},
            {"csr_build_passes", p.csr_build_passes ? nlohmann::json(*p.csr_build_passes) : nlohmann::json(nullptr)},
            {"csr_build_renumbered_bytes", p.csr_build_renumbered_bytes},
            {"csr_build_tuple_passes", p.csr_build_tuple_passes ? nlohmann::json(*p.csr_build_tuple_passes) : nlohmann::json(nullptr)},
            {"csr_build_phase_seconds", p.csr_build ? nlohmann::json{{"count", p.csr_build->count_s},
                                                                   {"distribute", p.csr_build->distribute_s},
                                                                   {"fill", p.csr_build->fill_s},
                                                                   {"sort", p.csr_build->sort_s},
                                                                   {"write", p.csr_build->write_s}}
                                                  : nlohmann::json(nullptr)},
            {"csr_build_bytes", p.csr_build ? nlohmann::json{{"buckets_written", p.csr_build->renumbered_bytes},
                                                           {"buckets_read", p.csr_build->renumbered_bytes},
                                                           {"csr_written", p.csr_build->csr_bytes},
                                                           {"cache_prefixes_written", p.csr_build->prefix_bytes}}
                                            : nlohmann::json(nullptr)},
            {"cache_load_time", p.cache_load_time},
            {"cache_source", p.cache_source}});
  if (p.tier->in_place) {
    j["is_pmem"] = p.is_pmem;
    j["mapped_bytes"] = p.mapped_bytes;
  } else {
    j.update({{"io_buffer_bytes", r.io_buffer_bytes},
              {"io_depth", r.place.io.depth},
              {"io_request_bytes", r.place.io.request_bytes},
              {"direct_io", p.direct_io},
              {"registered_buffers", r.registered_buffers},
              {"bytes_read", r.bytes_read()},
              {"io_requests", r.io_requests()}});
  }
  return j;
}

// A search of any kernel: its root, time, nedge, TEPS and validation, then the kernel's own figures.
nlohmann::json search_json(const RunResult& r, const SearchRecord& s) {
  nlohmann::json j = {{"root", s.root},
                      {"time", s.time},
                      {"nedge", s.nedge},
                      {"teps", double(s.nedge) / s.time},
                      {"validate_time", s.validate_time},
                      {"valid", r.validate ? nlohmann::json(s.valid) : nlohmann::json(nullptr)}};
  add_facts(j, s.facts);
  return j;
}

std::string cache_k(const RunResult& r) {
  return r.placement.on_mem_edges_all ? "all" : std::to_string(r.placement.on_mem_edges);
}

nlohmann::json validation_json(const RunResult& r) {
  const bool csr = r.validation.method == ValidationMethod::kCsr, on_disk = csr && r.placement.tier->on_storage;
  return {{"validation_method", validation_method_name(r.validation.method)},
          {"validation_tuple_passes", r.validation.tuple_passes},
          {"validation_certificate_time", r.validation.certificate_time},
          {"validation_time", r.validation.time},
          {"validation_batch_bytes", r.dram.validation_batch},
          {"validation_csr_certified", csr && !on_disk},
          {"validation_csr_passes", r.validation.csr_passes},
          {"validation_csr_phase_seconds", nlohmann::json{{"spill", r.validation.csr_phases.spill},
                                                          {"tree", r.validation.csr_phases.tree},
                                                          {"rows", r.validation.csr_phases.rows},
                                                          {"read_wait", r.validation.csr_phases.read_wait},
                                                          {"check", r.validation.csr_phases.check}}},
          {"validation_spill_bytes", r.validation.spill_bytes},
          {"validation_lent_cache", r.validation.lent_cache},
          {"validation_cache_reload_time", r.validation.cache_reload_time}};
}

// MPI: each rank's part and what it used.
nlohmann::json ranks_json(const RunResult& r) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankReport& k : r.ranks) {
    ranks.push_back({{"rank", k.rank},
                     {"host", k.host},
                     {"threads", k.threads},
                     {"first_vertex", k.first_vertex},
                     {"end_vertex", k.end_vertex},
                     {"directed_edges", k.directed_edges},
                     {"dram_bytes", k.dram_bytes},
                     {"build_bytes_sent", k.build_bytes_sent},
                     {"search_bytes_sent", k.search_bytes_sent}});
    if (!k.rows_dir.empty())
      ranks.back().update({{"rows_dir", k.rows_dir},
                           {"rows_reused", k.rows_reused},
                           {"dram_budget", k.dram_budget},
                           {"on_mem_edges", k.on_mem_edges},
                           {"edge_cache_bytes", k.edge_cache_bytes},
                           {"disk_bytes", k.disk_bytes},
                           {"build_passes", k.build_passes},
                           {"build_bucket_bytes", k.build_bucket_bytes},
                           {"build_phase_seconds", k.rows_reused ? nlohmann::json(nullptr)
                                                                 : nlohmann::json{{"distribute", k.build_seconds.distribute},
                                                                                  {"fill", k.build_seconds.fill},
                                                                                  {"sort", k.build_seconds.sort},
                                                                                  {"write", k.build_seconds.write}}},
                           {"cache_source", k.cache_source},
                           {"cache_prefixes_written", k.cache_prefixes_written},
                           {"bytes_read", k.bytes_read}});
  }
  return ranks;
}

}  // namespace

nlohmann::json to_json(const RunResult& r) {
  nlohmann::json j;
  j["scale"] = r.spec.scale;
  j["edgefactor"] = r.spec.edgefactor;
  j["seed"] = {r.spec.seed1, r.spec.seed2};
  j["kernel"] = r.kernels.name();
  j["nbfs"] = r.roots();
  j["threads"] = r.threads;
  j["graph"] = r.graph_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.graph_dir);
  j["numa_parts"] = r.parts;
  j["partitions"] = r.partitions;
  j["numa_nodes"] = r.numa_nodes;
  j["id_bytes"] = r.id_bytes;
  j["alpha"] = r.bfs.alpha;
  j["beta"] = r.bfs.beta;
  j["validated"] = r.validate && r.ok();
  j["validate_batch"] = r.validate_batch;
  if (r.validate) j.update(validation_json(r));
  j["directed_edges"] = r.directed_edges;
  j.update(placement_json(r));
  if (r.placement.tier->memory_nodes) {
    j["mem_nodes"] = r.place.memory.mem_nodes;
    j["interleave"] = r.place.memory.interleave;
  }
  for (const auto& [key, value] : r.statistics) j[key] = value;
  if (!r.found(kBfsKernel)) j["searches"] = nlohmann::json::array();  // there when kernel 2 did not run, as before kernel 3
  for (const KernelRun& k : r.runs) {
    add_facts(j, k.settings);
    if (r.validate) add_facts(j, k.validation.json);
    j[k.kernel->json] = nlohmann::json::array();
    for (const SearchRecord& s : k.searches) j[k.kernel->json].push_back(search_json(r, s));
  }
  j["dram_bytes"] = r.dram_bytes;
  j["num_mpi_processes"] = r.mpi_processes;
  if (!r.ranks.empty()) j["mpi"] = {{"processes", r.mpi_processes}, {"partition", r.mpi_partition}, {"ranks", ranks_json(r)}};
  if (!r.ok()) j["error"] = r.failure;
  else j["measurement_warnings"] = r.measurement_warnings;
  return j;
}

// How the searches were validated, in one line after the block.
std::string validation_line(const RunResult& r) {
  const ValidationReport& v = r.validation;
  // The kernels checked their own way (kernel 3's rules), each a clause after kernel 2's method.
  std::string own;
  for (const KernelRun& k : r.runs)
    if (!k.validation.checked_by.empty())
      own += fmt::format("; {} {}{}", k.kernel->title, k.validation.checked_by,
                         k.validation.passes.empty() ? "" : ", " + k.validation.passes);
  const KernelRun* first = r.runs.empty() ? nullptr : &r.runs.front();
  if (first && !r.found(kBfsKernel) && !first->validation.passes.empty())  // on storage, alone: the line is its own
    return fmt::format("validation: every {} checked {} (its blocks' checksums checked; the CSR itself is not "
                       "certified against the input tuples, as with the reference's REUSE_CSR_FOR_VALIDATION), {}{} "
                       "({:.2f} s)\n",
                       first->kernel->search, first->validation.checked_by, first->validation.passes,
                       v.cache_reload_time > 0 ? fmt::format(", reloaded in {:.2f} s", v.cache_reload_time) : "", v.time);
  if (v.method == ValidationMethod::kCsr && r.placement.tier->on_storage) {
    std::string line = fmt::format(
        "validation: every search checked against kernel 1's on-disk CSR (its blocks' checksums checked; the CSR itself "
        "is not certified against the input tuples, as with the reference's REUSE_CSR_FOR_VALIDATION), {} of up to {} "
        "({:.2f} s",
        count_of(uint64_t(v.csr_passes), "pass"), count_of(uint64_t(r.validate_batch), "search"), v.time);
    if (v.lent_cache) line += fmt::format(", the edge cache lent to them and reloaded in {:.2f} s", v.cache_reload_time);
    if (v.tuple_passes > 0) line += "; " + count_of(uint64_t(v.tuple_passes), "deep tree") + " against the tuples";
    return line + ")" + own + "\n";
  }
  if (v.method == ValidationMethod::kCsr)
    return fmt::format("validation: every search checked against kernel 1's CSR in DRAM ({:.2f} s), which one pass "
                       "over the input tuples certified equal to them ({:.2f} s){}\n",
                       v.time, v.certificate_time, own);
  return fmt::format("validation: every search checked against the input tuples, {} of up to {} ({:.2f} s){}\n",
                     count_of(uint64_t(v.tuple_passes), "pass"), count_of(uint64_t(r.validate_batch), "search"), v.time,
                     own);
}

// Every kernel's searches.
static size_t searches(const RunResult& r) {
  size_t count = 0;
  for (const KernelRun& k : r.runs) count += k.searches.size();
  return count;
}

// MPI: ranks, threads, the partition's balance and what a search sent.
std::string mpi_line(const RunResult& r) {
  uint64_t most = 0, all = 0, sent = 0;
  for (const RankReport& k : r.ranks) {
    most = std::max(most, k.directed_edges);
    all += k.directed_edges;
    sent += k.search_bytes_sent;
  }
  const double mean = double(all) / double(r.ranks.size());
  return fmt::format("mpi: {} rank{} x {} thread{}, 1-D partition dealt in degree order (largest share of entries {:.3f}x the "
                     "mean), {} sent between ranks per search (mean)\n",
                     r.mpi_processes, r.mpi_processes == 1 ? "" : "s", r.threads, r.threads == 1 ? "" : "s",
                     mean > 0 ? double(most) / mean : 1.0,
                     human_bytes(double(sent) / double(std::max<size_t>(1, searches(r)))));
}

std::string format_run(const RunResult& r, const std::string& json_path) {
  if (!r.ok()) return r.failure + "\nNo statistics: a run with a failed validation has no results.\n";
  std::string out = format_block(r.statistics);
  if (r.placement.tier->in_place) {
    out += fmt::format("placement: {}\nis_pmem: {}\non_mem_edges: {}\nedge_cache_bytes: {}\n",
                       r.placement.tier->name, r.placement.is_pmem ? "true" : "false", cache_k(r),
                       human_bytes(double(r.dram.edge_cache)));
  } else if (r.placement.tier->on_storage) {
    out += fmt::format("placement: {}\ndram_budget: {}\non_mem_edges: {}\nedge_cache_bytes: {}\nbytes_read: {}\n"
                       "io_requests: {}\n",
                       r.placement.tier->name, human_bytes(double(r.dram.budget)), cache_k(r),
                       human_bytes(double(r.dram.edge_cache)), human_bytes(double(r.bytes_read())), r.io_requests());
  }
  if (r.placement.tier->on_storage)
    out += fmt::format("disk: {} of on-disk CSR in {}; tuples {}\n", human_bytes(double(r.placement.csr_disk_bytes)),
                       r.placement.csr_dir,
                       r.placement.tuple_file_bytes ? human_bytes(double(r.placement.tuple_file_bytes)) + " stored"
                                                    : std::string("regenerated by every pass (none stored)"));
  if (!r.ranks.empty()) out += mpi_line(r);
  if (!r.validate) out += "validation: skipped (--no-validate): these results cannot be submitted\n";
  else out += validation_line(r);
  return out + summary_line(r, json_path) + "\n";
}

std::string summary_line(const RunResult& r, const std::string& json_path) {
  uint64_t valid = 0, count = 0;
  std::string speed;
  const auto timed = r.timed();
  for (const auto& [kernel, searches] : timed) {
    valid += uint64_t(std::count_if(searches->begin(), searches->end(), [](const SearchRecord& s) { return s.valid; }));
    count += searches->size();
    const std::string k = kernel->name;
    if (!speed.empty()) speed += ", ";
    if (timed.size() > 1 || kernel != &kBfsKernel) speed += std::string(kernel->title) + " ";  // BFS alone: as always
    speed += fmt::format("{:.3g} GTEPS harmonic mean (min {:.3g}, max {:.3g})", r.statistic(k + "_harmonic_mean_TEPS") / 1e9,
                         r.statistic(k + "_min_TEPS") / 1e9, r.statistic(k + "_max_TEPS") / 1e9);
  }
  const std::string checked = r.validate && r.ok() ? fmt::format("{} of {} searches validated", valid, count)
                                                   : fmt::format("{} searches NOT validated", count);
  std::string line = fmt::format("summary: SCALE {}, {}, {}, {}, {}", r.spec.scale, r.placement.tier->name, checked, speed,
                                 json_path.empty() ? "no JSON (--json FILE)" : "JSON in " + json_path);
  for (const std::string& w : r.measurement_warnings) line += "; warning: " + w;
  return line;
}

}  // namespace strata
