// What the bad-input tests share: the expectations on a refused call, and
// the communicators they make calls on.
#pragma once

#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/scoped_env.h"
#include "trnccl/trnccl.h"

namespace trnccl::test {

// rc must be `want`, and the last error must contain `argument` as a word.
inline void expectError(trncclResult_t rc, trncclResult_t want, trncclComm_t comm, const std::string& argument) {
  const std::string message = trncclGetLastError(comm);
  const std::string threadMessage = trncclGetLastError(nullptr);
  INFO("returned " << rc << " (" << trncclGetErrorString(rc) << "), expected " << want << "; last error: '" << message
                   << "'; expected it to name '" << argument << "'");
  CHECK(rc == want);
  CHECK(std::regex_search(message, std::regex("\\b" + argument + "\\b")));
  CHECK(threadMessage == message);  // the thread's last error is the same failure
}

inline void expectInvalid(trncclResult_t rc, trncclComm_t comm, const std::string& argument) {
  expectError(rc, trncclInvalidArgument, comm, argument);
}

// Two thread-rank communicators (only comms[0] is used) with a short timeout.
struct Comms {
  std::vector<trncclComm_t> comms = std::vector<trncclComm_t>(2, nullptr);
  Comms() {
    ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "5000");
    REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  }
  ~Comms() {
    for (trncclComm_t c : comms)
      if (c) trncclCommDestroy(c);
  }
  trncclComm_t operator[](int r) const { return comms[static_cast<size_t>(r)]; }
};

// A 1-rank communicator, on which a valid call completes alone.
inline trncclComm_t oneRank() {
  trncclComm_t comm = nullptr;
  REQUIRE(trncclCommInitAll(&comm, 1, nullptr) == trncclSuccess);
  return comm;
}

inline void requireUsable(trncclComm_t comm) {
  float in[3] = {1, 2, 3}, out[3] = {0, 0, 0};
  const trncclResult_t rc = trncclAllReduce(in, out, 3, trncclFloat32, trncclSum, comm, nullptr);
  INFO("a valid all-reduce after the bad calls: " << trncclGetLastError(comm));
  REQUIRE(rc == trncclSuccess);
  CHECK(out[2] == 3.0f);
}

}  // namespace trnccl::test
