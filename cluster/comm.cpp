#include "cluster/comm.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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

namespace {
void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(fmt::format("MPI {} failed: {}", what, std::string(text, size_t(len))));
}
constexpr int kAlarmTag = 1;
// How long the ending waits for every rank to join it. A rank deep in local work (a long build step) joins at its
// next collective; one that died never does: then the failed rank says why itself and MPI_Abort ends the rest.
constexpr double kEndingSeconds = 60;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Between polls of a request, after a few thousand of them, gives the core away: with more ranks than cores
// (mpirun --oversubscribe), ranks spinning in a collective starved the one still working -- kernel 3's thousands
// of collectives a search at -np 3 on 2 cores took 7 s instead of 0.01 s; ranks already in an ending spun on the
// cores the ranks still working (a long build step, a lock's retry) needed to reach it.
void yield_after(int polls) {
  if (polls > 4096) ::sched_yield();
}

// Waits for a collective of the ending (on the alarm communicator) until the deadline; false if it passed.
bool wait_until(MPI_Request& request, double deadline) {
  for (int polls = 0;; ++polls) {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done) return true;
    if (seconds_now() > deadline) return false;
    yield_after(polls);
  }
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
  check(MPI_Comm_dup(MPI_COMM_WORLD, &alarm_), "Comm_dup");
  MPI_Comm_set_errhandler(alarm_, MPI_ERRORS_RETURN);
}
Comm::~Comm() { MPI_Comm_free(&alarm_); }

int Comm::cores_per_rank() const { return std::max(1, omp_get_num_procs() / local_size_); }

// Polls rather than blocks (an alarm must be heard), giving its core away between polls (yield_after).
void Comm::wait(MPI_Request& request, const char* what) const {
  for (int polls = 0;; ++polls) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    yield_after(polls);
    int alarm = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kAlarmTag, alarm_, &alarm, &status), "Iprobe");
    if (alarm) ending(INT_MAX, {}, true);  // another rank failed: this one did not
  }
}

void Comm::complete(int started, MPI_Request& request, const char* what) const {
  check(started, what);
  wait(request, what);
}

void Comm::fail(const std::string& message) const {
  static int note = 0;  // the alarm carries nothing: the ending says who failed and why
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    MPI_Request request;  // a tiny message: sent eagerly, whether or not the rank ever receives it
    if (MPI_Isend(&note, 1, MPI_INT, r, kAlarmTag, alarm_, &request) == MPI_SUCCESS) MPI_Request_free(&request);
  }
  ending(rank_, message, true);
}

void Comm::agree(const std::string& error, bool name_rank) const {
  uint64_t failed = error.empty() ? UINT64_MAX : uint64_t(rank_);
  MPI_Request request;
  complete(MPI_Iallreduce(MPI_IN_PLACE, &failed, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD, &request), request,
           "Iallreduce");
  if (failed == UINT64_MAX) return;
  ending(error.empty() ? INT_MAX : rank_, error, name_rank || failed != 0);
}

int Comm::finish(int status) const {
  std::fflush(stdout);
  std::fflush(stderr);
  return int(max(uint64_t(status)));
}

// Every rank, whether it failed (failed_rank is its own) or learned of a failure (INT_MAX): agree on the lowest
// failed rank, bring its message to rank 0, which prints it; flush; wait until all have; exit 1 together. On the
// alarm communicator, so collectives left unfinished on the world do not mix with these.
void Comm::ending(int failed_rank, const std::string& message, bool name_rank) const {
  const double deadline = seconds_now() + kEndingSeconds + (failed_rank == rank_ ? 0 : 5);
  MPI_Request request;
  auto done = [&](int started) { return started == MPI_SUCCESS && wait_until(request, deadline); };
  int lowest = failed_rank;
  bool agreed = done(MPI_Iallreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, alarm_, &request));
  uint64_t length = message.size();
  if (agreed && lowest != INT_MAX) agreed = done(MPI_Ibcast(&length, 1, MPI_UINT64_T, lowest, alarm_, &request));
  std::string text = rank_ == lowest ? message : std::string(length, '\0');
  if (agreed && lowest != INT_MAX && length > 0)
    agreed = done(MPI_Ibcast(text.data(), as_count(length, "a message"), MPI_CHAR, lowest, alarm_, &request));
  const std::string who = fmt::format("rank {} of {}: ", agreed ? lowest : failed_rank, size_);
  if (!agreed) {  // a rank never came: the failed rank says why itself, then MPI ends them all
    if (failed_rank == rank_) std::fprintf(stderr, "strata: error: %s%s\n", who.c_str(), message.c_str());
    else std::fprintf(stderr, "strata: error: rank %d of %d: a rank failed and not every rank joined the ending\n",
                      rank_, size_);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::_Exit(1);
  }
  if (rank_ == 0) {
    if (::isatty(STDERR_FILENO)) std::fputs("\r\033[K", stderr);  // a progress line drawn on the terminal
    std::fprintf(stderr, "strata: error: %s%s\n", name_rank ? who.c_str() : "", text.c_str());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  if (!done(MPI_Ibarrier(alarm_, &request))) {
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::_Exit(1);
  }
  MPI_Finalize();  // collectives some ranks left unfinished are dropped with the world
  std::_Exit(1);
}

void Comm::barrier() const {
  MPI_Request request;
  complete(MPI_Ibarrier(MPI_COMM_WORLD, &request), request, "Ibarrier");
}

uint64_t Comm::sum(uint64_t x) const {
  sum_in_place(std::span<uint64_t>(&x, 1));
  return x;
}
uint64_t Comm::max(uint64_t x) const {
  reduce_in_place(&x, 1, MPI_UINT64_T, MPI_MAX);
  return x;
}
double Comm::max(double x) const {
  reduce_in_place(&x, 1, MPI_DOUBLE, MPI_MAX);
  return x;
}
void Comm::sum_in_place(std::span<uint64_t> xs) const { reduce_in_place(xs.data(), xs.size(), MPI_UINT64_T, MPI_SUM); }
void Comm::sum_in_place(std::span<uint32_t> xs) const { reduce_in_place(xs.data(), xs.size(), MPI_UINT32_T, MPI_SUM); }
void Comm::max_in_place(std::span<uint64_t> xs) const { reduce_in_place(xs.data(), xs.size(), MPI_UINT64_T, MPI_MAX); }

void Comm::reduce_in_place(void* xs, size_t count, MPI_Datatype type, MPI_Op op) const {
  int item = 0;
  MPI_Type_size(type, &item);
  for (size_t at = 0; at < count; at += INT_MAX / 2) {  // large arrays in int-sized pieces
    const int n = int(std::min<size_t>(INT_MAX / 2, count - at));
    MPI_Request request;
    char* at_item = static_cast<char*>(xs) + at * size_t(item);
    complete(MPI_Iallreduce(MPI_IN_PLACE, at_item, n, type, op, MPI_COMM_WORLD, &request), request, "Iallreduce");
  }
}

void Comm::exscan_in_place(std::span<uint64_t> xs) const {
  std::vector<uint64_t> mine(xs.begin(), xs.end());
  for (size_t at = 0; at < xs.size(); at += INT_MAX / 2) {
    const int n = int(std::min<size_t>(INT_MAX / 2, xs.size() - at));
    MPI_Request request;
    complete(MPI_Iexscan(mine.data() + at, xs.data() + at, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, &request),
             request, "Iexscan");
  }
  if (rank_ == 0) std::fill(xs.begin(), xs.end(), 0);  // MPI leaves rank 0's result undefined
}

void Comm::exchange_counts(const std::vector<uint64_t>& counts, std::vector<uint64_t>& got) const {
  got.assign(size_, 0);
  MPI_Request request;
  complete(MPI_Ialltoall(counts.data(), 1, MPI_UINT64_T, got.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD, &request),
           request, "Ialltoall");
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
  MPI_Request request;
  const int code =
      MPI_Ialltoallv(send, sc.data(), sd.data(), type, recv, rc.data(), rd.data(), type, MPI_COMM_WORLD, &request);
  if (code == MPI_SUCCESS) wait(request, "Ialltoallv");
  MPI_Type_free(&type);
  check(code, "Ialltoallv");
}

void Comm::allgather_words(uint64_t* words, const std::vector<uint64_t>& first, const std::vector<uint64_t>& count,
                           uint64_t* sent) const {
  std::vector<int> counts(size_), displs(size_);
  for (int r = 0; r < size_; ++r) {
    counts[r] = as_count(count[r], "a bitmap gather");
    displs[r] = as_count(first[r], "a bitmap gather's displacement");
  }
  if (sent) *sent += uint64_t(counts[rank_]) * sizeof(uint64_t) * uint64_t(size_ - 1);
  MPI_Request request;
  complete(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, words, counts.data(), displs.data(), MPI_UINT64_T,
                          MPI_COMM_WORLD, &request),
           request, "Iallgatherv");
}

void Comm::allgather_bytes(const void* mine, uint64_t bytes, void* all) const {
  const int count = as_count(bytes, "a gather");
  MPI_Request request;
  complete(MPI_Iallgather(mine, count, MPI_BYTE, all, count, MPI_BYTE, MPI_COMM_WORLD, &request), request,
           "Iallgather");
}

std::string Comm::broadcast(const std::string& text, int from) const {
  uint64_t len = text.size();
  MPI_Request request;
  complete(MPI_Ibcast(&len, 1, MPI_UINT64_T, from, MPI_COMM_WORLD, &request), request, "Ibcast");
  std::string out = rank_ == from ? text : std::string(len, '\0');
  complete(MPI_Ibcast(out.data(), as_count(len, "a broadcast"), MPI_CHAR, from, MPI_COMM_WORLD, &request), request,
           "Ibcast");
  return out;
}

}  // namespace strata
