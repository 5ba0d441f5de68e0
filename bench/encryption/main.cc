// trnccl-encryption-bench: what encrypting trnccl's sockets costs. Runs a
// float all-reduce over the tcp transport between ranks (threads of this
// process, on loopback) at 8 B, 1 MiB and 64 MiB with encryption off and on,
// and prints the bus bandwidth of each next to AES-128-GCM's own speed on this
// machine (`openssl speed -evp aes-128-gcm`, 16 KiB blocks: a TLS record).
// Goal: encrypted at 64 MiB >= 0.8 x min(plaintext, cipher).
//
//   trnccl-encryption-bench [ranks (default 2)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "trnccl/trnccl.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Size {
  size_t bytes;
  int iterations;
};
constexpr Size kSizes[] = {{8, 300}, {1 << 20, 40}, {64 << 20, 4}};

// Seconds per all-reduce for each size (the slowest rank's); empty on failure (printed).
std::vector<double> measure(int ranks, bool encrypted) {
  unsigned char key[32];
  for (int i = 0; i < 32; ++i) key[i] = static_cast<unsigned char>(i * 7 + 3);
  trncclSetEncryption(encrypted ? key : nullptr, encrypted ? sizeof key : 0);
  trncclUniqueId id;
  if (trncclGetUniqueId(&id) != trncclSuccess) {
    std::fprintf(stderr, "trncclGetUniqueId: %s\n", trncclGetLastError(nullptr));
    return {};
  }
  std::vector<double> seconds(std::size(kSizes), -1);
  std::mutex mutex;
  bool failed = false;
  std::vector<std::thread> threads;
  for (int rank = 0; rank < ranks; ++rank) {
    threads.emplace_back([&, rank] {
      trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
      config.transport = "tcp";
      trncclComm_t comm = nullptr;
      if (trncclCommInitRankConfig(&comm, ranks, id, rank, &config) != trncclSuccess) {
        std::fprintf(stderr, "rank %d init: %s\n", rank, trncclGetLastError(nullptr));
        return;
      }
      for (size_t s = 0; s < std::size(kSizes); ++s) {
        const size_t count = kSizes[s].bytes / sizeof(float);
        std::vector<float> data(count, 1.0f);
        bool ok = true;
        auto run = [&] {
          ok = ok && trncclAllReduce(data.data(), data.data(), count, trncclFloat32, trncclSum, comm, nullptr) ==
                         trncclSuccess;
        };
        run();  // warm-up
        const auto start = Clock::now();
        for (int i = 0; i < kSizes[s].iterations; ++i) run();
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (!ok) std::fprintf(stderr, "rank %d all-reduce: %s\n", rank, trncclGetLastError(comm));
        // The slowest rank's time: a rank whose sends the kernel buffers may finish first.
        std::lock_guard lock(mutex);
        if (ok) seconds[s] = std::max(seconds[s], elapsed / kSizes[s].iterations);
        if (!ok) failed = true;
      }
      trncclCommDestroy(comm);
    });
  }
  for (std::thread& thread : threads) thread.join();
  trncclSetEncryption(nullptr, 0);
  if (failed) return {};
  return seconds;
}

double busbw(size_t bytes, double seconds, int ranks) {
  return seconds <= 0 ? -1 : bytes / seconds * 2.0 * (ranks - 1) / ranks / 1e9;
}

// AES-128-GCM on 16 KiB blocks in GB/s, from `openssl speed`; negative if it did not run.
double cipherSpeed() {
  FILE* pipe = popen("openssl speed -evp aes-128-gcm -bytes 16384 -seconds 2 2>/dev/null", "r");
  if (pipe == nullptr) return -1;
  char line[512];
  double kbPerSecond = -1;
  while (std::fgets(line, sizeof line, pipe)) {
    std::string text(line);
    if (text.rfind("AES-128-GCM", 0) == 0) {
      const size_t last = text.find_last_of(' ', text.find_last_not_of(" \nk"));
      kbPerSecond = std::atof(text.c_str() + last + 1);  // "1234567.89k": 1000s of bytes per second
    }
  }
  pclose(pipe);
  return kbPerSecond < 0 ? -1 : kbPerSecond * 1000 / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argc > 1 ? std::max(2, std::atoi(argv[1])) : 2;
  // Off and on alternate, best of kRounds each, so that a busy moment of the
  // machine does not land on one side only.
  constexpr int kRounds = 3;
  std::vector<double> plain(std::size(kSizes), 1e9), encrypted(std::size(kSizes), 1e9);
  for (int round = 0; round < kRounds; ++round) {
    for (bool on : {false, true}) {
      const std::vector<double> got = measure(ranks, on);
      if (got.size() != std::size(kSizes)) return 1;
      std::vector<double>& best = on ? encrypted : plain;
      for (size_t s = 0; s < got.size(); ++s) best[s] = std::min(best[s], got[s]);
    }
  }
  const double cipher = cipherSpeed();
  std::printf("# all-reduce float sum over tcp, %d ranks (threads, loopback), bus bandwidth GB/s, best of %d\n", ranks,
              kRounds);
  std::printf("%10s %10s %10s %10s %10s %7s\n", "bytes", "plain us", "plain bw", "tls us", "tls bw", "ratio");
  std::vector<double> plainBw, tlsBw;
  for (size_t s = 0; s < std::size(kSizes); ++s) {
    plainBw.push_back(busbw(kSizes[s].bytes, plain[s], ranks));
    tlsBw.push_back(busbw(kSizes[s].bytes, encrypted[s], ranks));
    std::printf("%10zu %10.1f %10.4f %10.1f %10.4f %7.2f\n", kSizes[s].bytes, plain[s] * 1e6, plainBw[s],
                encrypted[s] * 1e6, tlsBw[s], tlsBw[s] / plainBw[s]);
  }
  std::printf("# openssl speed -evp aes-128-gcm (16 KiB blocks, one core): %.3f GB/s\n", cipher);
  const double limit = cipher > 0 ? std::min(plainBw.back(), cipher) : plainBw.back();
  const bool met = tlsBw.back() >= 0.8 * limit;
  std::printf("# goal: encrypted 64 MiB >= 0.8 x min(plaintext, cipher) = %.3f GB/s: %s (%.3f)\n", 0.8 * limit,
              met ? "met" : "missed", tlsBw.back());
  return 0;
}
