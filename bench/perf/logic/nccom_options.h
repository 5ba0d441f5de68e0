// trnccl-nccom-test's command line: Neuron's nccom-test flags, operation
// names and size units, read into trnccl-perf's Options.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "logic/options.h"

namespace trnccl::perf {

// "1kb", "64MB", "2g", "512": binary units, as nccom-test reads them.
size_t parse_nccom_size(std::string_view text);

// Throws UsageError naming the flag on anything it cannot use.
Options parse_nccom_args(const std::vector<std::string>& args);

std::string nccom_usage_text();

}  // namespace trnccl::perf
