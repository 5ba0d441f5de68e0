// trncclCommGetAlgorithm: which algorithm a communicator runs for a call and
// the tuner's predicted time, through the public C API: known names and
// positive predictions, TRNCCL_ALGO and config.algorithm forcing, the
// emulation scale, the tuner's choices on a modelled trn1.32xlarge, and the
// errors for bad arguments.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "algorithms/tuner.h"
#include "checks.h"
#include "tests/support/scoped_env.h"

using namespace trnccl::test;

namespace {

const std::vector<std::string> kCollectives = {"allreduce", "allgather", "reducescatter",
                                               "broadcast", "reduce",    "alltoall"};

struct Answer {
  trncclResult_t result = trncclInternalError;
  std::string algorithm;
  double predictedUs = -1;
  std::string error;  // trncclGetLastError(comm) when it failed
};

Answer query(trncclComm_t comm, const std::string& collective, size_t count, trncclDataType_t type = trncclFloat32) {
  char name[TRNCCL_ALGO_NAME_MAX];
  std::memset(name, 'x', sizeof name);  // must come back NUL-terminated
  Answer a;
  a.result = trncclCommGetAlgorithm(comm, collective.c_str(), count, type, name, &a.predictedUs);
  if (a.result == trncclSuccess)
    a.algorithm = std::string(name, strnlen(name, sizeof name));
  else
    a.error = trncclGetLastError(comm);
  return a;
}

// Creates nranks thread communicators from the current environment, runs
// body(comms) on this thread, and destroys them.
void withComms(int nranks, const std::function<void(const std::vector<trncclComm_t>&)>& body) {
  std::vector<trncclComm_t> comms(static_cast<size_t>(nranks), nullptr);
  const trncclResult_t rc = trncclCommInitAll(comms.data(), nranks, nullptr);
  INFO("trncclCommInitAll: " << (rc == trncclSuccess ? "" : trncclGetLastError(nullptr)));
  REQUIRE(rc == trncclSuccess);
  body(comms);
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

}  // namespace

TEST_CASE("trncclCommGetAlgorithm names a known algorithm and a positive prediction for every collective",
          "[algorithm-query]") {
  const std::vector<std::string> names = trnccl::algo::Tuner::algorithmNames();  // the registry's
  const std::set<std::string> known(names.begin(), names.end());
  withComms(4, [&](const std::vector<trncclComm_t>& comms) {
    for (const std::string& collective : kCollectives) {
      const Answer a = query(comms[0], collective, 1024);
      INFO(collective << ": " << a.error);
      REQUIRE(a.result == trncclSuccess);
      CHECK(a.algorithm.size() < TRNCCL_ALGO_NAME_MAX);
      CHECK(known.count(a.algorithm) == 1);
      CHECK(std::isfinite(a.predictedUs));
      CHECK(a.predictedUs > 0);
      // Every rank decides the same.
      for (trncclComm_t c : comms) CHECK(query(c, collective, 1024).algorithm == a.algorithm);
    }
    // Only ring implements broadcast and reduce; only mesh all-to-all.
    CHECK(query(comms[0], "broadcast", 1 << 20).algorithm == "ring");
    CHECK(query(comms[0], "reduce", 1 << 20).algorithm == "ring");
    CHECK(query(comms[0], "alltoall", 1 << 20).algorithm == "mesh");
    // predictedUs may be NULL.
    char name[TRNCCL_ALGO_NAME_MAX];
    CHECK(trncclCommGetAlgorithm(comms[0], "allreduce", 8, trncclBfloat16, name, nullptr) == trncclSuccess);
  });
}

TEST_CASE("trncclCommGetAlgorithm honours TRNCCL_ALGO and config.algorithm", "[algorithm-query]") {
  SECTION("per collective, in NCCL's syntax") {
    ScopedEnv algo("TRNCCL_ALGO", "allreduce:rdh;allgather:torus2d;reducescatter:bidir_ring");
    withComms(4, [](const std::vector<trncclComm_t>& comms) {
      for (size_t count : {size_t{1}, size_t{1} << 24}) {
        CHECK(query(comms[1], "allreduce", count).algorithm == "rdh");
        CHECK(query(comms[1], "allgather", count).algorithm == "torus2d");
        CHECK(query(comms[1], "reducescatter", count).algorithm == "bidir_ring");
      }
    });
  }
  SECTION("excluded") {
    ScopedEnv algo("TRNCCL_ALGO", "^mesh,rdh");
    withComms(4, [](const std::vector<trncclComm_t>& comms) {
      for (size_t count : {size_t{1}, size_t{1} << 24}) {
        const std::string chosen = query(comms[0], "allreduce", count).algorithm;
        CHECK(chosen != "mesh");
        CHECK(chosen != "rdh");
      }
    });
  }
  SECTION("config.algorithm wins over TRNCCL_ALGO") {
    ScopedEnv algo("TRNCCL_ALGO", "ring");
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.algorithm = "mesh";
    FailureLog log;
    const ThreadJob job = runOnThreadsWithConfig(2, config, [&](trncclComm_t comm, int r) {
      const Answer a = query(comm, "allreduce", 1 << 20);
      if (a.algorithm != "mesh") log.fail(r, "config.algorithm mesh, TRNCCL_ALGO ring: got '" + a.algorithm + "'");
      return 0;
    });
    requireClean(job, log);
  }
  SECTION("forcing an algorithm that cannot run the collective: trncclInvalidUsage saying why") {
    ScopedEnv algo("TRNCCL_ALGO", "rdh");
    withComms(2, [](const std::vector<trncclComm_t>& comms) {
      const Answer a = query(comms[0], "broadcast", 16);
      INFO(a.error);
      CHECK(a.result == trncclInvalidUsage);
      CHECK(a.error.find("rdh does not implement broadcast") != std::string::npos);
      CHECK(a.error.find("TRNCCL_ALGO") != std::string::npos);
    });
  }
}

TEST_CASE("trncclCommGetAlgorithm on emulated trn1.32xlarge links: the tuner's picks, scaled predictions",
          "[algorithm-query][emulation]") {
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), links("TRNCCL_EMULATE_LINKS", "1");
  SECTION("16 ranks, one per chip: torus2d for 64 MiB, one round of latency for 8 bytes") {
    ScopedEnv order("TRNCCL_RANK_ORDER", "chip");
    withComms(16, [](const std::vector<trncclComm_t>& comms) {
      CHECK(query(comms[5], "allreduce", 16 << 20).algorithm == "torus2d");
      const std::string tiny = query(comms[5], "allreduce", 2).algorithm;
      CHECK((tiny == "mesh" || tiny == "rdh"));
    });
  }
  SECTION("the prediction is the modelled time times TRNCCL_EMULATE_SCALE") {
    ScopedEnv order("TRNCCL_RANK_ORDER", "0,2,8,10");
    double at10 = 0, at1000 = 0;
    {
      ScopedEnv scale("TRNCCL_EMULATE_SCALE", "10");
      withComms(4, [&](const std::vector<trncclComm_t>& c) { at10 = query(c[0], "allreduce", 1 << 18).predictedUs; });
    }
    {
      ScopedEnv scale("TRNCCL_EMULATE_SCALE", "1000");
      withComms(4, [&](const std::vector<trncclComm_t>& c) { at1000 = query(c[0], "allreduce", 1 << 18).predictedUs; });
    }
    CHECK(at10 > 0);
    CHECK(at1000 == Approx(100 * at10));
  }
}

TEST_CASE("trncclCommGetAlgorithm: bad arguments are trncclInvalidArgument naming the argument",
          "[algorithm-query][errors]") {
  withComms(2, [](const std::vector<trncclComm_t>& comms) {
    trncclComm_t comm = comms[0];
    char name[TRNCCL_ALGO_NAME_MAX];
    double us = 0;
    auto requireNamed = [&](trncclResult_t rc, trncclComm_t where, const std::vector<std::string>& named) {
      const std::string message = trncclGetLastError(where);
      INFO("returned " << rc << ": " << message);
      CHECK(rc == trncclInvalidArgument);
      for (const std::string& what : named) CHECK(message.find(what) != std::string::npos);
    };
    requireNamed(trncclCommGetAlgorithm(nullptr, "allreduce", 1, trncclFloat32, name, &us), nullptr, {"'comm'"});
    requireNamed(trncclCommGetAlgorithm(comm, nullptr, 1, trncclFloat32, name, &us), comm, {"'collective'"});
    requireNamed(trncclCommGetAlgorithm(comm, "allscatter", 1, trncclFloat32, name, &us), comm,
                 {"'collective'", "allscatter", "allreduce", "alltoall"});
    requireNamed(trncclCommGetAlgorithm(comm, "allreduce", 1, trncclFloat32, nullptr, &us), comm, {"'algorithm'"});
    requireNamed(trncclCommGetAlgorithm(comm, "allreduce", 1, static_cast<trncclDataType_t>(99), name, &us), comm,
                 {"'datatype'", "99"});
    // The communicator is still fine.
    CHECK(query(comm, "allreduce", 1).result == trncclSuccess);
  });
}

TEST_CASE("a call no allowed algorithm can run is refused, and the communicator stays usable",
          "[algorithm-query][errors]") {
  ScopedEnv algo("TRNCCL_ALGO", "rdh");  // rdh has no broadcast
  withComms(1, [](const std::vector<trncclComm_t>& comms) {
    float value = 2.5f, out = 0;
    CHECK(trncclBroadcast(&value, &out, 1, trncclFloat32, 0, comms[0], nullptr) == trncclInvalidUsage);
    CHECK_THAT(trncclGetLastError(comms[0]), Catch::Contains("broadcast"));
    trncclResult_t async = trncclInternalError;
    CHECK(trncclCommGetAsyncError(comms[0], &async) == trncclSuccess);
    CHECK(async == trncclSuccess);
    CHECK(trncclAllReduce(&value, &out, 1, trncclFloat32, trncclSum, comms[0], nullptr) == trncclSuccess);
    CHECK(out == 2.5f);
  });
}

TEST_CASE("trncclCommGetTransport names what carries the bytes, within and across instances",
          "[algorithm-query][transports]") {
  const auto transportOf = [](trncclComm_t comm) {
    char text[TRNCCL_TRANSPORT_NAME_MAX];
    std::memset(text, 'x', sizeof text);  // must come back NUL-terminated
    REQUIRE(trncclCommGetTransport(comm, text) == trncclSuccess);
    return std::string(text, strnlen(text, sizeof text));
  };
  SECTION("one instance: shared memory only") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.2xlarge");
    withComms(2, [&](const std::vector<trncclComm_t>& comms) { CHECK(transportOf(comms[0]) == "shm"); });
  }
  SECTION("two instances over tcp, one rank each") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.2xlarge:2"), order("TRNCCL_RANK_ORDER", "0,2");
    ScopedEnv transport("TRNCCL_TRANSPORT", "tcp"), sockets("TRNCCL_TCP_SOCKETS_PER_PEER", "3");
    withComms(2, [&](const std::vector<trncclComm_t>& comms) {
      CHECK(transportOf(comms[1]) == "shm + tcp (3 sockets per peer)");
    });
  }
  SECTION("two instances over ofi") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.2xlarge:2"), transport("TRNCCL_TRANSPORT", "ofi");
    ScopedEnv provider("TRNCCL_OFI_PROVIDER", "udp;ofi_rxd"), rails("TRNCCL_OFI_RAILS", "2");
    withComms(4, [&](const std::vector<trncclComm_t>& comms) {
      CHECK(transportOf(comms[0]) == "shm + ofi (udp;ofi_rxd, 2 rails)");
    });
  }
}

TEST_CASE("trncclCommGetTransport: bad arguments are trncclInvalidArgument naming the argument", "[algorithm-query]") {
  withComms(1, [](const std::vector<trncclComm_t>& comms) {
    CHECK(trncclCommGetTransport(comms[0], nullptr) == trncclInvalidArgument);
    CHECK(std::string(trncclGetLastError(comms[0])).find("transport") != std::string::npos);
    char text[TRNCCL_TRANSPORT_NAME_MAX];
    CHECK(trncclCommGetTransport(comms[0], text) == trncclSuccess);
    CHECK(std::string(text) == "none");
  });
  char text[TRNCCL_TRANSPORT_NAME_MAX];
  CHECK(trncclCommGetTransport(nullptr, text) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(nullptr)).find("comm") != std::string::npos);
}
