// The entry points around the kernels: ISA selection and TRNCCL_KERNEL_ISA,
// argument checks, in-place operation, and integer avg at its edges.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/datatype.h"
#include "base/error.h"
#include "device/kernels/isa.h"
#include "test_support.h"

namespace trnccl::device::kernels::test {
namespace {

TEST_CASE("kernels: ISA names, support and selection", "[kernels][isa]") {
  CHECK(std::string(isaName(Isa::Scalar)) == "scalar");
  CHECK(std::string(isaName(Isa::Avx2)) == "avx2");
  CHECK(std::string(isaName(Isa::Avx512)) == "avx512");
  CHECK(std::string(isaName(Isa::Avx512Bf16)) == "avx512bf16");
  CHECK(std::string(isaName(Isa::Avx512Vbmi)) == "avx512vbmi");
  CHECK(isaSupported(Isa::Scalar));
  CHECK(isaSupported(selectedIsa()));
  // Each ISA includes the ones before it.
  for (size_t i = 1; i < std::size(kAllIsas); ++i)
    if (isaSupported(kAllIsas[i])) CHECK(isaSupported(kAllIsas[i - 1]));

  const ScopedEnv unset(isaSetting().name, nullptr);
  CHECK(chooseIsa() == supportedIsas().back());
}

TEST_CASE("kernels: TRNCCL_KERNEL_ISA lowers the ISA and rejects what it cannot run", "[kernels][isa]") {
  for (Isa isa : kAllIsas) {
    const ScopedEnv env(isaSetting().name, isaName(isa));
    INFO(isaName(isa));
    if (isaSupported(isa)) {
      CHECK(chooseIsa() == isa);
    } else {
      CHECK_THROWS_WITH(chooseIsa(), Catch::Contains(isaSetting().name));
    }
  }
  const ScopedEnv upper(isaSetting().name, "SCALAR");
  CHECK(chooseIsa() == Isa::Scalar);
  const ScopedEnv bogus(isaSetting().name, "sse9");
  try {
    chooseIsa();
    FAIL("an unknown ISA name was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains(isaSetting().name) && Catch::Contains("sse9"));
  }
}

TEST_CASE("kernels: reduce checks its arguments", "[kernels][arguments]") {
  float a = 1, b = 2, out = 0;
  const std::vector<const void*> srcs = {&a, &b};
  const void* nullSource[] = {&a, nullptr};
  const ReduceArgs good = reduceArgs(&out, srcs, 1, trncclFloat32, trncclSum);
  CHECK_NOTHROW(reduce(good));
  CHECK(out == 3);

  const auto rejects = [&](auto change) {
    ReduceArgs args = good;
    change(args);
    try {
      reduce(args);
    } catch (const Error& e) {
      return e.code() == trncclInvalidArgument;
    }
    return false;
  };
  CHECK(rejects([](ReduceArgs& args) { args.nsrcs = 0; }));
  CHECK(rejects([](ReduceArgs& args) { args.type = static_cast<trncclDataType_t>(12); }));
  CHECK(rejects([](ReduceArgs& args) { args.op = static_cast<trncclRedOp_t>(5); }));
  CHECK(rejects([](ReduceArgs& args) { args.op = trncclAvg, args.avgDivisor = 0; }));
  CHECK(rejects([](ReduceArgs& args) { args.dst = nullptr; }));
  CHECK(rejects([](ReduceArgs& args) { args.srcs = nullptr; }));
  CHECK(rejects([&](ReduceArgs& args) { args.srcs = nullSource; }));
  for (Isa isa : kAllIsas)
    if (!isaSupported(isa)) CHECK_THROWS_AS(reduce(isa, good), Error);

  ReduceArgs empty;  // count 0 is a no-op, even without buffers
  empty.nsrcs = 1;
  CHECK_NOTHROW(reduce(empty));
}

TEST_CASE("kernels: reduce works in place (dst == srcs[0]) on every ISA", "[kernels][reduce]") {
  constexpr size_t kCount = 4097;
  std::mt19937_64 rng(11);
  for (trncclDataType_t type : kAllTypes) {
    std::vector<std::vector<std::byte>> sources(9, std::vector<std::byte>(kCount * typeSize(type)));
    for (auto& source : sources) fillRandom(type, Values::AnyBits, source.data(), kCount, rng);
    for (trncclRedOp_t op : kAllOps) {
      for (int nsrcs : {1, 2, 3, 8, 9}) {  // looping, and compiled for the count (kernel_templates.h)
        for (Isa isa : supportedIsas()) {
          std::vector<const void*> srcs;
          for (int k = 0; k < nsrcs; ++k) srcs.push_back(sources[k].data());
          std::vector<std::byte> outOfPlace(sources[0].size());
          ReduceArgs args = reduceArgs(outOfPlace.data(), srcs, kCount, type, op);
          args.avgDivisor = 3;
          reduce(isa, args);
          std::vector<std::byte> inPlace = sources[0];
          srcs[0] = args.dst = inPlace.data();
          reduce(isa, args);
          INFO(typeName(type) << " " << opName(op) << " K=" << nsrcs << " on " << isaName(isa));
          CHECK(inPlace == outOfPlace);
        }
      }
    }
  }
}

template <class T>
T reduceOne(Isa isa, trncclDataType_t type, trncclRedOp_t op, std::vector<T> values, uint64_t divisor) {
  std::vector<const void*> srcs;
  for (const T& value : values) srcs.push_back(&value);
  T out{};
  ReduceArgs args = reduceArgs(&out, srcs, 1, type, op);
  args.avgDivisor = divisor;
  reduce(isa, args);
  return out;
}

TEST_CASE("kernels: integer sum, product and avg wrap and truncate as C does", "[kernels][reduce]") {
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  constexpr uint64_t kTwoTo63 = uint64_t{1} << 63, kMaxU64 = ~uint64_t{0};
  for (Isa isa : supportedIsas()) {
    INFO(isaName(isa));
    CHECK(reduceOne<int8_t>(isa, trncclInt8, trncclSum, {100, 100}, 1) == -56);
    CHECK(reduceOne<int8_t>(isa, trncclInt8, trncclAvg, {100, 100}, 2) == -28);  // wrapped sum / 2
    CHECK(reduceOne<int8_t>(isa, trncclInt8, trncclAvg, {-7, 0}, 2) == -3);      // toward zero
    CHECK(reduceOne<int8_t>(isa, trncclInt8, trncclAvg, {-128}, 200) == 0);      // divisor beyond int8
    CHECK(reduceOne<int8_t>(isa, trncclInt8, trncclProd, {-128, -1}, 1) == -128);
    CHECK(reduceOne<uint8_t>(isa, trncclUint8, trncclProd, {16, 17}, 1) == 16);
    CHECK(reduceOne<int32_t>(isa, trncclInt32, trncclSum, {INT32_MAX, 1}, 1) == INT32_MIN);
    CHECK(reduceOne<int32_t>(isa, trncclInt32, trncclProd, {65536, 65536}, 1) == 0);
    CHECK(reduceOne<uint32_t>(isa, trncclUint32, trncclAvg, {4000000000u, 4000000000u}, 2) ==
          (8000000000u & 0xFFFFFFFFu) / 2);
    CHECK(reduceOne<int64_t>(isa, trncclInt64, trncclAvg, {kMin64}, kTwoTo63) == -1);
    CHECK(reduceOne<int64_t>(isa, trncclInt64, trncclAvg, {kMin64 + 1}, kTwoTo63) == 0);
    CHECK(reduceOne<int64_t>(isa, trncclInt64, trncclAvg, {-5}, kMaxU64) == 0);
    CHECK(reduceOne<uint64_t>(isa, trncclUint64, trncclAvg, {kMaxU64}, kMaxU64) == 1);
    CHECK(reduceOne<uint64_t>(isa, trncclUint64, trncclSum, {kMaxU64, 2}, 1) == 1);
    CHECK(reduceOne<int64_t>(isa, trncclInt64, trncclMin, {-1, 1, kMin64}, 1) == kMin64);
  }
}

TEST_CASE("kernels: max and min propagate NaN, and the earliest of equal zeros wins", "[kernels][reduce]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Isa isa : supportedIsas()) {
    INFO(isaName(isa));
    for (trncclRedOp_t op : {trncclMax, trncclMin}) {
      for (const std::vector<float>& values : {std::vector<float>{nan, 1.0f}, {1.0f, nan}, {1.0f, 2.0f, nan}}) {
        const float result = reduceOne<float>(isa, trncclFloat32, op, values, 1);
        uint32_t bits;
        std::memcpy(&bits, &result, sizeof bits);
        CHECK(bits == 0x7FC00000u);
      }
      CHECK(std::signbit(reduceOne<float>(isa, trncclFloat32, op, {-0.0f, 0.0f}, 1)));
      CHECK_FALSE(std::signbit(reduceOne<float>(isa, trncclFloat32, op, {0.0f, -0.0f}, 1)));
      CHECK(std::isnan(reduceOne<double>(isa, trncclFloat64, op, {2.0, std::nan("")}, 1)));
    }
  }
}

TEST_CASE("kernels: every NaN result is the type's canonical NaN", "[kernels][reduce]") {
  // A negative signalling NaN with a payload, in the second of two sources.
  const std::pair<trncclDataType_t, uint64_t> kNaNs[] = {
      {trncclFloat16, 0xFD01},  {trncclBfloat16, 0xFF81},    {trncclFloat8e4m3, 0xFF},
      {trncclFloat8e5m2, 0xFD}, {trncclFloat32, 0xFF800123}, {trncclFloat64, 0xFFF0000000000123}};
  const std::pair<trncclDataType_t, uint64_t> kCanonical[] = {
      {trncclFloat16, 0x7E00},  {trncclBfloat16, 0x7FC0},    {trncclFloat8e4m3, 0x7F},
      {trncclFloat8e5m2, 0x7E}, {trncclFloat32, 0x7FC00000}, {trncclFloat64, 0x7FF8000000000000}};
  constexpr size_t kCount = 100;  // vector bodies and a tail
  for (size_t t = 0; t < std::size(kNaNs); ++t) {
    const auto [type, nanBits] = kNaNs[t];
    std::vector<std::byte> one(kCount * typeSize(type)), nan(one.size()), out(one.size());
    for (size_t i = 0; i < kCount; ++i) setBits(type, nan.data(), i, nanBits);
    const std::vector<const void*> srcs = {one.data(), nan.data()};
    for (Isa isa : supportedIsas()) {
      for (trncclRedOp_t op : kAllOps) {
        for (Rounding kind : {Rounding::NearestEven, Rounding::Stochastic}) {
          ReduceArgs args = reduceArgs(out.data(), srcs, kCount, type, op);
          args.rounding.kind = kind;
          reduce(isa, args);
          INFO(typeName(type) << " " << opName(op) << " on " << isaName(isa));
          for (size_t i = 0; i < kCount; ++i) REQUIRE(bitsAt(type, out.data(), i) == kCanonical[t].second);
        }
      }
    }
  }
}

}  // namespace
}  // namespace trnccl::device::kernels::test
