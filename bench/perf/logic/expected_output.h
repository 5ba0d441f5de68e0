#pragma once

#include <array>
#include <cstddef>

#include "logic/pattern.h"
#include "nccl_tests/collective.h"

namespace trnccl::perf {

// What each element of one rank's output buffer must hold after a collective
// whose inputs follow the pattern.
class ExpectedOutput {
 public:
  ExpectedOutput(Collective collective, const PatternSpec& spec, const Layout& layout, int rank, int root);

  // Elements of the output that are defined (0 on non-root ranks of reduce).
  size_t checked_count() const { return checked_count_; }
  ExpectedValue at(size_t element) const;

 private:
  ExpectedValue input_of(int rank, size_t index) const { return {input_value(spec_, rank, index), 0.0}; }

  Collective collective_;
  PatternSpec spec_;
  Layout layout_;
  int rank_;
  int root_;
  size_t checked_count_;
  // The reduction depends only on the index modulo the pattern period.
  std::array<ExpectedValue, kPatternPeriod> reduced_{};
};

}  // namespace trnccl::perf
