// `strata --version`, in a file of its own: the commit is a compile definition (apps/CMakeLists.txt), and each
// commit recompiled all of main.cpp for it (33 s).
#include "apps/version.hpp"

#include <fmt/format.h>

namespace strata {

std::string version_text() {
  return fmt::format("strata {}\ncommit: {}\nbuild: {}{}\n-march=native: {}\nparts: OpenMP, libnuma, io_uring (liburing), "
                     "libpmem, xxhash{}\n",
                     STRATA_VERSION, STRATA_COMMIT, STRATA_BUILD_TYPE, STRATA_SANITIZED ? " + ASan/UBSan" : "",
                     STRATA_MARCH_NATIVE ? "yes (this binary may not run on older CPUs; -DSTRATA_NATIVE=OFF to build without)" : "no",
                     STRATA_WITH_MPI ? ", Open MPI" : "; not compiled in: Open MPI");
}

}  // namespace strata
