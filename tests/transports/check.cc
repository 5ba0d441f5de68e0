#include "tests/transports/check.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "base/backoff.h"

namespace trnccl::test {
namespace {

uint8_t patternByte(size_t i, uint32_t seed) {
  return static_cast<uint8_t>(i * 131 + (i >> 11) * 7 + (i >> 19) * 13 + seed);
}

uint32_t patternSeed(int from, int to, transport::Tag tag) {
  return static_cast<uint32_t>(from * 31 + to * 17 + static_cast<int>(tag % 251) * 5 + 1);
}

}  // namespace

transport::Request makeRequest(int peer, transport::Tag tag, void* buffer, size_t bytes) {
  transport::Request r;
  r.peer = peer;
  r.tag = tag;
  r.buffer = buffer;
  r.bytes = bytes;
  return r;
}

void expect(bool condition, const std::string& message) {
  if (!condition) throw std::runtime_error(message);
}

void expectMentions(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts)
    expect(message.find(part) != std::string::npos, "'" + message + "' does not mention '" + part + "'");
}

void drive(transport::Transport& transport, const std::vector<transport::Request*>& requests,
           std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Backoff backoff;
  size_t doneBefore = 0;
  try {
    for (;;) {
      transport.progress();
      const auto done = static_cast<size_t>(
          std::count_if(requests.begin(), requests.end(), [](const transport::Request* r) { return r->done; }));
      if (done == requests.size()) return;
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("timed out with " + std::to_string(done) + " of " + std::to_string(requests.size()) +
                                 " requests done");
      if (done != doneBefore) backoff.reset();
      doneBefore = done;
      backoff.pause([&](std::chrono::microseconds maxWait) { transport.wait(maxWait); });
    }
  } catch (...) {
    // The caller's buffers die with the exception: the transport must let go
    // of them first (Transport::cancelAll's contract), or a provider may
    // still write into freed memory.
    try {
      transport.cancelAll();
    } catch (const std::exception&) {  // the first error is the one to report
    }
    throw;
  }
}

Error errorFrom(const std::function<void()>& step) {
  try {
    step();
  } catch (const Error& e) {
    return e;
  }
  throw std::runtime_error("expected a trnccl::Error, but none was thrown");
}

void fillPattern(void* buffer, size_t bytes, int from, int to, transport::Tag tag) {
  auto* out = static_cast<uint8_t*>(buffer);
  const uint32_t seed = patternSeed(from, to, tag);
  for (size_t i = 0; i < bytes; ++i) out[i] = patternByte(i, seed);
}

std::string patternMismatch(const void* buffer, size_t bytes, int from, int to, transport::Tag tag) {
  const auto* in = static_cast<const uint8_t*>(buffer);
  const uint32_t seed = patternSeed(from, to, tag);
  for (size_t i = 0; i < bytes; ++i) {
    if (in[i] != patternByte(i, seed))
      return "message " + std::to_string(from) + "->" + std::to_string(to) + " tag " + std::to_string(tag) + " (" +
             std::to_string(bytes) + " bytes) differs at byte " + std::to_string(i) + ": got " + std::to_string(in[i]) +
             ", want " + std::to_string(patternByte(i, seed));
  }
  return {};
}

transport::Options optionsFor(const TestOutOfBand& oob, const std::string& jobKey) {
  transport::Options options;
  options.rank = oob.rank();
  options.nranks = oob.size();
  for (int r = 0; r < oob.size(); ++r)
    if (r != oob.rank()) options.peers.push_back(r);
  options.oob = const_cast<TestOutOfBand*>(&oob);
  options.timeout = std::chrono::seconds(30);
  options.jobKey = jobKey;
  return options;
}

std::string uniqueJobKey(const std::string& what) {
  static std::atomic<int> counter{0};
  return what + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

}  // namespace trnccl::test
