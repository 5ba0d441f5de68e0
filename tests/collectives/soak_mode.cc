#include "soak_mode.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

namespace trnccl::test {

int runSoakMode(trncclComm_t comm, int rank, int nranks, double seconds, int timeoutMs, const std::string& readyDir) {
  using std::chrono::steady_clock;
  auto msSince = [](steady_clock::time_point from) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(steady_clock::now() - from).count();
  };
  constexpr size_t kCount = 64 * 1024 + 5;  // 256 KiB: rendezvous-sized over tcp
  const auto start = std::chrono::steady_clock::now();
  std::vector<float> data(kCount);
  const float ranksSum = static_cast<float>(nranks * (nranks + 1) / 2);
  for (int calls = 0;; ++calls) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    data[0] = rank == 0 && elapsed < seconds ? 1.0f : 0.0f;  // rank 0: go on
    for (size_t i = 1; i < kCount; ++i) data[i] = static_cast<float>((rank + 1) * (i % 13 + 1));
    const auto callStart = steady_clock::now();
    if (trncclAllReduce(data.data(), data.data(), kCount, trncclFloat32, trncclSum, comm, nullptr) != trncclSuccess) {
      const long long callMs = msSince(callStart);
      const std::string why = trncclGetLastError(comm);
      const auto abortStart = steady_clock::now();
      trncclCommAbort(comm);
      std::fprintf(stderr, "ERROR rank %d after %d all-reduces, the call's %lld ms, abort's %lld ms: %s\n", rank, calls,
                   callMs, static_cast<long long>(msSince(abortStart)), why.c_str());
      if (why.empty()) return 1;
      return timeoutMs <= 0 || callMs <= 2LL * timeoutMs ? 4 : 5;
    }
    for (size_t i = 1; i < kCount; ++i) {
      if (data[i] == ranksSum * static_cast<float>(i % 13 + 1)) continue;
      std::fprintf(stderr, "MISMATCH rank %d: all-reduce %d, element %zu is %g\n", rank, calls, i,
                   static_cast<double>(data[i]));
      trncclCommAbort(comm);
      return 1;
    }
    if (calls == 0 && !readyDir.empty()) {
      // Whole when it appears: a test reads the pid to stop this rank.
      const std::string ready = readyDir + "/" + std::to_string(rank);
      std::ofstream(ready + ".tmp") << getpid() << "\n";
      std::rename((ready + ".tmp").c_str(), ready.c_str());
    }
    if (data[0] == 0.0f) break;
  }
  return trncclCommDestroy(comm) == trncclSuccess ? 0 : 1;
}

}  // namespace trnccl::test
