#include "options.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <fstream>
#include <sstream>

#include "cli/command_line.h"

namespace trnccl::top {

trncclUniqueId uniqueIdFromText(const std::string& text, const std::string& source) {
  std::string hex;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) hex += c;
  trncclUniqueId id{};
  const size_t bytes = sizeof(id.internal);
  if (hex.size() != 2 * bytes)
    throw UsageError(source + " has " + std::to_string(hex.size()) + " characters, not the " +
                     std::to_string(2 * bytes) + " hex digits of a unique id");
  for (size_t i = 0; i < bytes; ++i) {
    const std::string pair = hex.substr(2 * i, 2);
    if (!std::isxdigit(static_cast<unsigned char>(pair[0])) || !std::isxdigit(static_cast<unsigned char>(pair[1])))
      throw UsageError(source + " is not hex: '" + pair + "' at byte " + std::to_string(i));
    id.internal[i] = static_cast<char>(std::stoi(pair, nullptr, 16));
  }
  return id;
}

Options parseOptions(const std::vector<std::string>& args) {
  Options o;
  CLI::App app;
  cli::prepare(app);
  std::string idText, idFile;
  app.add_flag("-h,--help", o.help);
  app.add_flag("--json", o.json);
  app.add_flag("--once", o.once);
  cli::addInt(app, "--interval-ms", o.intervalMs, 100, 3600000);
  cli::addInt(app, "--wait-ms", o.waitMs, 1, 10000);
  cli::addInt(app, "--connect-timeout-ms", o.connectTimeoutMs, 1, 600000);
  cli::addText(app, "--id-file", idFile);
  app.add_option("id", idText);
  cli::parse(app, args, "unknown argument");
  if (o.help) return o;
  if (!idText.empty() && !idFile.empty()) throw UsageError("give the unique id or --id-file, not both");
  if (!idFile.empty()) {
    std::ifstream in(idFile);
    if (!in) throw UsageError("--id-file " + idFile + " cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    o.id = uniqueIdFromText(text.str(), "--id-file " + idFile);
  } else if (!idText.empty()) {
    o.id = uniqueIdFromText(idText, "the unique id");
  } else {
    throw UsageError("missing the job's unique id (hex, or --id-file FILE)");
  }
  return o;
}

std::string usageText() {
  return "usage: trnccl-top [--json] [--once] [--interval-ms MS] [--wait-ms MS]\n"
         "                  [--connect-timeout-ms MS] (ID | --id-file FILE)\n"
         "A live view of a running trnccl job: asks its rendezvous root (at the\n"
         "address in its unique id, with the id's secret) for every rank's state,\n"
         "per communicator: each rank's last started and last finished collective,\n"
         "the ranks missing from the oldest open one, bytes per transport and rail,\n"
         "errors. Encrypted jobs: set TRNCCL_ENCRYPTION_KEY_FILE as for the job.\n"
         "\n"
         "  ID                    the job's trncclUniqueId, as hex\n"
         "  --id-file FILE        read the hex id from FILE\n"
         "  --json                print JSON (one object per refresh, one per line)\n"
         "  --once                print one snapshot and exit\n"
         "  --interval-ms MS      time between refreshes (default 1000)\n"
         "  --wait-ms MS          how long the root waits for each rank's answer;\n"
         "                        a rank that does not answer (stopped, swapping)\n"
         "                        is shown as not answering (default 500)\n"
         "  --connect-timeout-ms MS\n"
         "                        give up reaching the root after MS (default 5000)\n"
         "  -h, --help            print this help\n"
         "\n"
         "exit status: 0 shown, 1 the job could not be asked, 2 a bad command line\n";
}

}  // namespace trnccl::top
