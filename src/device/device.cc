#include "device/device.h"

#include <algorithm>
#include <cstring>

#include "base/datatype.h"

namespace trnccl::device {

EngineStats Engine::stats() const {
  return EngineStats{calls_.load(), bytes_.load(), static_cast<double>(picoseconds_.load()) * 1e-12};
}

void Engine::reset() {
  calls_ = 0;
  bytes_ = 0;
  picoseconds_ = 0;
}

// One writer at a time (the executor, in its communicator's turns, which hand
// over with release/acquire), so plain stores: three locked additions were a
// tenth of a small collective's cost. Readers see each counter whole.
void Engine::account(uint64_t bytes, double seconds) {
  constexpr auto r = std::memory_order_relaxed;
  calls_.store(calls_.load(r) + 1, r);
  bytes_.store(bytes_.load(r) + bytes, r);
  // Rounded to the nearest picosecond without llround's call: times are
  // never negative.
  picoseconds_.store(picoseconds_.load(r) + static_cast<uint64_t>(seconds * 1e12 + 0.5), r);
}

void DmaEngine::copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  std::memcpy(dst, src, bytes);
  account(2 * bytes, dmaCopySeconds(model_, bytes));
}

void DmaEngine::convert(const kernels::ConvertArgs& args) {
  kernels::convert(args);
  const size_t moved = args.count * std::max(typeSize(args.srcType), typeSize(args.dstType));
  account(args.count * (typeSize(args.srcType) + typeSize(args.dstType)), dmaCopySeconds(model_, moved));
}

void VectorEngine::reduce(const kernels::ReduceArgs& args) {
  kernels::reduce(args);
  const size_t elem = typeSize(args.type);
  account(args.count * elem * (args.nsrcs + 1), vectorReduceSeconds(model_, args.count, args.nsrcs, elem));
}

}  // namespace trnccl::device
