// trnccl-top's command line.
#pragma once

#include <string>
#include <vector>

#include "cli/usage_error.h"
#include "trnccl/trnccl.h"

namespace trnccl::top {

using cli::UsageError;

struct Options {
  trncclUniqueId id{};
  bool json = false;
  bool once = false;
  int intervalMs = 1000;        // between refreshes
  int waitMs = 500;             // for the ranks' answers
  int connectTimeoutMs = 5000;  // to reach the root
  bool help = false;
};

Options parseOptions(const std::vector<std::string>& args);
std::string usageText();

// A unique id as hex (2 digits a byte, as the tests and launchers print it).
// Throws UsageError naming `source` for anything else.
trncclUniqueId uniqueIdFromText(const std::string& text, const std::string& source);

}  // namespace trnccl::top
