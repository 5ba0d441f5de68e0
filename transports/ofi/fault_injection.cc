#include "transports/ofi/fault_injection.h"

#include <string_view>

#include "base/error.h"

namespace trnccl::transport::ofi {
namespace {

[[noreturn]] void badItem(const std::string& spec, const std::string& item) {
  throwError(trncclInvalidArgument,
             "environment variable TRNCCL_OFI_FAULTS='" + spec + "': '" + item +
                 "' is not one of delay[=MICROSECONDS], reorder, corrupt=N, seed=N (':'-separated)");
}

uint64_t number(const std::string& spec, const std::string& item, std::string_view digits) {
  if (digits.empty() || digits.size() > 12 || digits.find_first_not_of("0123456789") != std::string_view::npos)
    badItem(spec, item);
  return std::stoull(std::string(digits));
}

}  // namespace

FaultConfig parseFaults(const std::string& spec) {
  FaultConfig config;
  size_t start = 0;
  while (start < spec.size()) {
    size_t end = spec.find(':', start);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(start, end - start);
    start = end + 1;
    const std::string_view view(item);
    if (view == "delay") {
      config.maxDelay = std::chrono::microseconds(2000);
    } else if (view.starts_with("delay=")) {
      config.maxDelay = std::chrono::microseconds(number(spec, item, view.substr(6)));
    } else if (view == "reorder") {
      config.reorder = true;
    } else if (view.starts_with("corrupt=")) {
      config.corruptEvery = number(spec, item, view.substr(8));
      if (config.corruptEvery == 0) badItem(spec, item);
    } else if (view.starts_with("seed=")) {
      config.seed = number(spec, item, view.substr(5));
    } else {
      badItem(spec, item);
    }
    config.enabled = true;
  }
  return config;
}

}  // namespace trnccl::transport::ofi
