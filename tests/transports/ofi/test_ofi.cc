// The libfabric transport's own promises, beyond the conformance suite: the
// provider and settings it refuses and how it says so, ranks that disagree,
// order independence under the fault layer with several rails, and
// completion errors that name the peer, its address and the provider's words.
#include <rdma/fi_errno.h>
#include <signal.h>

#include <catch2/catch.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "tests/transports/transports_under_test.h"
#include "transports/factory.h"
#include "transports/ofi/fi_error.h"
#include "transports/ofi/ofi_transport.h"
#include "transports/ofi/ofi_transport_internal.h"

using namespace trnccl;
using namespace trnccl::test;
using transport::Request;
using transport::Tag;

namespace {

// The error creating a lone rank's transport gives under `variable`=`value`.
Error setupErrorWith(const char* variable, const std::string& value) {
  ScopedEnv provider("TRNCCL_OFI_PROVIDER", "tcp;ofi_rxm");
  ScopedEnv setting(variable, value);
  Error error(trncclSuccess, "");
  requireAllOk(launch(Launch::Threads, 1, [&](int, TestOutOfBand& oob) {
    error = errorFrom([&] { transport::createOfiTransport(optionsFor(oob, uniqueJobKey("ofi-setting"))); });
  }));
  return error;
}

}  // namespace

TEST_CASE("ofi: a provider this machine does not offer is InvalidArgument naming the variable and the offer", "[ofi]") {
  const Error e = setupErrorWith("TRNCCL_OFI_PROVIDER", "efa-that-is-not-here");
  INFO(e.what());
  CHECK(e.code() == trncclInvalidArgument);
  const std::string message = e.what();
  CHECK(message.find("TRNCCL_OFI_PROVIDER") != std::string::npos);
  CHECK(message.find("efa-that-is-not-here") != std::string::npos);
  CHECK(message.find("tcp;ofi_rxm") != std::string::npos);  // among those on offer
}

TEST_CASE("ofi: settings out of range are InvalidArgument naming the variable and the value", "[ofi]") {
  const auto [variable, value] = GENERATE(table<const char*, const char*>({
      {"TRNCCL_OFI_RAILS", "0"},
      {"TRNCCL_OFI_RAILS", "17"},
      {"TRNCCL_OFI_RAILS", "two"},
      {"TRNCCL_OFI_CHUNK_BYTES", "100"},
      {"TRNCCL_OFI_MAX_OUTSTANDING", "1"},
      {"TRNCCL_OFI_FAULTS", "delay:shuffle"},
      {"TRNCCL_OFI_FAULTS", "corrupt=0"},
      {"TRNCCL_OFI_CHECKSUM", "yes"},
  }));
  const Error e = setupErrorWith(variable, value);
  INFO(e.what());
  CHECK(e.code() == trncclInvalidArgument);
  CHECK(std::string(e.what()).find(variable) != std::string::npos);
  CHECK(std::string(e.what()).find(value) != std::string::npos);
}

TEST_CASE("ofi: ranks that disagree on the rails, the chunk size or checksums all fail setup with InvalidUsage",
          "[ofi]") {
  const auto [variable, rank0, rank1] = GENERATE(table<const char*, const char*, const char*>({
      {"TRNCCL_OFI_RAILS", "1", "2"},
      {"TRNCCL_OFI_CHUNK_BYTES", "65536", "1048576"},
      {"TRNCCL_OFI_CHECKSUM", "1", "0"},
  }));
  CAPTURE(variable);
  ScopedEnv provider("TRNCCL_OFI_PROVIDER", "tcp;ofi_rxm");
  const std::string jobKey = uniqueJobKey("ofi-disagree");
  requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    ScopedEnv mine(variable, rank == 0 ? rank0 : rank1);
    const Error e = errorFrom([&] { transport::createOfiTransport(optionsFor(oob, jobKey)); });
    expect(e.code() == trncclInvalidUsage, std::string("got ") + e.what());
    expectMentions(e.what(), {variable});
  }));
}

TEST_CASE("ofi: with checksums a byte flipped on the way is an error naming the peer; without, wrong data",
          "[ofi][checksum]") {
  // The fault layer flips one byte of rank 1's every Nth received message:
  // its 1st is the eager message or the Rts, its 2nd the rendezvous chunk.
  const auto [checksum, bytes, corruptEvery] = GENERATE(table<const char*, size_t, const char*>({
      {"1", 100, "corrupt=1"},     // inside the eager control message
      {"1", 100000, "corrupt=2"},  // inside the chunk of a rendezvous message
      {"0", 100000, "corrupt=2"},  // unchecked: what the checksum is for
  }));
  CAPTURE(checksum, bytes, corruptEvery);
  ScopedEnv provider("TRNCCL_OFI_PROVIDER", "tcp;ofi_rxm"), checksums("TRNCCL_OFI_CHECKSUM", checksum);
  const std::string jobKey = uniqueJobKey("ofi-checksum");
  const bool checked = std::string(checksum) == "1";
  requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    ScopedEnv faults("TRNCCL_OFI_FAULTS", rank == 1 ? std::optional<std::string>(corruptEvery) : std::nullopt);
    auto t = transport::createOfiTransport(optionsFor(oob, jobKey));
    std::vector<std::byte> data(bytes);
    const Tag tag = 7;
    if (rank == 0) {
      fillPattern(data.data(), bytes, 0, 1, tag);
      Request send = makeRequest(1, tag, data.data(), bytes);
      t->isend(send);
      drive(*t, {&send});
      oob.barrier();
      return;
    }
    Request receive = makeRequest(0, tag, data.data(), bytes);
    t->irecv(receive);
    if (checked) {
      const Error e = errorFrom([&] { drive(*t, {&receive}, std::chrono::seconds(20)); });
      expect(e.code() == trncclRemoteError, std::string("got ") + e.what());
      expectMentions(e.what(), {"rank 0", "arrived corrupted", "CRC-32"});
      expect(!receive.done, "the corrupted receive was completed");
    } else {
      drive(*t, {&receive});
      expect(!patternMismatch(data.data(), bytes, 0, 1, tag).empty(), "the fault layer flipped no byte of the message");
    }
    const auto& ofi = dynamic_cast<const transport::ofi::OfiTransport&>(*t);
    expect(ofi.faultStats().corrupted == 1, "corrupted " + std::to_string(ofi.faultStats().corrupted) + " messages");
    oob.barrier();
  }));
}

TEST_CASE("ofi: with completions delayed and reordered over 4 rails, 200 messages among 3 ranks arrive intact",
          "[ofi]") {
  const std::string provider = GENERATE("udp;ofi_rxd", "tcp;ofi_rxm");
  CAPTURE(provider);
  ScopedEnv chosen("TRNCCL_OFI_PROVIDER", provider), rails("TRNCCL_OFI_RAILS", "4");
  ScopedEnv chunks("TRNCCL_OFI_CHUNK_BYTES", "16384"), outstanding("TRNCCL_OFI_MAX_OUTSTANDING", "8");
  ScopedEnv faults("TRNCCL_OFI_FAULTS", "delay=500:reorder:seed=7");
  const std::string jobKey = uniqueJobKey("ofi-reorder");
  constexpr int kRanks = 3, kPerPeer = 100;
  const bool keepsBytesIntact = transport::transportNamed("ofi").capabilities.keepsBytesIntact(provider);
  requireIntactOrCaught(
      provider, keepsBytesIntact, launch(Launch::Processes, kRanks, [&](int rank, TestOutOfBand& oob) {
        auto t = transport::createOfiTransport(optionsFor(oob, jobKey));
        auto& ofi = dynamic_cast<transport::ofi::OfiTransport&>(*t);
        expect(ofi.rails() == 4, "opened " + std::to_string(ofi.rails()) + " rails, want 4");
        std::mt19937 random(static_cast<unsigned>(rank));
        std::vector<std::vector<std::byte>> out, in;
        std::vector<Request> sends, receives;
        sends.reserve(2 * kPerPeer);
        receives.reserve(2 * kPerPeer);
        std::vector<size_t> expected;
        for (int peer = 0; peer < kRanks; ++peer) {
          if (peer == rank) continue;
          for (int m = 0; m < kPerPeer; ++m) {
            // Sizes from eager to many chunks striped over every rail; the same
            // sequence on both sides of a pair (seeded by the sender).
            std::mt19937 sizes(static_cast<unsigned>(rank * 1000 + m));
            const size_t outBytes = sizes() % 200000;
            std::mt19937 theirSizes(static_cast<unsigned>(peer * 1000 + m));
            const size_t inBytes = theirSizes() % 200000;
            const Tag tag = static_cast<Tag>(m + 1);
            out.emplace_back(outBytes);
            fillPattern(out.back().data(), outBytes, rank, peer, tag);
            sends.push_back(makeRequest(peer, tag, out.back().data(), outBytes));
            in.emplace_back(inBytes);
            receives.push_back(makeRequest(peer, tag, in.back().data(), inBytes));
            expected.push_back(inBytes);
          }
        }
        std::vector<size_t> order(sends.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), random);
        for (size_t i : order) t->irecv(receives[i]);
        std::shuffle(order.begin(), order.end(), random);
        for (size_t i : order) t->isend(sends[i]);
        std::vector<Request*> all;
        for (auto& r : sends) all.push_back(&r);
        for (auto& r : receives) all.push_back(&r);
        drive(*t, all, std::chrono::seconds(60));
        for (size_t i = 0; i < receives.size(); ++i) {
          expect(receives[i].transferred == expected[i], "a message arrived with the wrong size");
          const std::string wrong = patternMismatch(in[i].data(), expected[i], receives[i].peer, rank, receives[i].tag);
          expect(wrong.empty(), wrong);
        }
        const transport::ofi::FaultStats stats = ofi.faultStats();
        expect(stats.held > 0 && stats.overtaking > 0, "the fault layer held " + std::to_string(stats.held) +
                                                           " completions and let " + std::to_string(stats.overtaking) +
                                                           " overtake: nothing was reordered");
        oob.barrier();
      }));
}

TEST_CASE("ofi: a completion error names both ranks, the peer's address and the provider's message", "[ofi]") {
  using transport::ofi::CompletionFailure;
  const CompletionFailure failure{"receiving a chunk from",         0,      3,
                                  "fi_sockaddr_in://10.0.0.7:4711", FI_EIO, "connection reset by peer"};
  const Error remote = transport::ofi::completionError(failure);
  CHECK(remote.code() == trncclRemoteError);
  const std::string message = remote.what();
  for (const char* part :
       {"rank 0", "rank 3", "fi_sockaddr_in://10.0.0.7:4711", "receiving a chunk from", "connection reset by peer"})
    CHECK(message.find(part) != std::string::npos);
  CompletionFailure local = failure;
  local.err = FI_ENOMEM;  // this rank's own trouble, not the peer's
  CHECK(transport::ofi::completionError(local).code() == trncclSystemError);
}

TEST_CASE("ofi: a peer killed mid-transfer is a RemoteError naming its rank and its address", "[ofi]") {
  const std::string provider = GENERATE("tcp;ofi_rxm", "udp;ofi_rxd");
  CAPTURE(provider);
  ScopedEnv chosen("TRNCCL_OFI_PROVIDER", provider);
  const std::string jobKey = uniqueJobKey("ofi-killed");
  const auto results = launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createOfiTransport(optionsFor(oob, jobKey));
    std::vector<std::byte> buffer(16 << 20);
    if (rank == 1) {
      Request send = makeRequest(0, 1, buffer.data(), buffer.size());
      t->isend(send);
      oob.barrier();
      for (int i = 0; i < 100; ++i) t->progress();
      raise(SIGKILL);
    }
    Request receive = makeRequest(1, 1, buffer.data(), buffer.size());
    std::byte unused{};
    Request never = makeRequest(1, 2, &unused, 1);
    t->irecv(receive);
    t->irecv(never);
    oob.barrier();
    const Error e = errorFrom([&] { drive(*t, {&receive, &never}, std::chrono::seconds(20)); });
    expect(e.code() == trncclRemoteError, std::string("got ") + e.what());
    expectMentions(e.what(), {"rank 1 (", "://"});
  });
  INFO("rank 0: " << results[0].describe());
  CHECK(results[0].ok());
  CHECK(results[1].signal == SIGKILL);
}
