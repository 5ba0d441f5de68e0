// The reduction-kernel library: what the simulated Trainium vector and DMA
// engines execute. Every byte of every reduction in trnccl goes through here.
//
// Semantics (DESIGN.md):
//  - dst[i] = op(src0[i], ..., srcK-1[i]) for K >= 1; dst may alias srcs[0]
//    exactly (in place); any other overlap is not allowed.
//  - Integer sum/prod wrap as the C type does; avg = wrapped sum / avgDivisor,
//    truncating as C division does.
//  - fp16, bf16, fp8 accumulate in FP32 across all sources of one call and
//    round once (round-to-nearest-even, or stochastic rounding); fp32 in FP32,
//    fp64 in FP64. avg = sum / avgDivisor in the accumulation type, then round.
//  - max/min propagate NaN (a NaN input gives a NaN result).
//  - PreMulSum (op == trncclSum with preMultiply.scalar set): the sources
//    whose bit is set in preMultiply.sources are multiplied by the scalar
//    (one element of the call's type) before the sum. Each product is one
//    operation of the accumulation type (FP32 for fp32, fp16, bf16 and fp8,
//    rounded to FP32 as every FP32 operation is; FP64 for fp64; wrapping for
//    integers), the sum runs in source order, and a narrow type rounds once.
//  - FP8 follows the OCP 8-bit floating point specification; see formats.h for
//    what overflow does.
//  - Results are bit-identical on every ISA path.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trnccl/trnccl.h"

namespace trnccl::device::kernels {

enum class Rounding : uint8_t { NearestEven, Stochastic };

// Stochastic rounding draws its random bits from a counter-based hash of
// (seed, call, element index), so a run repeats bit for bit and every rank that
// reduces the same element in the same call computes the same bits.
struct RoundingMode {
  Rounding kind = Rounding::NearestEven;
  uint64_t seed = 0;
  uint64_t call = 0;        // which reduction (e.g. collective sequence number)
  uint64_t firstIndex = 0;  // global index of element 0 of this call
};

// PreMulSum's scaling (NCCL's ncclRedOpCreatePreMulSum): the scalar is read
// through the pointer when the kernel runs.
struct PreMultiply {
  const void* scalar = nullptr;  // one element of the call's type; NULL: plain sum
  uint64_t sources = 0;          // bit k: source k is scaled
};

struct ReduceArgs {
  void* dst = nullptr;
  const void* const* srcs = nullptr;  // nsrcs pointers
  int nsrcs = 0;
  size_t count = 0;  // elements
  trncclDataType_t type = trncclFloat32;
  trncclRedOp_t op = trncclSum;
  uint64_t avgDivisor = 1;  // op == trncclAvg: result = sum / avgDivisor
  PreMultiply preMultiply;  // op == trncclSum only
  RoundingMode rounding;
};

struct ConvertArgs {
  void* dst = nullptr;
  trncclDataType_t dstType = trncclFloat32;
  const void* src = nullptr;
  trncclDataType_t srcType = trncclFloat32;
  size_t count = 0;
  RoundingMode rounding;
};

// Instruction-set paths; the best one the CPU has is chosen once at load
// (TRNCCL_KERNEL_ISA=scalar|avx2|avx512|avx512bf16|avx512vbmi may lower it).
// Each one's CPU features include the previous one's.
enum class Isa : uint8_t { Scalar, Avx2, Avx512, Avx512Bf16, Avx512Vbmi };
inline constexpr Isa kAllIsas[] = {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16, Isa::Avx512Vbmi};

const char* isaName(Isa isa);
bool isaSupported(Isa isa);  // this CPU can run it
Isa selectedIsa();

void reduce(const ReduceArgs& args);  // on selectedIsa()
void reduce(Isa isa, const ReduceArgs& args);

// Element-wise type conversion (the DMA engine's "copy with conversion").
// Any floating type to any floating type, and any type to itself.
bool canConvert(trncclDataType_t from, trncclDataType_t to);
void convert(const ConvertArgs& args);
void convert(Isa isa, const ConvertArgs& args);

}  // namespace trnccl::device::kernels
