// trnccl-top: a live view of a running trnccl job (neuron-top's idea, NCCL
// RAS's questions): which rank is where, who is missing from the collective
// the others wait in, what moved over which transport, what failed.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "core/status_query.h"
#include "job_view.h"
#include "options.h"
#include "text_view.h"

int main(int argc, char** argv) {
  using namespace trnccl;
  top::Options options;
  try {
    options = top::parseOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const top::UsageError& e) {
    std::fprintf(stderr, "trnccl-top: %s (see trnccl-top --help)\n", e.what());
    return 2;
  }
  if (options.help) {
    std::fputs(top::usageText().c_str(), stdout);
    return 0;
  }
  const bool clearScreen = !options.json && !options.once && isatty(STDOUT_FILENO);
  while (true) {
    try {
      const nlohmann::json view = top::jobView(core::queryJobStatus(
          options.id, std::chrono::milliseconds(options.connectTimeoutMs), std::chrono::milliseconds(options.waitMs)));
      const std::string text = options.json ? view.dump() + "\n" : top::textView(view);
      std::fputs(((clearScreen ? "\033[H\033[2J" : "") + text).c_str(), stdout);
      std::fflush(stdout);
    } catch (const Error& e) {
      std::fprintf(stderr, "trnccl-top: %s\n", e.what());
      return e.code() == trncclInvalidArgument ? 2 : 1;
    }
    if (options.once) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(options.intervalMs));
  }
}
