#include "test_support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/datatype.h"
#include "reference.h"

namespace trnccl::device::kernels::test {
namespace {

constexpr uint64_t kFp32Specials[] = {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
                                      0xFFC00000, 0x7F800001, 0x7FA12345, 0x7F7FFFFF, 0xFF7FFFFF,
                                      0x00800000, 0x00000001, 0x80000001, 0x007FFFFF, 0x3F800000};
constexpr uint64_t kFp64Specials[] = {0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
                                      0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF4000012345678,
                                      0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x0010000000000000, 0x0000000000000001,
                                      0x8000000000000001, 0x000FFFFFFFFFFFFF, 0x3FF0000000000000};

uint64_t widthMask(trncclDataType_t type) {
  const size_t bits = typeSize(type) * 8;
  return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

double valueOfBits(trncclDataType_t type, uint64_t bits) {
  uint64_t word = bits;
  return valueAt(type, &word, 0);
}

// A pattern with the given sign, unbiased exponent and random mantissa.
uint64_t floatBits(const FloatLayout& f, bool negative, int exponent, std::mt19937_64& rng) {
  const uint64_t mantissa = rng() & ((uint64_t{1} << f.mantissaBits) - 1);
  const auto field = static_cast<uint64_t>(exponent + f.bias);
  const int width = 1 + f.exponentBits + f.mantissaBits;
  return (uint64_t{negative} << (width - 1)) | (field << f.mantissaBits) | mantissa;
}

uint64_t specialOrRandom(trncclDataType_t type, uint64_t random, std::mt19937_64& rng) {
  if (type != trncclFloat32 && type != trncclFloat64) return random;
  if (rng() % 4 != 0) return random;
  const auto& specials = type == trncclFloat32 ? kFp32Specials : kFp64Specials;
  return specials[rng() % std::size(specials)];
}

uint64_t randomBits(trncclDataType_t type, Values values, std::mt19937_64& rng) {
  const uint64_t mask = widthMask(type);
  if (!isFloatType(type) || values == Values::AnyBits) return specialOrRandom(type, rng() & mask, rng);
  const FloatLayout f = layoutOf(type);
  if (values == Values::NearOne) return floatBits(f, rng() & 1, -static_cast<int>(rng() & 1), rng);
  if (values == Values::Wide && f.bias > 40) {
    const int exponent = static_cast<int>(rng() % 61) - 40;
    return specialOrRandom(type, floatBits(f, rng() & 1, exponent, rng), rng);
  }
  const double limit = type == trncclFloat64 ? 0x1p1000 : (f.exponentBits == 8 ? 0x1p100 : INFINITY);
  for (;;) {
    const uint64_t bits = rng() & mask;
    const double v = valueOfBits(type, bits);
    if (std::isfinite(v) && std::fabs(v) <= limit) return bits;
  }
}

}  // namespace

std::vector<Isa> supportedIsas() {
  std::vector<Isa> isas;
  for (Isa isa : kAllIsas)
    if (isaSupported(isa)) isas.push_back(isa);
  return isas;
}

Buffer::Buffer(size_t bytes, size_t offset) : storage_(bytes + offset + 64) {
  const auto address = reinterpret_cast<uintptr_t>(storage_.data());
  data_ = storage_.data() + ((64 - address % 64) % 64) + offset;
}

void fillRandom(trncclDataType_t type, Values values, void* dst, size_t count, std::mt19937_64& rng) {
  for (size_t i = 0; i < count; ++i) setBits(type, dst, i, randomBits(type, values, rng));
}

ReduceArgs reduceArgs(void* dst, const std::vector<const void*>& srcs, size_t count, trncclDataType_t type,
                      trncclRedOp_t op) {
  ReduceArgs args;
  args.dst = dst;
  args.srcs = srcs.data();
  args.nsrcs = static_cast<int>(srcs.size());
  args.count = count;
  args.type = type;
  args.op = op;
  return args;
}

ConvertArgs convertArgs(void* dst, trncclDataType_t dstType, const void* src, trncclDataType_t srcType, size_t count) {
  ConvertArgs args;
  args.dst = dst;
  args.dstType = dstType;
  args.src = src;
  args.srcType = srcType;
  args.count = count;
  return args;
}

uint64_t bitsAt(trncclDataType_t type, const void* buffer, size_t i) {
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const std::byte*>(buffer) + i * typeSize(type), typeSize(type));
  return bits;
}

void setBits(trncclDataType_t type, void* buffer, size_t i, uint64_t bits) {
  std::memcpy(static_cast<std::byte*>(buffer) + i * typeSize(type), &bits, typeSize(type));
}

std::string hex(uint64_t bits) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(bits));
  return text;
}

}  // namespace trnccl::device::kernels::test
