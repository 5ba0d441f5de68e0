// The five reduction operators, written once over lane operations L: an ISA
// wrapper (FP32 vectors), ScalarLanes<double> or IntegerLanes<T>. Each is
// constructed with the call's avg divisor; combine() folds the next source
// into the accumulator, finish() is the step after the last source.
// kScaleInvariant: scaling every source by a power of two scales the result
// by it, bit for bit, while no value nears FP32's denormals or overflow.
#pragma once

#include <cstdint>

namespace trnccl::device::kernels {
namespace {

template <class L>
struct Sum {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = true;
  explicit Sum(uint64_t) {}
  X combine(X acc, X x) const { return L::add(acc, x); }
  X finish(X acc) const { return acc; }
};

template <class L>
struct Prod {
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
struct Max {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = true;
  explicit Max(uint64_t) {}
  X combine(X acc, X x) const { return L::select(L::isNaN(x), x, L::max(x, acc)); }
  X finish(X acc) const { return acc; }
};

template <class L>
struct Min {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = true;
  explicit Min(uint64_t) {}
  X combine(X acc, X x) const { return L::select(L::isNaN(x), x, L::min(x, acc)); }
  X finish(X acc) const { return acc; }
};

template <class L>
struct Avg {
  using X = typename L::F;
  static constexpr bool kScaleInvariant = true;
  explicit Avg(uint64_t divisor) : divisor_(L::avgDivisor(divisor)) {}
  X combine(X acc, X x) const { return L::add(acc, x); }
  X finish(X acc) const { return L::div(acc, divisor_); }

 private:
  decltype(L::avgDivisor(1)) divisor_;
};

}  // namespace
}  // namespace trnccl::device::kernels
