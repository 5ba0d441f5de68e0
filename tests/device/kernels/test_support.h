// Shared pieces of the kernel tests: the ISAs to run, offset buffers, random
// data of every type, and environment-variable scoping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "device/kernels/kernels.h"
#include "tests/support/scoped_env.h"

namespace trnccl::device::kernels::test {

using trnccl::test::ScopedEnv;

inline constexpr trncclDataType_t kAllTypes[] = {trncclInt8,    trncclUint8,    trncclInt32,      trncclUint32,
                                                 trncclInt64,   trncclUint64,   trncclFloat16,    trncclFloat32,
                                                 trncclFloat64, trncclBfloat16, trncclFloat8e4m3, trncclFloat8e5m2};
inline constexpr trncclDataType_t kNarrowTypes[] = {trncclFloat16, trncclBfloat16, trncclFloat8e4m3, trncclFloat8e5m2};
inline constexpr trncclDataType_t kFloatTypes[] = {trncclFloat16,  trncclFloat32,    trncclFloat64,
                                                   trncclBfloat16, trncclFloat8e4m3, trncclFloat8e5m2};
inline constexpr trncclRedOp_t kAllOps[] = {trncclSum, trncclProd, trncclMax, trncclMin, trncclAvg};

std::vector<Isa> supportedIsas();

// Bytes whose data() lies `offset` bytes past a 64-byte boundary.
class Buffer {
 public:
  Buffer(size_t bytes, size_t offset);
  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }

 private:
  std::vector<std::byte> storage_;
  std::byte* data_;
};

enum class Values {
  AnyBits,  // every bit pattern, specials (NaN, inf, max, subnormals) mixed in for fp32/fp64
  Finite,   // finite; bf16/fp32 within 2^100 and fp64 within 2^1000 so FP32/FP64 sums of a few stay
            // finite
  NearOne,  // floats: magnitudes in [0.5, 2), random sign (products neither overflow nor underflow)
  Wide,     // fp32/fp64: exponents in [-40, 20] (the narrow formats' ranges) plus specials;
            // other types: as Finite
};

void fillRandom(trncclDataType_t type, Values values, void* dst, size_t count, std::mt19937_64& rng);

// Arguments for the common case; tests set what else they need.
ReduceArgs reduceArgs(void* dst, const std::vector<const void*>& srcs, size_t count, trncclDataType_t type,
                      trncclRedOp_t op);
ConvertArgs convertArgs(void* dst, trncclDataType_t dstType, const void* src, trncclDataType_t srcType, size_t count);

// The element's raw bits (zero-extended).
uint64_t bitsAt(trncclDataType_t type, const void* buffer, size_t i);
void setBits(trncclDataType_t type, void* buffer, size_t i, uint64_t bits);

std::string hex(uint64_t bits);

}  // namespace trnccl::device::kernels::test
