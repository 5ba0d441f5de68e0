// A cheap monotonic tick for the flight recorder and the trace: the TSC on
// x86-64 (a few ns, no system call), the steady clock elsewhere. Ticks become
// nanoseconds of the steady clock (CLOCK_MONOTONIC, shared by every process of
// a host, so ranks' traces line up) only when a dump or trace is written.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace trnccl::runtime {

inline uint64_t readTicks() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// Converts ticks to steady-clock nanoseconds: the TSC's rate is measured
// from this object's creation to each scale() (at least 1 ms apart), so the
// longer it lives the more exact it is (a modern x86 TSC runs at a constant
// rate).
class TickClock {
 public:
  struct Scale {
    uint64_t originTicks = 0;
    int64_t originNs = 0;
    double nsPerTick = 1;
    int64_t toNs(uint64_t ticks) const {
      return originNs +
             static_cast<int64_t>(static_cast<double>(static_cast<int64_t>(ticks - originTicks)) * nsPerTick);
    }
  };
  TickClock();
  Scale scale() const;  // may sleep up to 1 ms

 private:
  Scale origin_;
};

}  // namespace trnccl::runtime
