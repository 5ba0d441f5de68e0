// The process's count of open file descriptors, for tests that check a
// transport or a listener leaves none behind.
#pragma once

#include <chrono>
#include <filesystem>
#include <thread>

namespace trnccl::test {

inline int openFileDescriptors() {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)entry;
    ++count;
  }
  return count;
}

// Waits up to `within` for the count of open descriptors to fall to `count`
// (threads that end by themselves, such as a rendezvous root, close theirs a
// little later); returns the last count seen.
inline int openFileDescriptorsSettle(int count, std::chrono::milliseconds within) {
  const auto end = std::chrono::steady_clock::now() + within;
  int now = openFileDescriptors();
  while (now > count && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    now = openFileDescriptors();
  }
  return now;
}

}  // namespace trnccl::test
