#pragma once

#include "cli/usage_error.h"

namespace trnccl::perf {

// A bad command line: main prints the message and the usage text, then exits
// with status 2. The type every tool's command line throws.
using cli::UsageError;

}  // namespace trnccl::perf
