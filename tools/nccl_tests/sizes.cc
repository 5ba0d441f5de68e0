#include "nccl_tests/sizes.h"

#include <charconv>
#include <limits>
#include <string>

#include "cli/usage_error.h"

namespace trnccl::perf {

namespace {

size_t suffix_unit(std::string_view suffix, std::string_view text) {
  if (suffix.empty()) return 1;
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'k':
      case 'K':
        return size_t{1} << 10;
      case 'm':
      case 'M':
        return size_t{1} << 20;
      case 'g':
      case 'G':
        return size_t{1} << 30;
      default:
        break;
    }
  }
  throw cli::UsageError("invalid size '" + std::string(text) + "': the suffix must be K, M or G");
}

}  // namespace

size_t parse_size(std::string_view text) {
  const char* first = text.data();
  const char* last = first + text.size();
  size_t value = 0;
  const auto [end, error] = std::from_chars(first, last, value);
  if (error == std::errc::result_out_of_range) throw cli::UsageError("size '" + std::string(text) + "' is too large");
  if (error != std::errc()) {
    throw cli::UsageError("invalid size '" + std::string(text) + "': expected bytes with an optional K, M or G suffix");
  }
  const size_t unit = suffix_unit(std::string_view(end, static_cast<size_t>(last - end)), text);
  if (value > std::numeric_limits<size_t>::max() / unit) {
    throw cli::UsageError("size '" + std::string(text) + "' is too large");
  }
  return value * unit;
}

std::vector<size_t> size_sweep(size_t min_bytes, size_t max_bytes, size_t step_factor, size_t step_bytes) {
  if (min_bytes > max_bytes) {
    throw cli::UsageError("minbytes (" + std::to_string(min_bytes) + ") is larger than maxbytes (" +
                          std::to_string(max_bytes) + ")");
  }
  if (step_factor == 0) throw cli::UsageError("stepfactor must be at least 1");
  const bool multiply = step_factor > 1;
  if (multiply && min_bytes == 0) throw cli::UsageError("minbytes 0 never grows with a stepfactor; use -b 1 or more");
  if (!multiply && step_bytes == 0) throw cli::UsageError("stepbytes must be above 0 when stepfactor is 1");

  std::vector<size_t> sizes;
  for (size_t size = min_bytes;;) {
    sizes.push_back(size);
    const size_t room = std::numeric_limits<size_t>::max();
    if (multiply ? size > room / step_factor : size > room - step_bytes) break;
    size = multiply ? size * step_factor : size + step_bytes;
    if (size > max_bytes) break;
  }
  return sizes;
}

}  // namespace trnccl::perf
