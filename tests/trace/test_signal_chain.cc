// An application's own SIGUSR1 handler keeps working beside trnccl's dumps.
// Its own executable: trnccl installs its handler once per process, so this
// must be the first communicator with TRNCCL_TRACE_DIR in the process.
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <vector>

#include "tests/support/scoped_env.h"
#include "trace_support.h"

namespace {

std::atomic<int> applicationHandlerRan{0};

}  // namespace

TEST_CASE("SIGUSR1: the application's own handler still runs after trnccl's dump", "[trace][signal]") {
  trnccl::test::TempDir dir;
  trnccl::test::ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  struct sigaction application {
  }, before{};
  application.sa_handler = [](int) { ++applicationHandlerRan; };
  sigemptyset(&application.sa_mask);
  sigaction(SIGUSR1, &application, &before);
  std::vector<trncclComm_t> comms(2, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  raise(SIGUSR1);
  const bool dumped = trnccl::test::waitForDumps(dir.path(), 2, std::chrono::seconds(10));
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
  sigaction(SIGUSR1, &before, nullptr);
  CHECK(dumped);
  CHECK(applicationHandlerRan.load() == 1);
}
