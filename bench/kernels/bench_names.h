// What the benchmark measures and how each measurement is named, shared by
// the registration (main.cc) and the summary (summary.cc).
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "base/datatype.h"
#include "base/type_table.h"
#include "bench_buffers.h"

namespace trnccl::bench {

inline constexpr auto kTypes = [] {
  std::array<trncclDataType_t, kTypeFacts.size()> types{};
  for (size_t i = 0; i < types.size(); ++i) types[i] = kTypeFacts[i].type;
  return types;
}();
// The five operators, and PreMulSum: a sum with every source but the last
// scaled, as a ring step of trncclRedOpCreatePreMulSum's operator reduces
// the rank's input with a received partial sum.
struct BenchOp {
  const char* name;
  trncclRedOp_t op;
  bool preMultiplies;
};
constexpr BenchOp libraryOp(trncclRedOp_t op) { return {kOpNames[op], op, false}; }
inline constexpr BenchOp kSum = libraryOp(trncclSum);
inline constexpr BenchOp kOps[] = {kSum,
                                   libraryOp(trncclProd),
                                   libraryOp(trncclMax),
                                   libraryOp(trncclMin),
                                   libraryOp(trncclAvg),
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
