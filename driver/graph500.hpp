// The Graph500 driver: kernel 0 (or a graph directory), kernel 1 for the placement (engine/prepare.hpp), the
// reference's roots, one untimed warm-up, each search timed alone, every search validated as it ends
// (search_validation.hpp, planned by validation_plan.hpp), and the official statistics (statistics.hpp) --
// returned as a typed RunResult (run_result.hpp) that apps/ formats (block, JSON, tables, CSV, plots).
#pragma once
#include <string>

#include "driver/run_result.hpp"
#include "driver/statistics.hpp"
#include "storage/atomic_dir.hpp"

namespace strata {

// Held for a run's whole length: `generate --force` cannot replace the graph directory (nor its CSR) under it.
// A lock held only for a moment (a --force that is refused, a probe) is waited out for up to 2 s. No directory
// (generated on the fly): nothing to hold.
DirLock lock_graph_dir(const std::string& dir);

// 64-bit vertex ids: above SCALE 31, or where --debug-id-bytes 8 asks (then rows and messages are twice the size).
bool wide_ids(const RunConfig& cfg, int scale);

// What both drivers check of a run on a graph of `scale` before any work: kernel 3's id width, and --mem-nodes
// and --interleave against the tier and this machine's nodes.
void check_run_config(const RunConfig& cfg, int scale);

// Every refusal run_graph500 makes before its work (flags, memory, a tiered run's budget and disk), without the
// work: `compare` checks each placement before it runs the first.
void check_run(const RunConfig& config);

// Runs kernel 1, the searches and their validation. Errors (bad input, I/O, memory) throw Error; a search that
// fails validation is a result with failure set and no statistics.
RunResult run_graph500(const RunConfig& config, const RunHooks& hooks = {});

}  // namespace strata
