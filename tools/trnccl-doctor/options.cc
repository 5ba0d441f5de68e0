#include "tools/trnccl-doctor/options.h"

#include <CLI/CLI.hpp>

#include "cli/command_line.h"

namespace trnccl::doctor {

Options parseOptions(const std::vector<std::string>& args) {
  Options options;
  CLI::App app;
  cli::prepare(app);
  app.add_flag("-h,--help", options.help);
  app.add_flag("--json", options.json);
  app.add_flag("--settings", options.settings);
  app.add_flag("--transports", options.transports);
  cli::addInt(app, "-n", options.localRanks, 1, 1024);
  cli::addText(app, "--rendezvous", options.rendezvous);
  cli::addInt(app, "--rank", options.rank, 0, 1 << 20);
  cli::addInt(app, "--nranks", options.nranks, 1, 1 << 20);
  cli::addValue(app, "--timeout-ms", [&options](const std::string& v) {
    options.timeout = std::chrono::milliseconds(cli::parseInt("--timeout-ms", v, 1, 3600000));
  });
  cli::addText(app, "--ptrace-scope-file", options.ptraceScopeFile);
  cli::parse(app, args, "unknown argument");
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
         "       trnccl-doctor --settings | --transports\n"
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
         "  --settings             list every TRNCCL_* setting (values, default, meaning) as a\n"
         "                         Markdown table, and check nothing\n"
         "  --timeout-ms MS        how long a connection between ranks may take (10000)\n"
         "  --ptrace-scope-file P  where Yama's ptrace scope is read (/proc/sys/kernel/yama/ptrace_scope)\n"
         "  --transports           list this build's transports and what each declares (JSON), and exit\n";
}

}  // namespace trnccl::doctor
