// The libfabric transport's control messages as they arrive from a peer:
// parseControl judges them, with and without checksums (the last input byte
// picks). What it accepts follows its kind's rules, so the transport can
// trust sizes, chunk numbers and rails without checking them again; and a message it
// accepts, once sealed, is accepted with checksums, while the same message
// with any one byte changed is refused (CRC-32 catches every error of up to
// 32 consecutive bits).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "tests/fuzz/fuzz_check.h"
#include "transports/ofi/config.h"
#include "transports/ofi/wire.h"

namespace {

using namespace trnccl::transport::ofi;

constexpr size_t kEagerLimit = 16 * 1024 - sizeof(ControlHeader);

// The header parseControl accepted `message` with, or null if it refused it
// (with a RemoteError; anything else escapes and stops the fuzzer).
const ControlHeader* judge(const std::vector<std::byte>& message, bool checksums) {
  try {
    return &parseControl(message.data(), message.size(), kEagerLimit, checksums);
  } catch (const trnccl::Error& e) {
    FUZZ_CHECK(e.code() == trncclRemoteError);
    return nullptr;
  }
}

void checkValid(const ControlHeader& h, size_t length) {
  FUZZ_CHECK(length >= sizeof(ControlHeader) && h.magic == kControlMagic);
  const size_t payload = length - sizeof(ControlHeader);
  if (h.kind == ControlKind::Eager) {
    FUZZ_CHECK(h.bytes <= kEagerLimit && payload == h.bytes);
    return;
  }
  FUZZ_CHECK(payload == 0);
  if (h.kind == ControlKind::Rts) FUZZ_CHECK(h.bytes > kEagerLimit);
  if (h.kind == ControlKind::Cts) FUZZ_CHECK(h.count > 0 && uint64_t{h.first} + h.count <= kMaxChunks);
  if (h.kind == ControlKind::Cts) FUZZ_CHECK(h.receive < kMaxReceiveId && h.rail < kMaxRails);
  FUZZ_CHECK(h.creditRail < kMaxRails);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool checksums = data[size - 1] & 1;
  std::vector<std::byte> message(reinterpret_cast<const std::byte*>(data),
                                 reinterpret_cast<const std::byte*>(data) + size - 1);
  const ControlHeader* accepted = judge(message, checksums);
  if (accepted == nullptr || checksums) {
    if (accepted != nullptr) checkValid(*accepted, message.size());
    return 0;
  }
  checkValid(*accepted, message.size());
  sealControl(message.data(), message.size());
  FUZZ_CHECK(judge(message, true) != nullptr);
  const size_t at = (static_cast<size_t>(data[0]) * 131 + size) % message.size();
  message[at] ^= std::byte{static_cast<uint8_t>(data[size - 1] | 1)};
  FUZZ_CHECK(judge(message, true) == nullptr);
  return 0;
}
