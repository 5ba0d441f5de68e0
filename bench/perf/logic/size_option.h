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

}  // namespace trnccl::perf
