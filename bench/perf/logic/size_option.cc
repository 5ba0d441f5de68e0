#include "logic/size_option.h"

#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "logic/sizes.h"

namespace trnccl::perf {

CLI::Option* add_size_option(CLI::App& app, const std::string& names, size_t& target) {
  return cli::addValue(app, names, [&target](const std::string& text) { target = parse_size(text); });
}

}  // namespace trnccl::perf
