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
inline constexpr trncclRedOp_t kOps[] = {trncclSum, trncclProd, trncclMax, trncclMin, trncclAvg};
inline constexpr size_t kBufferBytes[] = {size_t{4} << 10, size_t{1} << 20, kLargestBuffer};
inline constexpr int kSourceCounts[] = {2, 8};
inline constexpr const char* kStreamAdd = "stream_add";
inline constexpr const char* kMemcpy = "memcpy";

inline std::string sizeLabel(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + "MiB" : std::to_string(bytes >> 10) + "KiB";
}

// "reduce/bfloat16/sum/K2/64MiB"
inline std::string reduceName(trncclDataType_t type, trncclRedOp_t op, int nsrcs, size_t bytes) {
  return std::string("reduce/") + typeName(type) + "/" + opName(op) + "/K" + std::to_string(nsrcs) + "/" +
         sizeLabel(bytes);
}

// "reference/stream_add/64MiB"
inline std::string referenceName(const char* kind, size_t bytes) {
  return std::string("reference/") + kind + "/" + sizeLabel(bytes);
}

}  // namespace trnccl::bench
