#include "cluster/comm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"

namespace strata {

bool launched_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr; }

MpiSession::MpiSession(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  // Errors come back as codes (checked below) instead of ending the process with MPI's own message.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}
MpiSession::~MpiSession() { MPI_Finalize(); }

void abort_all_ranks(const std::string& message) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::fprintf(stderr, "strata: error: rank %d of %d: %s\n", rank, size, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

namespace {
void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(fmt::format("MPI {} failed: {}", what, std::string(text, size_t(len))));
}
int as_count(uint64_t n, const char* what) {
  if (n > uint64_t(INT_MAX)) throw Error(fmt::format("{}: {} items to one rank exceed MPI's int counts", what, n));
  return int(n);
}
}  // namespace

Comm::Comm() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local), "Comm_split_type");
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
}

void Comm::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "Barrier"); }
uint64_t Comm::sum(uint64_t x) const {
  uint64_t r = 0;
  check(MPI_Allreduce(&x, &r, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "Allreduce");
  return r;
}
uint64_t Comm::max(uint64_t x) const {
  uint64_t r = 0;
  check(MPI_Allreduce(&x, &r, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD), "Allreduce");
  return r;
}
double Comm::max(double x) const {
  double r = 0;
  check(MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "Allreduce");
  return r;
}
void Comm::sum_in_place(std::span<uint64_t> xs) const {
  for (size_t at = 0; at < xs.size(); at += INT_MAX / 2) {  // large arrays in int-sized pieces
    const int n = int(std::min<size_t>(INT_MAX / 2, xs.size() - at));
    check(MPI_Allreduce(MPI_IN_PLACE, xs.data() + at, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "Allreduce");
  }
}
void Comm::sum_in_place(std::span<uint32_t> xs) const {
  for (size_t at = 0; at < xs.size(); at += INT_MAX / 2) {
    const int n = int(std::min<size_t>(INT_MAX / 2, xs.size() - at));
    check(MPI_Allreduce(MPI_IN_PLACE, xs.data() + at, n, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD), "Allreduce");
  }
}

void Comm::exscan_in_place(std::span<uint64_t> xs) const {
  std::vector<uint64_t> mine(xs.begin(), xs.end());
  for (size_t at = 0; at < xs.size(); at += INT_MAX / 2) {
    const int n = int(std::min<size_t>(INT_MAX / 2, xs.size() - at));
    check(MPI_Exscan(mine.data() + at, xs.data() + at, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "Exscan");
  }
  if (rank_ == 0) std::fill(xs.begin(), xs.end(), 0);  // MPI leaves rank 0's result undefined
}

void Comm::exchange_counts(const std::vector<uint64_t>& counts, std::vector<uint64_t>& got) const {
  got.assign(size_, 0);
  check(MPI_Alltoall(counts.data(), 1, MPI_UINT64_T, got.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD), "Alltoall");
}

void Comm::alltoallv(const void* send, const std::vector<uint64_t>& counts, void* recv, const std::vector<uint64_t>& got,
                     size_t item, uint64_t* sent) const {
  MPI_Datatype type;
  check(MPI_Type_contiguous(int(item), MPI_BYTE, &type), "Type_contiguous");
  MPI_Type_commit(&type);
  std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
  uint64_t s_at = 0, r_at = 0;
  for (int d = 0; d < size_; ++d) {
    sc[d] = as_count(counts[d], "an exchange");
    rc[d] = as_count(got[d], "an exchange");
    sd[d] = as_count(s_at, "an exchange's displacement");
    rd[d] = as_count(r_at, "an exchange's displacement");
    s_at += counts[d];
    r_at += got[d];
    if (sent && d != rank_) *sent += counts[d] * item;
  }
  const int code = MPI_Alltoallv(send, sc.data(), sd.data(), type, recv, rc.data(), rd.data(), type, MPI_COMM_WORLD);
  MPI_Type_free(&type);
  check(code, "Alltoallv");
}

void Comm::allgather_words(uint64_t* words, const std::vector<uint64_t>& first, const std::vector<uint64_t>& count,
                           uint64_t* sent) const {
  std::vector<int> counts(size_), displs(size_);
  for (int r = 0; r < size_; ++r) {
    counts[r] = as_count(count[r], "a bitmap gather");
    displs[r] = as_count(first[r], "a bitmap gather's displacement");
  }
  if (sent) *sent += uint64_t(counts[rank_]) * sizeof(uint64_t) * uint64_t(size_ - 1);
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, words, counts.data(), displs.data(), MPI_UINT64_T,
                       MPI_COMM_WORLD),
        "Allgatherv");
}

void Comm::allgather_bytes(const void* mine, uint64_t bytes, void* all) const {
  const int count = as_count(bytes, "a gather");
  check(MPI_Allgather(mine, count, MPI_BYTE, all, count, MPI_BYTE, MPI_COMM_WORLD), "Allgather");
}

std::string Comm::broadcast(const std::string& text, int from) const {
  uint64_t len = text.size();
  check(MPI_Bcast(&len, 1, MPI_UINT64_T, from, MPI_COMM_WORLD), "Bcast");
  std::string out = rank_ == from ? text : std::string(len, '\0');
  check(MPI_Bcast(out.data(), as_count(len, "a broadcast"), MPI_CHAR, from, MPI_COMM_WORLD), "Bcast");
  return out;
}

}  // namespace strata
