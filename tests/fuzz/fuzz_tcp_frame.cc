// The TCP transport's frame headers as they arrive: parseFrame judges every
// prefix of the bytes. A verdict, once reached, holds for every longer prefix,
// and a frame it accepts follows its kind's rules, so the receiver can trust
// offsets and lengths without checking them again.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "tests/fuzz/fuzz_check.h"
#include "transports/tcp/frame.h"

namespace {

using namespace trnccl::transport::tcp;

const uint64_t kJob = jobIdOf("fuzz");

void checkValid(const FrameHeader& h) {
  FUZZ_CHECK(h.magic == kFrameMagic && h.job == kJob && h.seq != 0);
  FUZZ_CHECK(h.total <= kMaxMessageBytes);
  if (h.kind == FrameKind::Eager) FUZZ_CHECK(h.length == h.total && h.total <= kEagerBytes);
  if (h.kind == FrameKind::Data) {
    FUZZ_CHECK(h.length >= 1 && h.length <= kChunkBytes);
    FUZZ_CHECK(h.offset + h.length <= h.total);
  }
  if (h.kind != FrameKind::Eager && h.kind != FrameKind::Data) FUZZ_CHECK(h.length == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  const size_t available = std::min(size, sizeof(FrameHeader) + 8);
  auto decided = FrameVerdict::Status::NeedMore;
  for (size_t received = 0; received <= available; ++received) {
    const FrameVerdict verdict = parseFrame(std::span(bytes, received), kJob);
    FUZZ_CHECK(decided == FrameVerdict::Status::NeedMore || verdict.status == decided);
    FUZZ_CHECK((verdict.status == FrameVerdict::Status::Malformed) == !verdict.problem.empty());
    if (verdict.status == FrameVerdict::Status::Valid) {
      FUZZ_CHECK(received >= sizeof(FrameHeader));
      FUZZ_CHECK(std::memcmp(&verdict.header, data, sizeof(FrameHeader)) == 0);
      checkValid(verdict.header);
    }
    decided = verdict.status;
  }
  return 0;
}
