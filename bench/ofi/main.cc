// trnccl-ofi-bw: raw libfabric tagged bandwidth between two processes of this
// host, the peer that trnccl's ofi transport is measured against (README,
// "Performance"). Forks the two ranks, which swap endpoint names and keep in
// step over a socket pair.
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "exchange.h"
#include "logic/usage_error.h"
#include "nccl_tests/sizes.h"
#include "options.h"
#include "raw_endpoint.h"

using namespace trnccl::ofi_bench;

namespace {

void writeAll(int fd, const void* data, size_t bytes) {
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = write(fd, static_cast<const char*>(data) + done, bytes - done);
    if (n <= 0) throw std::runtime_error(std::string("socket write: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

void readAll(int fd, void* data, size_t bytes) {
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = read(fd, static_cast<char*>(data) + done, bytes - done);
    if (n <= 0) throw std::runtime_error("socket read: the other rank is gone");
    done += static_cast<size_t>(n);
  }
}

// Both ranks send `value`; each gets the other's.
template <class T>
T swap(int fd, const T& value) {
  T theirs{};
  writeAll(fd, &value, sizeof value);
  readAll(fd, &theirs, sizeof theirs);
  return theirs;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

int runRank(const Options& options, int rank, int fd) {
  const std::vector<size_t> sizes =
      trnccl::perf::size_sweep(options.min_bytes, options.max_bytes, options.step_factor, 1);
  const size_t largest = sizes.back();
  std::vector<char> buffer(2 * largest);  // out, then in: one registration
  char* out = buffer.data();
  char* in = buffer.data() + largest;
  std::fill(out, out + largest, static_cast<char>(rank + 1));
  RawEndpoint endpoint(options.provider, buffer.data(), buffer.size());
  const std::vector<uint8_t> mine = endpoint.name();
  const auto theirLength = swap(fd, mine.size());
  std::vector<uint8_t> theirs(theirLength);
  writeAll(fd, mine.data(), mine.size());
  readAll(fd, theirs.data(), theirs.size());
  endpoint.addPeer(theirs);
  if (rank == 0) {
    std::printf("# trnccl-ofi-bw: provider %s (fabric %s), 2 ranks (processes), chunks of %zu B, window %d\n",
                options.provider.c_str(), endpoint.fabricName().c_str(), options.chunk_bytes, options.window);
    std::printf("# both ranks send SIZE bytes to each other at once; time: the slower rank's median of %d\n",
                options.iters);
    std::printf("#%12s %12s %12s %8s\n", "size", "time", "GB/s", "#wrong");
    std::printf("#%12s %12s %12s %8s\n", "(B)", "(us)", "(per dir)", "");
  }
  int wrong = 0;
  for (const size_t bytes : sizes) {
    std::vector<double> times;
    for (int i = 0; i < options.warmup_iters + options.iters; ++i) {
      std::fill(in, in + bytes, 0);
      swap(fd, char{0});  // a barrier
      const auto start = std::chrono::steady_clock::now();
      exchange(endpoint, out, in, bytes, options.chunk_bytes, options.window);
      const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double slower = std::max(mine, swap(fd, mine));
      if (i >= options.warmup_iters) times.push_back(slower);
    }
    const bool ok = std::all_of(in, in + bytes, [&](char c) { return c == static_cast<char>(2 - rank); });
    const int wrongHere = ok ? 0 : 1;
    wrong += wrongHere + swap(fd, wrongHere);
    if (rank == 0) {
      const double t = median(times);
      std::printf(" %12zu %12.1f %12.2f %8d\n", bytes, t * 1e6, static_cast<double>(bytes) / t / 1e9,
                  wrongHere + (wrong > 0 ? 1 : 0));
    }
  }
  return wrong == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const trnccl::perf::UsageError& error) {
    std::fprintf(stderr, "trnccl-ofi-bw: %s\n%s", error.what(), usage_text().c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
    std::perror("trnccl-ofi-bw: socketpair");
    return 1;
  }
  std::fflush(nullptr);  // the child must not write the parent's buffered output again
  const pid_t child = fork();
  if (child < 0) {
    std::perror("trnccl-ofi-bw: fork");
    return 1;
  }
  const int rank = child == 0 ? 1 : 0;
  close(fds[1 - rank]);
  int status = 1;
  try {
    status = runRank(options, rank, fds[rank]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trnccl-ofi-bw: rank %d: %s\n", rank, e.what());
  }
  std::fflush(nullptr);
  close(fds[rank]);  // the other rank's reads fail now instead of waiting forever
  if (rank == 1) _exit(status);
  int childStatus = 0;
  waitpid(child, &childStatus, 0);
  const bool childOk = WIFEXITED(childStatus) && WEXITSTATUS(childStatus) == 0;
  return status != 0 ? status : (childOk ? 0 : 1);
}
