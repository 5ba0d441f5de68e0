#include "tools/trnccl-doctor/options.h"

#include <charconv>

namespace trnccl::doctor {
namespace {

long long number(const std::string& option, const std::string& text, long long min, long long max) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max)
    throw UsageError(option + " takes a whole number in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "], not '" + text + "'");
  return value;
}

}  // namespace

Options parseOptions(const std::vector<std::string>& args) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "-n") {
      options.localRanks = static_cast<int>(number(arg, value(), 1, 1024));
    } else if (arg == "--timeout-ms") {
      options.timeout = std::chrono::milliseconds(number(arg, value(), 1, 3600000));
    } else if (arg == "--ptrace-scope-file") {
      options.ptraceScopeFile = value();
    } else {
      throw UsageError("unknown argument '" + arg + "'");
    }
  }
  return options;
}

std::string usageText() {
  return "usage: trnccl-doctor [-n N] [--json] [--timeout-ms MS] [--ptrace-scope-file PATH]\n"
         "  Checks that this host (alone, or N ranks started here with -n N, or every rank\n"
         "  under mpirun) can run trnccl with the TRNCCL_* environment it has: TRNCCL_* parse,\n"
         "  /dev/shm room and permissions, cross-memory attach, interface reachability between\n"
         "  all ranks (TRNCCL_SOCKET_IFNAME), libfabric providers, the topology against the\n"
         "  rank count, and the same version and settings on every rank.\n"
         "  One line per check (ok / problem ... fix ...); status 1 on a problem, 2 on bad usage.\n"
         "  --json                 the report as JSON\n"
         "  --timeout-ms MS        how long a connection between ranks may take (10000)\n"
         "  --ptrace-scope-file P  where Yama's ptrace scope is read (/proc/sys/kernel/yama/ptrace_scope)\n";
}

}  // namespace trnccl::doctor
