#include "nccl_tests/size_option.h"

#include <CLI/CLI.hpp>
#include <limits>

#include "cli/command_line.h"
#include "nccl_tests/sizes.h"

namespace trnccl::perf {

CLI::Option* add_size_option(CLI::App& app, const std::string& names, size_t& target) {
  return cli::addValue(app, names, [&target](const std::string& text) { target = parse_size(text); });
}

void add_factor_sweep_options(CLI::App& app, size_t& min_bytes, size_t& max_bytes, size_t& step_factor) {
  add_size_option(app, "-b,--minbytes", min_bytes);
  add_size_option(app, "-e,--maxbytes", max_bytes);
  cli::addValue(app, "-f,--stepfactor", [&step_factor](const std::string& v) {
    step_factor = static_cast<size_t>(cli::parseInt("-f", v, 2, std::numeric_limits<int>::max()));
  });
}

}  // namespace trnccl::perf
