// trncclCommRegister / trncclCommDeregister: every bad argument is refused
// with InvalidArgument naming it, and collectives over registered buffers
// (whose sends the shared-memory transport hands over by single copy) give
// exact results, before and after deregistration.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "thread_ranks.h"

using namespace trnccl::test;

namespace {

bool named(trncclComm_t comm, const std::string& argument) {
  return std::string(trncclGetLastError(comm)).find(argument) != std::string::npos;
}

// All-reduce of rank-dependent integers held exactly in float: element i of
// rank r is (r + 1) * (i % 1000), so the sum is n(n+1)/2 * (i % 1000).
bool allReduceExact(trncclComm_t comm, int n, int rank, std::vector<float>& send, std::vector<float>& recv) {
  for (size_t i = 0; i < send.size(); ++i) send[i] = float((rank + 1) * int(i % 1000));
  if (trncclAllReduce(send.data(), recv.data(), send.size(), trncclFloat32, trncclSum, comm, nullptr) != trncclSuccess)
    return false;
  const double ranksSum = n * (n + 1) / 2.0;
  for (size_t i = 0; i < recv.size(); ++i)
    if (double(recv[i]) != ranksSum * double(i % 1000)) return false;
  return true;
}

}  // namespace

TEST_CASE("register: bad arguments are refused with InvalidArgument naming them", "[register]") {
  FailureLog log;
  const ThreadJob job = runOnThreads(2, [&](trncclComm_t comm, int rank) {
    std::vector<char> buffer(4096);
    void* handle = nullptr;
    auto refused = [&](const char* what, trncclResult_t rc, trncclComm_t c, const char* argument) {
      log.expect(rank, what, rc, trncclInvalidArgument, c);
      if (!named(c, argument)) log.fail(rank, std::string(what) + ": the message does not name " + argument);
    };
    refused("NULL comm", trncclCommRegister(nullptr, buffer.data(), buffer.size(), &handle), nullptr, "comm");
    refused("NULL buff", trncclCommRegister(comm, nullptr, buffer.size(), &handle), comm, "buff");
    refused("size 0", trncclCommRegister(comm, buffer.data(), 0, &handle), comm, "size");
    refused("size past the address space", trncclCommRegister(comm, buffer.data(), ~size_t(0), &handle), comm, "size");
    refused("NULL handle", trncclCommRegister(comm, buffer.data(), buffer.size(), nullptr), comm, "handle");
    refused("deregister NULL comm", trncclCommDeregister(nullptr, &handle), nullptr, "comm");
    refused("deregister NULL handle", trncclCommDeregister(comm, nullptr), comm, "handle");
    int notAHandle = 0;
    refused("deregister a made-up handle", trncclCommDeregister(comm, &notAHandle), comm, "handle");

    log.expect(rank, "trncclCommRegister", trncclCommRegister(comm, buffer.data(), buffer.size(), &handle),
               trncclSuccess, comm);
    if (handle == nullptr) log.fail(rank, "no handle");
    log.expect(rank, "trncclCommDeregister", trncclCommDeregister(comm, handle), trncclSuccess, comm);
    refused("a second deregister", trncclCommDeregister(comm, handle), comm, "handle");
    return 0;
  });
  INFO(job.initError << log.text());
  CHECK(job.init == trncclSuccess);
  CHECK(log.size() == 0);
}

TEST_CASE("register: a handle of another communicator is refused", "[register]") {
  FailureLog log;
  std::vector<void*> handles(2, nullptr);
  const ThreadJob job = runOnThreads(2, [&](trncclComm_t comm, int rank) {
    std::vector<char> buffer(4096);
    log.expect(rank, "trncclCommRegister", trncclCommRegister(comm, buffer.data(), buffer.size(), &handles[rank]),
               trncclSuccess, comm);
    // The all-reduces order the two ranks' registrations before the looks.
    char x = 0;
    trncclAllReduce(&x, &x, 1, trncclInt8, trncclMax, comm, nullptr);
    log.expect(rank, "deregistering the other communicator's handle", trncclCommDeregister(comm, handles[1 - rank]),
               trncclInvalidArgument, comm);
    if (!named(comm, "handle")) log.fail(rank, "the refusal does not name handle");
    trncclAllReduce(&x, &x, 1, trncclInt8, trncclMax, comm, nullptr);
    log.expect(rank, "deregistering its own", trncclCommDeregister(comm, handles[rank]), trncclSuccess, comm);
    return 0;
  });
  INFO(job.initError << log.text());
  CHECK(job.init == trncclSuccess);
  CHECK(log.size() == 0);
}

TEST_CASE("register: all-reduce over registered buffers is exact, before and after deregistration", "[register]") {
  const int n = 3;
  FailureLog log;
  const ThreadJob job = runOnThreads(n, [&](trncclComm_t comm, int rank) {
    // Sizes below, at and above the shared-memory transport's eager and
    // registered single-copy limits (16 KiB, 64 KiB), and above a slice.
    for (size_t count : {size_t(1000), size_t(4096), size_t(20000), size_t(16385), size_t(300007)}) {
      std::vector<float> send(count), recv(count);
      void *sendHandle = nullptr, *recvHandle = nullptr;
      log.expect(rank, "register send", trncclCommRegister(comm, send.data(), count * 4, &sendHandle), trncclSuccess,
                 comm);
      log.expect(rank, "register recv", trncclCommRegister(comm, recv.data(), count * 4, &recvHandle), trncclSuccess,
                 comm);
      if (!allReduceExact(comm, n, rank, send, recv)) log.fail(rank, "registered, count " + std::to_string(count));
      if (!allReduceExact(comm, n, rank, recv, recv)) log.fail(rank, "in place, count " + std::to_string(count));
      log.expect(rank, "deregister send", trncclCommDeregister(comm, sendHandle), trncclSuccess, comm);
      log.expect(rank, "deregister recv", trncclCommDeregister(comm, recvHandle), trncclSuccess, comm);
      if (!allReduceExact(comm, n, rank, send, recv)) log.fail(rank, "deregistered, count " + std::to_string(count));
    }
    return 0;
  });
  INFO(job.initError << log.text());
  CHECK(job.init == trncclSuccess);
  CHECK(log.size() == 0);
}
