#include "machine_floor.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

namespace trnccl::floor_bench {

namespace {

constexpr int kMaxBatches = 1000;

struct alignas(64) Line {
  std::atomic<uint64_t> value{0};
};

// Shared by the two processes (an anonymous shared mapping made before fork).
struct Control {
  Line ping;
  Line pong;
  Line arrivals;
  double child_seconds[kMaxBatches];
};

// Both sides call it the same number of times; `generation` is the caller's count.
void barrier(Control& control, uint64_t& generation) {
  ++generation;
  control.arrivals.value.fetch_add(1);
  while (control.arrivals.value.load() < 2 * generation) {
  }
}

double median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs side(0) here and side(1) in a forked child, over one shared Control.
void run_pair(const std::function<void(int, Control&)>& side) {
  void* mapping = mmap(nullptr, sizeof(Control), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw std::runtime_error("mmap of the shared control block failed");
  Control* control = new (mapping) Control{};
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    side(1, *control);
    _exit(0);
  }
  side(0, *control);
  int status = 0;
  waitpid(child, &status, 0);
  munmap(mapping, sizeof(Control));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("the second process failed");
}

// Through a volatile pointer, so that no copy is elided or inlined away.
void* (*volatile copy_bytes)(void*, const void*, size_t) = std::memcpy;

}  // namespace

double line_crossing_us(int round_trips, int batches) {
  if (batches > kMaxBatches) throw std::invalid_argument("too many batches");
  std::vector<double> half_round_trips;
  run_pair([&](int side, Control& control) {
    uint64_t generation = 0;
    for (int b = 0; b < batches; ++b) {
      const uint64_t first = static_cast<uint64_t>(b) * static_cast<uint64_t>(round_trips) + 1;
      barrier(control, generation);
      const auto start = std::chrono::steady_clock::now();
      for (uint64_t seq = first; seq < first + static_cast<uint64_t>(round_trips); ++seq) {
        if (side == 0) {
          control.ping.value.store(seq, std::memory_order_release);
          while (control.pong.value.load(std::memory_order_acquire) != seq) {
          }
        } else {
          while (control.ping.value.load(std::memory_order_acquire) != seq) {
          }
          control.pong.value.store(seq, std::memory_order_release);
        }
      }
      if (side == 0) half_round_trips.push_back(seconds_since(start) * 1e6 / round_trips / 2);
    }
  });
  return median(half_round_trips);
}

double concurrent_memcpy_bytes_per_second(size_t bytes, int batches) {
  if (batches > kMaxBatches) throw std::invalid_argument("too many batches");
  // Enough copies per batch to take a few milliseconds at any size.
  const size_t copies = std::clamp<size_t>((size_t{32} << 20) / bytes, 1, 100000);
  std::vector<double> rates;
  run_pair([&](int side, Control& control) {
    std::vector<char> source(bytes, 1);
    std::vector<char> target(bytes, 0);
    uint64_t generation = 0;
    for (int b = 0; b < batches; ++b) {
      barrier(control, generation);
      const auto start = std::chrono::steady_clock::now();
      for (size_t c = 0; c < copies; ++c) copy_bytes(target.data(), source.data(), bytes);
      const double seconds = seconds_since(start);
      if (side == 1) control.child_seconds[b] = seconds;
      barrier(control, generation);
      if (side == 0) rates.push_back(static_cast<double>(bytes * copies) / std::max(seconds, control.child_seconds[b]));
    }
    if (target[bytes - 1] != 1) std::abort();  // the copies happened
  });
  return median(rates);
}

}  // namespace trnccl::floor_bench
