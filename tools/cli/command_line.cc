#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <limits>

namespace trnccl::cli {

namespace {

// CLI11 would read "--json=1" as "--json true"; the tools refuse a value for
// a flag that takes none instead.
void refuseFlagValue(const CLI::App& app, const std::string& arg) {
  const size_t eq = arg.find('=');
  if (!arg.starts_with("--") || eq == std::string::npos) return;
  const std::string name = arg.substr(0, eq);
  const CLI::Option* option = app.get_option_no_throw(name);
  if (option != nullptr && option->get_expected_max() == 0) throw UsageError(name + " takes no value");
}

}  // namespace

void prepare(CLI::App& app) {
  app.set_help_flag();
  app.allow_extras();
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* addValue(CLI::App& app, const std::string& names, std::function<void(const std::string&)> apply,
                      const std::string& valueName) {
  return app.add_option_function<std::string>(names, std::move(apply))->type_name(valueName);
}

CLI::Option* addText(CLI::App& app, const std::string& names, std::string& target) {
  return addValue(app, names, [&target](const std::string& v) { target = v; });
}

CLI::Option* addInt(CLI::App& app, const std::string& names, int& target, int min, int max) {
  const std::string flag = names.substr(0, names.find(','));
  return addValue(app, names,
                  [&target, flag, min, max](const std::string& v) { target = parseInt(flag, v, min, max); });
}

int parseInt(std::string_view flag, std::string_view text, int min, int max) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    const std::string range = max == std::numeric_limits<int>::max()
                                  ? ">= " + std::to_string(min)
                                  : "from " + std::to_string(min) + " to " + std::to_string(max);
    throw UsageError("invalid value '" + std::string(text) + "' for " + std::string(flag) + ": expected an integer " +
                     range);
  }
  return value;
}

void parse(CLI::App& app, const std::vector<std::string>& args, std::string_view unknown) {
  for (const std::string& arg : args) refuseFlagValue(app, arg);
  std::vector<std::string> lastFirst(args.rbegin(), args.rend());  // the order CLI11 consumes
  try {
    app.parse(lastFirst);
  } catch (const CLI::ArgumentMismatch&) {
    // An option takes the next argument whatever it is, so only the last one
    // can lack its value.
    const std::string flag = args.back().substr(0, args.back().find('='));
    const CLI::Option* option = app.get_option_no_throw(flag);  // null for "-vn", -v -n joined
    const std::string valueName = option == nullptr ? "" : option->get_type_name();
    throw UsageError(flag + " needs a value" + (valueName.empty() ? "" : " " + valueName));
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  const std::vector<std::string> rest = app.remaining(true);  // a subcommand's too
  if (!rest.empty()) throw UsageError(std::string(unknown) + " '" + rest.front() + "'");
}

}  // namespace trnccl::cli
