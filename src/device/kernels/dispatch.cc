// The entry points of kernels.h: argument checks, the per-call stochastic
// rounding key, and one table lookup per call for the ISA's kernel.
#include <cstring>
#include <iterator>
#include <string>

#include "base/datatype.h"
#include "base/error.h"
#include "device/kernels/kernels.h"
#include "kernel_parts.h"  // made by CMakeLists.txt

namespace trnccl::device::kernels {
namespace {

// `make`'s table, built at its first use.
template <KernelTable (*make)()>
const KernelTable& builtOnce() {
  static const KernelTable table = make();
  return table;
}

const KernelTable& kernelsFor(Isa isa) {
  if (!isaSupported(isa))
    throwInvalidArgument("isa", std::string("'") + isaName(isa) + "' is not supported by this CPU");
  // In Isa order. Each built at its first use, never for an ISA this CPU
  // lacks: an ISA's table-filling code is compiled for that ISA and may use
  // its instructions.
  static constexpr const KernelTable& (*kTables[])() = {builtOnce<makeScalarKernels>, builtOnce<makeAvx2Kernels>,
                                                        builtOnce<makeAvx512Kernels>, builtOnce<makeAvx512Bf16Kernels>,
                                                        builtOnce<makeAvx512VbmiKernels>};
  static_assert(std::size(kTables) == std::size(kAllIsas));
  return kTables[static_cast<size_t>(isa)]();
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

RandomKey randomKey(const RoundingMode& mode) {
  if (mode.kind != Rounding::Stochastic) return {};
  const uint64_t key = splitmix64(mode.seed ^ splitmix64(mode.call));
  return {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
}

void checkType(const char* argument, trncclDataType_t type) {
  if (!validType(type)) throwInvalidArgument(argument, "is not a trncclDataType_t (" + std::to_string(type) + ")");
}

void checkBuffer(const char* argument, const void* pointer) {
  if (pointer == nullptr) throwInvalidArgument(argument, "is NULL");
}

void validate(const ReduceArgs& args) {
  checkType("type", args.type);
  if (!validOp(args.op)) throwInvalidArgument("op", "is not a trncclRedOp_t (" + std::to_string(args.op) + ")");
  if (args.nsrcs < 1) throwInvalidArgument("nsrcs", "must be at least 1 (is " + std::to_string(args.nsrcs) + ")");
  if (args.op == trncclAvg && args.avgDivisor == 0) throwInvalidArgument("avgDivisor", "is 0");
  if (args.preMultiply.scalar != nullptr && args.op != trncclSum)
    throwInvalidArgument("preMultiply", std::string("goes with op sum, not ") + opName(args.op));
  if (args.nsrcs < 64 && (args.preMultiply.sources >> args.nsrcs) != 0)
    throwInvalidArgument("preMultiply.sources", "names a source beyond nsrcs = " + std::to_string(args.nsrcs));
  if (args.count == 0) return;
  checkBuffer("dst", args.dst);
  checkBuffer("srcs", args.srcs);
  // The argument's name is spelled out only for a bad one: every call checks.
  for (int k = 0; k < args.nsrcs; ++k)
    if (args.srcs[k] == nullptr) throwInvalidArgument("srcs[" + std::to_string(k) + "]", "is NULL");
}

void validate(const ConvertArgs& args) {
  checkType("srcType", args.srcType);
  checkType("dstType", args.dstType);
  if (!canConvert(args.srcType, args.dstType)) {
    throwInvalidArgument("dstType", std::string("cannot be converted to from ") + typeName(args.srcType) +
                                        " (only between floating types)");
  }
  if (args.count == 0) return;
  checkBuffer("dst", args.dst);
  checkBuffer("src", args.src);
}

}  // namespace

void reduce(const ReduceArgs& args) {
  // Below a vector's width the SIMD kernels only set up their blocks and
  // tails; the scalar path gives the same bits (every ISA does) sooner.
  constexpr size_t kScalarBelowBytes = 64;
  const Isa selected = selectedIsa();  // a bad TRNCCL_KERNEL_ISA throws, whatever the size
  reduce(args.count * typeSize(args.type) < kScalarBelowBytes ? Isa::Scalar : selected, args);
}

void reduce(Isa isa, const ReduceArgs& args) {
  validate(args);
  const KernelTable& kernels = kernelsFor(isa);
  if (args.count == 0) return;
  const bool preMultiplies = args.preMultiply.scalar != nullptr && args.preMultiply.sources != 0;
  const ReduceKernel kernel = preMultiplies ? kernels.preMulSum[args.type] : kernels.reduce[args.type][args.op];
  kernel(args, randomKey(args.rounding));
}

bool canConvert(trncclDataType_t from, trncclDataType_t to) {
  return validType(from) && validType(to) && (from == to || (isFloatType(from) && isFloatType(to)));
}

void convert(const ConvertArgs& args) { convert(selectedIsa(), args); }

void convert(Isa isa, const ConvertArgs& args) {
  validate(args);
  const KernelTable& kernels = kernelsFor(isa);
  if (args.count == 0) return;
  if (args.srcType == args.dstType) {
    if (args.dst != args.src) std::memmove(args.dst, args.src, args.count * typeSize(args.srcType));
    return;
  }
  kernels.convert[args.srcType][args.dstType](args, randomKey(args.rounding));
}

}  // namespace trnccl::device::kernels
