// The hello that opens every TCP transport connection, judged as its bytes
// trickle in by a listener (rank 3 of 8 serving the even lower ranks): a
// refusal is final, and a hello accepted whole comes from a lower peer of the
// same communicator presenting the listener's secret.
#include <cstdint>
#include <cstring>

#include "tests/fuzz/fuzz_check.h"
#include "transports/tcp/frame.h"
#include "transports/tcp/handshake.h"

namespace {

using namespace trnccl::transport::tcp;

constexpr Secret kSecret = {'f', 'u', 'z', 'z', '-', 's', 'e', 'c', 'r', 'e', 't', '-', 'k', 'e', 'y', '!'};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const HelloExpectation expected{jobIdOf("fuzz"), kSecret, 3, 8};
  auto isPeer = [](int rank) { return rank % 2 == 0; };
  Hello hello{};
  std::memcpy(&hello, data, std::min(size, sizeof hello));
  bool refused = false;
  for (size_t received = 0; received <= std::min(size, sizeof hello); ++received) {
    const bool refusedNow = !helloProblem(hello, received, expected, isPeer).empty();
    FUZZ_CHECK(!refused || refusedNow);
    refused = refusedNow;
    if (received == sizeof hello && !refused) {
      FUZZ_CHECK(hello.job == expected.job && hello.secret == expected.secret);
      FUZZ_CHECK(hello.nranks == 8 && hello.rank >= 0 && hello.rank < 3 && isPeer(hello.rank));
    }
  }
  return 0;
}
