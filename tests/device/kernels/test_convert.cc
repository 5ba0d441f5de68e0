// convert(): which pairs it takes, same-type copies, and every float-to-float
// conversion against the reference rounding, on every ISA.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "base/datatype.h"
#include "base/error.h"
#include "reference.h"
#include "test_support.h"

namespace trnccl::device::kernels::test {
namespace {

uint64_t canonicalNaN(trncclDataType_t type) {
  switch (type) {
    case trncclFloat16:
      return 0x7E00;
    case trncclBfloat16:
      return 0x7FC0;
    case trncclFloat8e4m3:
      return 0x7F;
    case trncclFloat8e5m2:
      return 0x7E;
    case trncclFloat32:
      return 0x7FC00000;
    default:
      return 0x7FF8000000000000;
  }
}

std::vector<std::byte> runConvert(Isa isa, trncclDataType_t from, trncclDataType_t to,
                                  const std::vector<std::byte>& src, size_t count) {
  std::vector<std::byte> dst(count * typeSize(to));
  convert(isa, convertArgs(dst.data(), to, src.data(), from, count));
  return dst;
}

// Converts with every ISA and checks each result is the input rounded once to
// nearest even (NaN: the canonical NaN).
void checkConversion(trncclDataType_t from, trncclDataType_t to, const std::vector<std::byte>& src) {
  const size_t count = src.size() / typeSize(from);
  const Decoder decodeFrom(from), decodeTo(to);
  for (Isa isa : supportedIsas()) {
    const std::vector<std::byte> dst = runConvert(isa, from, to, src, count);
    for (size_t i = 0; i < count; ++i) {
      const double expected = roundToType(to, decodeFrom(src.data(), i));
      const double result = decodeTo(dst.data(), i);
      INFO(typeName(from) << " -> " << typeName(to) << " on " << isaName(isa) << ": input "
                          << hex(bitsAt(from, src.data(), i)) << ", result " << hex(bitsAt(to, dst.data(), i)));
      if (std::isnan(expected)) {
        REQUIRE(bitsAt(to, dst.data(), i) == canonicalNaN(to));
      } else {
        REQUIRE(result == expected);
        REQUIRE(std::signbit(result) == std::signbit(expected));
      }
    }
  }
}

template <class T>
std::vector<std::byte> bytesOf(const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST_CASE("kernels: canConvert takes any float to any float and any type to itself", "[kernels][convert]") {
  for (trncclDataType_t from : kAllTypes) {
    for (trncclDataType_t to : kAllTypes) {
      INFO(typeName(from) << " -> " << typeName(to));
      CHECK(canConvert(from, to) == (from == to || (isFloatType(from) && isFloatType(to))));
    }
  }
  CHECK_FALSE(canConvert(static_cast<trncclDataType_t>(-1), static_cast<trncclDataType_t>(-1)));
  CHECK_FALSE(canConvert(trncclNumTypes, trncclNumTypes));
  CHECK_FALSE(canConvert(trncclNumTypes, trncclFloat32));
}

TEST_CASE("kernels: convert to the same type copies the bits, NaN payloads included", "[kernels][convert]") {
  std::mt19937_64 rng(5);
  for (trncclDataType_t type : kAllTypes) {
    std::vector<std::byte> src(1001 * typeSize(type));
    fillRandom(type, Values::AnyBits, src.data(), 1001, rng);
    for (Isa isa : supportedIsas()) CHECK(runConvert(isa, type, type, src, 1001) == src);
  }
}

TEST_CASE("kernels: convert between floats rounds once to nearest even", "[kernels][convert]") {
  std::mt19937_64 rng(6);
  for (trncclDataType_t from : kFloatTypes) {
    std::vector<std::byte> src;
    if (layoutOf(from).exponentBits + layoutOf(from).mantissaBits <= 15) {
      // Every code of the 16- and 8-bit formats.
      const size_t codes = size_t{1} << (1 + layoutOf(from).exponentBits + layoutOf(from).mantissaBits);
      src.resize(codes * typeSize(from));
      for (size_t code = 0; code < codes; ++code) setBits(from, src.data(), code, code);
    } else {
      constexpr size_t kRandom = 20000;
      src.resize(2 * kRandom * typeSize(from));
      fillRandom(from, Values::AnyBits, src.data(), kRandom, rng);
      fillRandom(from, Values::Wide, src.data() + kRandom * typeSize(from), kRandom, rng);
    }
    for (trncclDataType_t to : kFloatTypes)
      if (to != from) checkConversion(from, to, src);
  }
}

TEST_CASE("kernels: fp64 to narrow formats rounds once: midpoints and their neighbours", "[kernels][convert]") {
  // Rounding fp64 to FP32 to nearest first would turn the neighbours of a
  // midpoint into the midpoint itself, and then into a wrong tie.
  for (trncclDataType_t to : kNarrowTypes) {
    const std::vector<double> values = finiteValues(to);
    std::vector<double> inputs;
    for (size_t j = 0; j + 1 < values.size(); ++j) {
      const double middle = (values[j] + values[j + 1]) / 2;
      for (double x : {middle, std::nextafter(middle, -INFINITY), std::nextafter(middle, INFINITY)}) {
        inputs.push_back(x);
        inputs.push_back(-x);
      }
    }
    checkConversion(trncclFloat64, to, bytesOf(inputs));
  }
}

TEST_CASE("kernels: convert rejects pairs it cannot convert and accepts count 0", "[kernels][convert]") {
  ConvertArgs args = convertArgs(nullptr, trncclFloat32, nullptr, trncclInt32, 0);
  CHECK_THROWS_AS(convert(args), Error);
  args.srcType = trncclFloat16;
  CHECK_NOTHROW(convert(args));
  args.count = 1;
  CHECK_THROWS_AS(convert(args), Error);  // NULL buffers
}

}  // namespace
}  // namespace trnccl::device::kernels::test
