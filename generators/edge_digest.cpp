#include "generators/edge_digest.hpp"

#include <algorithm>
#include <vector>

namespace strata {

namespace {
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

inline uint64_t fnv_word(uint64_t h, uint64_t word) {
  for (int b = 0; b < 8; ++b) h = (h ^ ((word >> (8 * b)) & 0xFF)) * kFnvPrime;
  return h;
}
}  // namespace

EdgeListDigest digest_edge_list(const Kronecker& gen, const std::function<void(uint64_t, uint64_t)>& progress) {
  // The hash is serial by definition; generate blocks in parallel, hash each block in order.
  const uint64_t m = gen.spec().edge_count();
  const uint64_t block = uint64_t(1) << 20;
  std::vector<Edge> buffer(std::min(m, block));
  EdgeListDigest d{m, 0, kFnvOffset};
  for (uint64_t begin = 0; begin < m; begin += block) {
    const uint64_t end = std::min(m, begin + block), n = end - begin;
    gen.generate_parallel(begin, end, buffer.data());
    for (uint64_t i = 0; i < n; ++i) {
      d.self_loops += buffer[i].u == buffer[i].v;
      d.fnv1a64 = fnv_word(fnv_word(d.fnv1a64, buffer[i].u), buffer[i].v);
    }
    if (progress) progress(end, m);
  }
  return d;
}

}  // namespace strata
