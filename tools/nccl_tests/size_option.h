#pragma once

#include <cstddef>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace trnccl::perf {

// A byte-count option of a bench's command line, read by parse_size ("64M").
CLI::Option* add_size_option(CLI::App& app, const std::string& names, size_t& target);

// The sweep of a bench whose sizes grow by a factor, with nccl-tests' flags:
// -b/--minbytes, -e/--maxbytes (sizes) and -f/--stepfactor (2 or more).
void add_factor_sweep_options(CLI::App& app, size_t& min_bytes, size_t& max_bytes, size_t& step_factor);

}  // namespace trnccl::perf
