// SIGUSR1 makes every communicator of the process dump its flight recorder.
// The signal handler only writes a byte to a pipe (async-signal-safe); a
// watcher thread reads it and runs the dumps. The handler is installed when
// the first communicator that dumps (TRNCCL_TRACE_DIR set) registers, and
// SIGUSR1 is left alone otherwise; a handler the application had installed
// is still called after ours.
#pragma once

#include <cstdint>
#include <functional>

namespace trnccl::runtime {

class DumpWatcher {
 public:
  // Registers `dump` to run on every SIGUSR1, on the watcher thread, until
  // remove(id) returns (it waits for a dump in progress).
  static uint64_t add(std::function<void()> dump);
  static void remove(uint64_t id);
};

}  // namespace trnccl::runtime
