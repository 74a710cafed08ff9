// The MPI communicator a distributed run talks through: rank and size, the session (MPI_Init/Finalize as an
// RAII owner), typed all-to-all exchanges that count the bytes they send, bitmap gathers and reductions, and
// the one way a run ends: every rank agrees on the outcome, rank 0 speaks, output is flushed, then all exit
// with one status (MPI_Abort only for what cannot be agreed, such as a rank that died).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace strata {

// Whether this process was started by mpirun (Open MPI's environment): only then is MPI initialised, so a
// plain `strata run` behaves exactly as without MPI.
bool launched_by_mpirun();

class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);  // MPI_Init_thread(FUNNELED): OpenMP threads inside, MPI on the main one
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// How a run ends under mpirun. Every collective below waits while listening for an alarm: a rank that fails
// on its own (an I/O error, a damaged file) sends one to every rank, so ranks waiting for it learn of it instead of
// waiting forever. Then all ranks meet in the ending: the lowest failed rank's message is printed once, by rank
// 0, as "strata: error: rank R of P: message"; stdout and stderr are flushed on every rank; all exit 1. The stack
// of a rank that learns of the failure inside a collective is not unwound: that collective's buffers stay valid
// while MPI may still write them.
class Comm {
 public:
  Comm();  // MPI_COMM_WORLD, and a duplicate of it for the alarms and the ending
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  // This rank failed: tell every rank, meet them in the ending. Collective in effect, callable anywhere.
  [[noreturn]] void fail(const std::string& message) const;
  // Collective: every rank says whether it refuses to go on (`error` empty: it does not). If any does, the run
  // ends with the lowest such rank's message, named "rank R of P: " unless `name_rank` is false and R is 0.
  void agree(const std::string& error, bool name_rank = true) const;
  // Collective: runs `step` on every rank; a rank whose step throws refuses (agree) with the exception's text.
  template <class Step>
  void all_or_none(Step&& step) const {
    std::string error;
    try {
      step();
    } catch (const std::bad_alloc&) {
      error = "out of memory";
    } catch (const std::exception& e) {
      error = e.what();
    }
    agree(error);
  }
  // Collective, the last call of a run that did not fail: flushes this rank's output, waits until every rank
  // has, and returns the largest status any rank passed (so all ranks exit alike, after rank 0 has spoken).
  int finish(int status) const;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int ranks_on_this_node() const { return local_size_; }
  // This node's cores shared by its ranks (at least 1): a rank's OpenMP threads when --threads is not given. More
  // threads than cores spin in OpenMP's barriers while the threads they wait for have no core (4 ranks of 2
  // threads on 2 cores: cluster_test took 9 s instead of 0.1 s).
  int cores_per_rank() const;
  bool root() const { return rank_ == 0; }

  void barrier() const;
  uint64_t sum(uint64_t x) const;
  uint64_t max(uint64_t x) const;
  double max(double x) const;
  void sum_in_place(std::span<uint64_t> xs) const;
  void sum_in_place(std::span<uint32_t> xs) const;
  void max_in_place(std::span<uint64_t> xs) const;
  // xs[i] becomes the sum of xs[i] over the lower ranks (0 on rank 0).
  void exscan_in_place(std::span<uint64_t> xs) const;

  // Sends send[d] to rank d for every d and returns what every rank sent here, in rank order. Adds the bytes
  // sent to other ranks to *sent.
  template <class T>
  std::vector<T> exchange(const std::vector<std::vector<T>>& send, uint64_t* sent = nullptr) const {
    std::vector<uint64_t> counts(size_);
    std::vector<T> flat;
    for (int d = 0; d < size_; ++d) {
      counts[d] = send[d].size();
      flat.insert(flat.end(), send[d].begin(), send[d].end());
    }
    return exchange(flat, counts, sent);
  }
  // The same with the send buffer already grouped by destination (counts[d] items for rank d, in order).
  template <class T>
  std::vector<T> exchange(const std::vector<T>& flat, const std::vector<uint64_t>& counts, uint64_t* sent = nullptr) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> received;
    exchange_bytes(flat.data(), counts, sizeof(T), received_counts_, [&](uint64_t n) {
      received.resize(n);
      return static_cast<void*>(received.data());
    }, sent);
    return received;
  }
  // Items each rank sent in the last exchange (rank order), e.g. to send replies back.
  const std::vector<uint64_t>& received_counts() const { return received_counts_; }

  // A value for each key from the rank that holds it (collective, one exchange each way): keys grouped by rank
  // (counts[r] for rank r, this one included), each answered where it arrives by answer(key); the values come
  // back in the order asked.
  template <class V, class K, class Answer>
  std::vector<V> ask(const std::vector<K>& keys, const std::vector<uint64_t>& counts, Answer&& answer,
                     uint64_t* sent = nullptr) const {
    const std::vector<K> asked = exchange(keys, counts, sent);
    const std::vector<uint64_t> back = received_counts_;
    std::vector<V> values(asked.size());
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < asked.size(); ++k) values[k] = answer(asked[k]);
    return exchange(values, back, sent);
  }

  // Every rank's `mine` (the same size on every rank), concatenated in rank order.
  template <class T>
  std::vector<T> allgather(const std::vector<T>& mine) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> all(mine.size() * size_t(size_));
    allgather_bytes(mine.data(), mine.size() * sizeof(T), all.data());
    return all;
  }

  // words[first[r] .. first[r] + count[r]) is rank r's part: fills in every other rank's part.
  void allgather_words(uint64_t* words, const std::vector<uint64_t>& first, const std::vector<uint64_t>& count,
                       uint64_t* sent = nullptr) const;

  // Rank `from`'s string on every rank.
  std::string broadcast(const std::string& text, int from) const;

 private:
  template <class Alloc>
  void exchange_bytes(const void* send, const std::vector<uint64_t>& counts, size_t item, std::vector<uint64_t>& got,
                      Alloc&& alloc, uint64_t* sent) const {
    exchange_counts(counts, got);
    void* recv = alloc(total(got));
    alltoallv(send, counts, recv, got, item, sent);
  }
  static uint64_t total(const std::vector<uint64_t>& counts) {
    uint64_t t = 0;
    for (uint64_t c : counts) t += c;
    return t;
  }
  void exchange_counts(const std::vector<uint64_t>& counts, std::vector<uint64_t>& got) const;
  void reduce_in_place(void* xs, size_t count, MPI_Datatype type, MPI_Op op) const;
  void allgather_bytes(const void* mine, uint64_t bytes, void* all) const;
  void alltoallv(const void* send, const std::vector<uint64_t>& counts, void* recv, const std::vector<uint64_t>& got,
                 size_t item, uint64_t* sent) const;

  // Waits for a started collective; an alarm from a failed rank ends this rank there (see the class comment).
  void wait(MPI_Request& request, const char* what) const;
  // A collective just started (`started`: its return code) and waited for, as wait(); a failure to start throws.
  void complete(int started, MPI_Request& request, const char* what) const;
  [[noreturn]] void ending(int failed_rank, const std::string& message, bool name_rank) const;

  int rank_ = 0, size_ = 1, local_size_ = 1;
  MPI_Comm alarm_ = MPI_COMM_NULL;
  mutable std::vector<uint64_t> received_counts_;
};

}  // namespace strata
