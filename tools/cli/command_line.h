// What every tool's command line does the same way, on CLI11.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cli/usage_error.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace trnccl::cli {

// Sets up an app before its options are added: no generated help flag (each
// tool prints its own usage text), a flag given twice keeps its last value,
// and arguments it does not know are left for parse to name.
void prepare(CLI::App& app);

// An option with one value that `apply` reads after the whole command line
// is parsed; `names` as CLI11 takes them ("-n,--iters"). `valueName`
// ("<count>") ends the error for a missing value.
CLI::Option* addValue(CLI::App& app, const std::string& names, std::function<void(const std::string&)> apply,
                      const std::string& valueName = "");

// An option whose value is kept as it is.
CLI::Option* addText(CLI::App& app, const std::string& names, std::string& target);

// The largest int: the max of a count with no bound of its own.
inline constexpr int kMaxInt = std::numeric_limits<int>::max();

// An integer option in [min, max], named in errors by its first name.
CLI::Option* addInt(CLI::App& app, const std::string& names, int& target, int min, int max);

// An integer in [min, max]; the error names the flag and the text.
int parseInt(std::string_view flag, std::string_view text, int min, int max);

// Parses the arguments after the program name. Throws UsageError for a flag
// given a value it takes none of, a value missing at the end, and the first
// argument the app (or the subcommand given) does not know, as
// "<unknown> '<arg>'".
void parse(CLI::App& app, const std::vector<std::string>& args, std::string_view unknown);

}  // namespace trnccl::cli
