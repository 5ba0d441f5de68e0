// The five reduction operators and PreMulSum, written once over lane
// operations L: an ISA wrapper (FP32 vectors), ScalarLanes<double> or
// IntegerLanes<T>. Each built-in one is constructed with the call's avg
// divisor; input(k, x) prepares source k's loaded vectors, combine() folds
// the next source into the accumulator, finish() is the step after the last
// source.
// kScaleInvariant: scaling every source by a power of two scales the result
// by it, bit for bit, while no value nears FP32's denormals or overflow.
#pragma once

#include <cstdint>

namespace trnccl::device::kernels {
namespace {

// The built-in operators take every source as it is loaded.
struct TakesSourcesAsLoaded {
  static constexpr bool kPreMultiplies = false;
  template <class Vectors>
  void input(int, Vectors&) const {}
};

template <class L>
struct Sum : TakesSourcesAsLoaded {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = true;
  explicit Sum(uint64_t) {}
  X combine(X acc, X x) const { return L::add(acc, x); }
  X finish(X acc) const { return acc; }
};

template <class L>
struct Prod : TakesSourcesAsLoaded {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = false;
  explicit Prod(uint64_t) {}
  X combine(X acc, X x) const { return L::mul(acc, x); }
  X finish(X acc) const { return acc; }
};

// max/min propagate NaN: L::max(x, acc) returns acc when either is NaN, so a
// NaN accumulator sticks, and a NaN source is taken explicitly. Among equal
// values (+0 and -0) the earliest source wins.
template <class L>
struct Max : TakesSourcesAsLoaded {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = true;
  explicit Max(uint64_t) {}
  X combine(X acc, X x) const { return L::select(L::isNaN(x), x, L::max(x, acc)); }
  X finish(X acc) const { return acc; }
};

template <class L>
struct Min : TakesSourcesAsLoaded {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = true;
  explicit Min(uint64_t) {}
  X combine(X acc, X x) const { return L::select(L::isNaN(x), x, L::min(x, acc)); }
  X finish(X acc) const { return acc; }
};

template <class L>
struct Avg : TakesSourcesAsLoaded {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = true;
  explicit Avg(uint64_t divisor) : divisor_(L::avgDivisor(divisor)) {}
  X combine(X acc, X x) const { return L::add(acc, x); }
  X finish(X acc) const { return L::div(acc, divisor_); }

 private:
  decltype(L::avgDivisor(1)) divisor_;
};

// Sum, with the sources whose bit is set in `sources` multiplied by the
// scalar first (in L's arithmetic: FP32 lanes round each product to FP32).
// A power-of-two scale of a source commutes with the product, so it keeps
// Sum's scale invariance.
template <class L>
struct PreMulSum : Sum<L> {
  using X = typename L::F;
  static constexpr bool kPreMultiplies = true;
  PreMulSum(X scalar, uint64_t sources) : Sum<L>(1), scalar_(scalar), sources_(sources) {}
  template <class Vectors>
  void input(int k, Vectors& x) const {
    if (k >= 64 || ((sources_ >> k) & 1) == 0) return;
    for (X& v : x) v = L::mul(v, scalar_);
  }

 private:
  X scalar_;
  uint64_t sources_;
};

}  // namespace
}  // namespace trnccl::device::kernels
