#include "runtime/ticks.h"

#include <thread>

namespace trnccl::runtime {
namespace {

int64_t steadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TickClock::TickClock() {
  origin_.originTicks = readTicks();
  origin_.originNs = steadyNs();
#if !defined(__x86_64__)
  origin_.originNs = static_cast<int64_t>(origin_.originTicks);  // ticks are nanoseconds already
#endif
}

TickClock::Scale TickClock::scale() const {
#if defined(__x86_64__)
  uint64_t ticks = readTicks();
  int64_t ns = steadyNs();
  while (ns - origin_.originNs < 1000000) {  // too short a baseline measures the rate badly
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    ticks = readTicks();
    ns = steadyNs();
  }
  Scale s = origin_;
  s.nsPerTick = static_cast<double>(ns - origin_.originNs) / static_cast<double>(ticks - origin_.originTicks);
  return s;
#else
  return origin_;
#endif
}

}  // namespace trnccl::runtime
