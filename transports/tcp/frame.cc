#include "transports/tcp/frame.h"

#include <cstddef>
#include <cstdio>
#include <cstring>

#include "base/fnv1a.h"

namespace trnccl::transport::tcp {

namespace {

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

FrameVerdict malformed(std::string problem) { return {FrameVerdict::Status::Malformed, {}, std::move(problem)}; }

bool knownKind(uint8_t kind) {
  return kind >= static_cast<uint8_t>(FrameKind::Eager) && kind <= static_cast<uint8_t>(FrameKind::Ack);
}

// The rules of one kind of frame; empty when `h` follows them.
std::string kindProblem(const FrameHeader& h) {
  // Built only for a frame that breaks a rule: parsing valid frames allocates nothing.
  auto what = [&h] { return std::string(frameKindName(h.kind)) + " frame (message " + std::to_string(h.seq) + ") "; };
  const bool noPayload = h.offset == 0 && h.length == 0;
  switch (h.kind) {
    case FrameKind::Eager:
      if (h.total > kEagerBytes)
        return what() + "of " + std::to_string(h.total) + " bytes: eager messages hold at most " +
               std::to_string(kEagerBytes);
      if (h.length != h.total || h.offset != 0)
        return what() + "with " + std::to_string(h.length) + " payload bytes for a " + std::to_string(h.total) +
               "-byte message";
      return {};
    case FrameKind::Rts:
      if (h.total <= kEagerBytes || h.total > kMaxMessageBytes)
        return what() + "announcing " + std::to_string(h.total) + " bytes, not in (" + std::to_string(kEagerBytes) +
               ", " + std::to_string(kMaxMessageBytes) + "]";
      if (!noPayload) return what() + "with a payload";
      return {};
    case FrameKind::Cts:
      if (!noPayload || h.tag != 0 || h.total != 0) return what() + "with fields it does not use";
      return {};
    case FrameKind::Nack:
    case FrameKind::Cancel:
      if (!noPayload || h.tag != 0) return what() + "with fields it does not use";
      if (h.total > kMaxMessageBytes) return what() + "counting " + std::to_string(h.total) + " bytes";
      return {};
    case FrameKind::Data:
      if (h.total <= kEagerBytes || h.total > kMaxMessageBytes)
        return what() + "of a " + std::to_string(h.total) + "-byte message, not in (" + std::to_string(kEagerBytes) +
               ", " + std::to_string(kMaxMessageBytes) + "]";
      if (h.length == 0 || h.length > kChunkBytes)
        return what() + "with " + std::to_string(h.length) + " payload bytes, not in [1, " +
               std::to_string(kChunkBytes) + "]";
      if (h.offset >= h.total || h.length > h.total - h.offset)
        return what() + "with " + std::to_string(h.length) + " bytes at offset " + std::to_string(h.offset) + " of a " +
               std::to_string(h.total) + "-byte message";
      return {};
    case FrameKind::Ack:
      if (!noPayload || h.tag != 0 || h.total != 0 || h.number != 0) return what() + "with fields it does not use";
      return {};
  }
  return what() + "of an unknown kind";
}

}  // namespace

const char* frameKindName(FrameKind kind) {
  switch (kind) {
    case FrameKind::Eager:
      return "Eager";
    case FrameKind::Rts:
      return "Rts";
    case FrameKind::Cts:
      return "Cts";
    case FrameKind::Nack:
      return "Nack";
    case FrameKind::Cancel:
      return "Cancel";
    case FrameKind::Data:
      return "Data";
    case FrameKind::Ack:
      return "Ack";
  }
  return "unknown";
}

FrameHeader makeFrame(FrameKind kind, uint64_t job, uint64_t seq) {
  FrameHeader header{};
  header.magic = kFrameMagic;
  header.kind = kind;
  header.job = job;
  header.seq = seq;
  return header;
}

FrameVerdict parseFrame(std::span<const std::byte> bytes, uint64_t job) {
  uint32_t magic = 0;
  if (bytes.size() >= sizeof magic) {
    std::memcpy(&magic, bytes.data(), sizeof magic);
    if (magic != kFrameMagic) return malformed("bad magic " + hex(magic) + " (expected " + hex(kFrameMagic) + ")");
  }
  if (bytes.size() > offsetof(FrameHeader, kind)) {
    const auto kind = std::to_integer<uint8_t>(bytes[offsetof(FrameHeader, kind)]);
    if (!knownKind(kind)) return malformed("unknown frame kind " + std::to_string(kind));
  }
  if (bytes.size() < sizeof(FrameHeader)) return {};

  FrameHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (h.reserved[0] != 0 || h.reserved[1] != 0 || h.reserved[2] != 0) return malformed("nonzero reserved header bytes");
  if (h.job != job)
    return malformed("a frame of another communicator (job id " + hex(h.job) + ", expected " + hex(job) + ")");
  if (h.seq == 0) return malformed(std::string(frameKindName(h.kind)) + " frame of message 0");
  if (std::string problem = kindProblem(h); !problem.empty()) return malformed(std::move(problem));
  return {FrameVerdict::Status::Valid, h, {}};
}

uint64_t jobIdOf(std::string_view jobKey) { return fnv1a(jobKey); }

}  // namespace trnccl::transport::tcp
