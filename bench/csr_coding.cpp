// How small kernel 1's CSR would be with each list delta-coded (issue 24's moonshot, SCALE 29 under 7 GiB: on
// this machine's disk it needs a compressed on-disk CSR). Builds the CSR in DRAM and codes every sorted list as
// its first id, then the gaps, each a varint (7 bits a byte), without writing it anywhere.
// build/bench/csr_coding SCALE... prints CSV: the entries, bytes an entry as stored today (4-byte ids) and coded,
// and the same for the lists of 1024 entries or more (the hubs, which most entries belong to).
#include <cstdio>
#include <cstdlib>

#include "engine/build_csr.hpp"
#include "generators/edge_stream.hpp"

using namespace strata;

namespace {

int varint_bytes(uint64_t x) {
  int bytes = 1;
  for (; x >= 0x80; x >>= 7) ++bytes;
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: csr_coding SCALE...\n");
    return 2;
  }
  std::printf("scale,entries,id_bytes_per_entry,coded_bytes_per_entry,hub_share,hub_coded_bytes_per_entry\n");
  for (int i = 1; i < argc; ++i) {
    const int scale = std::atoi(argv[i]);
    const Csr<uint32_t> g = build_csr<uint32_t>(GeneratedEdges{Kronecker({scale, 16, 2, 3})});
    uint64_t coded = 0, hub_entries = 0, hub_coded = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : coded, hub_entries, hub_coded)
    for (uint64_t v = 0; v < g.n; ++v) {
      uint64_t bytes = 0, previous = 0;
      for (const uint32_t w : g.neighbors(v)) bytes += varint_bytes(w - previous), previous = w;
      coded += bytes;
      if (g.degree(v) >= 1024) hub_entries += g.degree(v), hub_coded += bytes;
    }
    const double entries = double(g.directed_edges());
    std::printf("%d,%.0f,%zu,%.3f,%.3f,%.3f\n", scale, entries, sizeof(uint32_t), double(coded) / entries,
                double(hub_entries) / entries, hub_entries > 0 ? double(hub_coded) / double(hub_entries) : 0.0);
  }
  return 0;
}
