#include "transports/ofi/wire.h"

#include <zlib.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

#include "base/error.h"
#include "transports/ofi/config.h"

namespace trnccl::transport::ofi {
namespace {

[[noreturn]] void malformed(const std::string& what) {
  throwError(trncclRemoteError, "sent a malformed control message: " + what);
}

// The CRC-32 of a control message with its checksum field read as 0.
uint32_t controlChecksum(const std::byte* data, size_t length) {
  constexpr size_t kField = offsetof(ControlHeader, checksum);
  constexpr std::byte kZero[sizeof(ControlHeader::checksum)]{};
  uLong crc = crc32_z(0, nullptr, 0);
  crc = crc32_z(crc, reinterpret_cast<const Bytef*>(data), kField);
  crc = crc32_z(crc, reinterpret_cast<const Bytef*>(kZero), sizeof kZero);
  crc = crc32_z(crc, reinterpret_cast<const Bytef*>(data + kField + sizeof kZero), length - kField - sizeof kZero);
  return static_cast<uint32_t>(crc);
}

}  // namespace

std::string checksumsDiffer(uint32_t arrived, uint32_t sent) {
  char text[48];
  std::snprintf(text, sizeof text, "CRC-32 %08x, the sender's %08x", arrived, sent);
  return text;
}

uint32_t crc32Of(const void* data, size_t bytes) {
  return static_cast<uint32_t>(crc32_z(crc32_z(0, nullptr, 0), static_cast<const Bytef*>(data), bytes));
}

void sealControl(std::byte* data, size_t length) {
  const uint32_t crc = controlChecksum(data, length);
  std::memcpy(data + offsetof(ControlHeader, checksum), &crc, sizeof crc);
}

const ControlHeader& parseControl(const std::byte* data, size_t length, size_t eagerLimit, bool checksums) {
  if (length < sizeof(ControlHeader)) malformed(std::to_string(length) + " bytes, shorter than a header");
  const auto& h = *reinterpret_cast<const ControlHeader*>(data);
  // Before anything is read from it: a corrupted header's fields mean nothing.
  if (checksums) {
    const uint32_t arrived = controlChecksum(data, length);
    if (arrived != h.checksum)
      throwError(trncclRemoteError, "sent a control message of " + std::to_string(length) +
                                        " bytes that arrived corrupted (" + checksumsDiffer(arrived, h.checksum) + ")");
  }
  if (h.magic != kControlMagic) malformed("bad magic " + std::to_string(h.magic));
  if (h.creditRail >= kMaxRails) malformed("credits for rail " + std::to_string(h.creditRail));
  const size_t payload = length - sizeof(ControlHeader);
  switch (h.kind) {
    case ControlKind::Eager:
      if (h.bytes > eagerLimit || payload != h.bytes)
        malformed("an eager message of " + std::to_string(h.bytes) + " bytes carrying " + std::to_string(payload));
      return h;
    case ControlKind::Cts:
      if (h.count == 0 || uint64_t{h.first} + h.count > kMaxChunks)
        malformed("a clear-to-send for chunks " + std::to_string(h.first) + " + " + std::to_string(h.count));
      if (h.rail >= kMaxRails) malformed("a clear-to-send on rail " + std::to_string(h.rail));
      [[fallthrough]];
    case ControlKind::Rts:
    case ControlKind::Nack:
    case ControlKind::Credit:
    case ControlKind::Bye:
    case ControlKind::Done:
    case ControlKind::Ping:
    case ControlKind::Pong:
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
