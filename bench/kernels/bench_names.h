// What the benchmark measures and how each measurement is named, shared by
// the registration (main.cc) and the summary (summary.cc).
#pragma once

#include <cstddef>
#include <string>

#include "base/datatype.h"
#include "bench_buffers.h"

namespace trnccl::bench {

inline constexpr trncclDataType_t kTypes[] = {trncclInt8,    trncclUint8,    trncclInt32,      trncclUint32,
                                              trncclInt64,   trncclUint64,   trncclFloat16,    trncclFloat32,
                                              trncclFloat64, trncclBfloat16, trncclFloat8e4m3, trncclFloat8e5m2};
// The five operators, and PreMulSum: a sum with every source but the last
// scaled, as a ring step of trncclRedOpCreatePreMulSum's operator reduces
// the rank's input with a received partial sum.
struct BenchOp {
  const char* name;
  trncclRedOp_t op;
  bool preMultiplies;
};
inline constexpr BenchOp kSum{"sum", trncclSum, false};
inline constexpr BenchOp kOps[] = {kSum,
                                   {"prod", trncclProd, false},
                                   {"max", trncclMax, false},
                                   {"min", trncclMin, false},
                                   {"avg", trncclAvg, false},
                                   {"premulsum", trncclSum, true}};
inline constexpr size_t kBufferBytes[] = {size_t{4} << 10, size_t{1} << 20, kLargestBuffer};
inline constexpr int kSourceCounts[] = {2, 8};
inline constexpr const char* kStreamAdd = "stream_add";
inline constexpr const char* kMemcpy = "memcpy";

inline std::string sizeLabel(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + "MiB" : std::to_string(bytes >> 10) + "KiB";
}

// "reduce/bfloat16/sum/K2/64MiB"
inline std::string reduceName(trncclDataType_t type, const BenchOp& op, int nsrcs, size_t bytes) {
  return std::string("reduce/") + typeName(type) + "/" + op.name + "/K" + std::to_string(nsrcs) + "/" +
         sizeLabel(bytes);
}

// "reference/stream_add/64MiB"
inline std::string referenceName(const char* kind, size_t bytes) {
  return std::string("reference/") + kind + "/" + sizeLabel(bytes);
}

}  // namespace trnccl::bench
