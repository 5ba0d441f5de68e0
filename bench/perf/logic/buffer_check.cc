#include "logic/buffer_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "logic/value_codec.h"
#include "nccl_tests/datatypes.h"

namespace trnccl::perf {

void fill_input(const PatternSpec& spec, int rank, std::byte* buffer, size_t count) {
  const size_t element_size = type_size(spec.type);
  // One period, encoded once, then copied over the buffer: encoding every
  // element of a large fp8 buffer would dominate a benchmark run.
  std::vector<std::byte> period(kPatternPeriod * element_size);
  for (size_t i = 0; i < kPatternPeriod; ++i) {
    encode_value(spec.type, input_value(spec, rank, i), period.data() + i * element_size);
  }
  for (size_t done = 0; done < count; done += kPatternPeriod) {
    const size_t n = std::min(kPatternPeriod, count - done);
    std::memcpy(buffer + done * element_size, period.data(), n * element_size);
  }
}

size_t count_wrong(const ExpectedOutput& expected, trncclDataType_t type, const std::byte* output) {
  const size_t element_size = type_size(type);
  size_t wrong = 0;
  for (size_t i = 0; i < expected.checked_count(); ++i) {
    const ExpectedValue want = expected.at(i);
    const double got = decode_value(type, output + i * element_size);
    if (!(std::fabs(got - want.value) <= want.tolerance)) ++wrong;
  }
  return wrong;
}

}  // namespace trnccl::perf
