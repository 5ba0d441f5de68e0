// Flight-recorder dumps as trnccl-trace reads them back (the files
// src/runtime/recorder_dump.cc writes).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace trnccl::trace {

// A file that is not a readable dump; what() names the file.
struct DumpError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RecordedOp {
  std::optional<uint64_t> seq;  // none: a send/recv group
  std::string collective, type, op, algorithm, state;
  uint64_t count = 0;
  std::optional<int> root;
  int waitPeer = -1;  // the peer it waits (or waited, when it failed) on
  int64_t waitStep = -1;
  bool waitReceiving = false;

  // Ended, or failed without waiting on anyone (a call every rank refused):
  // nothing another rank could be stuck behind.
  bool finished() const { return state == "done" || (state == "failed" && waitPeer < 0); }
  // "allreduce #3 (1024 x float sum, ring)"
  std::string describe() const;
  // What every rank must agree on.
  std::string signature() const;
};

struct RankDump {
  std::string file, comm, commName, reason;
  int rank = 0, nranks = 1;
  int64_t pid = 0;
  std::vector<RecordedOp> ops;  // oldest first
};

RankDump parseDump(const std::string& text, const std::string& file);  // throws DumpError
// Every trnccl-*.json dump in `dir` (throws DumpError if none, or one is bad).
std::vector<RankDump> readDumps(const std::string& dir);

}  // namespace trnccl::trace
