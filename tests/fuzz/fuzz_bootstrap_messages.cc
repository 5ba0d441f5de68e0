// The bootstrap's messages as they arrive from the network: the greeting that
// opens a connection (Hello, plus Registration on the root's), judged byte by
// byte as they trickle in; the frame headers ranks exchange; the root's reply.
// The secret is fixed so that seeds holding it reach the checks behind it.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "core/bootstrap_protocol.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace trnccl::core::wire;

constexpr Secret kSecret = {'f', 'u', 'z', 'z', '-', 's', 'e', 'c', 'r', 'e', 't', '-', 'k', 'e', 'y', '!'};

template <class T>
T readAt(const uint8_t* data, size_t size, size_t offset) {
  T value{};
  if (offset < size) std::memcpy(&value, data + offset, std::min(sizeof(T), size - offset));
  return value;
}

// Judged as the bytes trickle in: a refusal is final, completion comes only
// with the last byte, and a complete greeting's registration is checked.
void judgeTrickle(const uint8_t* data, size_t size, Purpose purpose) {
  const size_t greetingSize = purpose == Purpose::JoinRoot ? sizeof(Hello) + sizeof(Registration) : sizeof(Hello);
  const auto* bytes = reinterpret_cast<const char*>(data);
  const size_t available = std::min(size, greetingSize);
  bool refused = false;
  for (size_t received = 0; received <= available; ++received) {
    std::string refusal;
    const GreetingStatus status = judgeGreeting(std::span(bytes, received), greetingSize, kSecret, purpose, refusal);
    FUZZ_CHECK(!refused || status == GreetingStatus::Refused);
    FUZZ_CHECK((status == GreetingStatus::Refused) == !refusal.empty());
    FUZZ_CHECK(status != GreetingStatus::Complete || received == greetingSize);
    refused = status == GreetingStatus::Refused;
    if (status == GreetingStatus::Complete && purpose == Purpose::JoinRoot) {
      const auto hello = readAt<Hello>(data, size, 0);
      const auto registration = readAt<Registration>(data, size, sizeof(Hello));
      if (registrationProblem(hello, registration).empty()) FUZZ_CHECK(hello.rank >= 0 && hello.rank < hello.nranks);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  judgeTrickle(data, size, Purpose::JoinRoot);
  judgeTrickle(data, size, Purpose::PeerLink);

  const auto frame = readAt<FrameHeader>(data, size, 0);
  if (frameHeaderValid(frame)) FUZZ_CHECK(frame.bytes <= kMaxFrameBytes);

  const auto reply = readAt<ReplyHeader>(data, size, 0);
  const int nranks = static_cast<int>(readAt<uint16_t>(data, size, sizeof(ReplyHeader)));
  if (replyHeaderValid(reply, nranks) && reply.code != trncclSuccess) FUZZ_CHECK(reply.bytes <= kMaxErrorMessage);
  return 0;
}
