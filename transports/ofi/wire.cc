#include "transports/ofi/wire.h"

#include "base/error.h"

namespace trnccl::transport::ofi {
namespace {

[[noreturn]] void malformed(const std::string& what) {
  throwError(trncclRemoteError, "sent a malformed control message: " + what);
}

}  // namespace

const ControlHeader& parseControl(const std::byte* data, size_t length, size_t eagerLimit) {
  if (length < sizeof(ControlHeader)) malformed(std::to_string(length) + " bytes, shorter than a header");
  const auto& h = *reinterpret_cast<const ControlHeader*>(data);
  if (h.magic != kControlMagic) malformed("bad magic " + std::to_string(h.magic));
  const size_t payload = length - sizeof(ControlHeader);
  switch (h.kind) {
    case ControlKind::Eager:
      if (h.bytes > eagerLimit || payload != h.bytes)
        malformed("an eager message of " + std::to_string(h.bytes) + " bytes carrying " + std::to_string(payload));
      return h;
    case ControlKind::Cts:
      if (h.count == 0 || uint64_t{h.first} + h.count > kMaxChunks)
        malformed("a clear-to-send for chunks " + std::to_string(h.first) + " + " + std::to_string(h.count));
      [[fallthrough]];
    case ControlKind::Rts:
    case ControlKind::Nack:
    case ControlKind::Credit:
    case ControlKind::Bye:
      if (payload != 0) malformed("a header with " + std::to_string(payload) + " bytes after it");
      if (h.kind == ControlKind::Rts && h.bytes <= eagerLimit)
        malformed("an announcement of only " + std::to_string(h.bytes) + " bytes");
      if (h.kind == ControlKind::Cts && h.receive >= kMaxReceiveId)
        malformed("a clear-to-send for receive " + std::to_string(h.receive));
      return h;
  }
  malformed("unknown kind " + std::to_string(static_cast<uint32_t>(h.kind)));
}

}  // namespace trnccl::transport::ofi
