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
    } else if (arg == "--rendezvous") {
      options.rendezvous = value();
    } else if (arg == "--rank") {
      options.rank = static_cast<int>(number(arg, value(), 0, 1 << 20));
    } else if (arg == "--nranks") {
      options.nranks = static_cast<int>(number(arg, value(), 1, 1 << 20));
    } else if (arg == "--timeout-ms") {
      options.timeout = std::chrono::milliseconds(number(arg, value(), 1, 3600000));
    } else if (arg == "--ptrace-scope-file") {
      options.ptraceScopeFile = value();
    } else {
      throw UsageError("unknown argument '" + arg + "'");
    }
  }
  const bool joined = !options.rendezvous.empty() || options.rank >= 0 || options.nranks > 0;
  if (joined && (options.rendezvous.empty() || options.rank < 0 || options.nranks == 0))
    throw UsageError("--rendezvous, --rank and --nranks go together");
  if (joined && options.rank >= options.nranks)
    throw UsageError("--rank " + std::to_string(options.rank) + " is not below --nranks " +
                     std::to_string(options.nranks));
  if (joined && options.localRanks != 1) throw UsageError("-n starts ranks on this host; --rendezvous joins one");
  return options;
}

std::string usageText() {
  return "usage: trnccl-doctor [-n N | --rendezvous DIR --rank R --nranks N] [--json] [--timeout-ms MS]\n"
         "                     [--ptrace-scope-file PATH]\n"
         "  Checks that this host (alone, or N ranks started here with -n N, or every rank\n"
         "  under mpirun) can run trnccl with the TRNCCL_* environment it has: TRNCCL_* parse,\n"
         "  /dev/shm room and permissions, cross-memory attach, interface reachability between\n"
         "  all ranks (TRNCCL_SOCKET_IFNAME), libfabric providers, the topology against the\n"
         "  rank count, and the same version and settings on every rank.\n"
         "  One line per check (ok / problem ... fix ...); status 1 on a problem, 2 on bad usage.\n"
         "  -n N                   start N ranks on this host\n"
         "  --rendezvous DIR --rank R --nranks N\n"
         "                         be rank R of N started by hand or any launcher, exchanging\n"
         "                         through files in DIR (empty, seen by every rank)\n"
         "  --json                 the report as JSON\n"
         "  --timeout-ms MS        how long a connection between ranks may take (10000)\n"
         "  --ptrace-scope-file P  where Yama's ptrace scope is read (/proc/sys/kernel/yama/ptrace_scope)\n";
}

}  // namespace trnccl::doctor
