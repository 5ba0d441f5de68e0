#include "base/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>

#include "base/settings.h"

namespace trnccl::log {
namespace {

TRNCCL_SETTING(kDebug, TRNCCL_DEBUG, settings::choice("NONE, WARN, INFO, TRACE", "NONE"),
               "NCCL_DEBUG-style log lines `host:pid:tid TRNCCL LEVEL ...`; TRACE prints every schedule",
               settings::Scope::Rank);
TRNCCL_SETTING(kDebugFile, TRNCCL_DEBUG_FILE, settings::text("path, `%h` host, `%p` pid", "stderr"),
               "where log lines go", settings::Scope::Rank);

Level parseLevel() {
  const std::string choice = settings::readChoice(kDebug);
  return choice == "WARN"    ? Level::Warn
         : choice == "INFO"  ? Level::Info
         : choice == "TRACE" ? Level::Trace
                             : Level::None;
}

struct Sink {
  Level level = Level::None;
  FILE* out = stderr;
  std::string host;
  std::mutex mutex;

  Sink() {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    host = name;
    // A bad TRNCCL_DEBUG must not make logging itself throw: report and use WARN.
    try {
      level = parseLevel();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "trnccl: %s; using WARN\n", e.what());
      level = Level::Warn;
    }
    if (auto path = settings::readText(kDebugFile)) openFile(*path);
  }

  void openFile(const std::string& pattern) {
    std::string path;
    for (size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'h') {
        path += host, ++i;
      } else if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
        path += std::to_string(getpid()), ++i;
      } else {
        path += pattern[i];
      }
    }
    if (FILE* f = std::fopen(path.c_str(), "w")) {
      out = f;
    } else {
      std::fprintf(stderr, "trnccl: cannot open TRNCCL_DEBUG_FILE='%s'; logging to stderr\n", path.c_str());
    }
  }
};

Sink& sink() {
  static Sink instance;
  return instance;
}

const char* levelName(Level l) {
  switch (l) {
    case Level::Warn:
      return "WARN";
    case Level::Info:
      return "INFO";
    case Level::Trace:
      return "TRACE";
    default:
      return "";
  }
}

}  // namespace

Level level() { return sink().level; }

void checkEnvironment() { parseLevel(); }

void write(Level l, const char* format, ...) {
  Sink& s = sink();
  char message[2048];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  std::lock_guard<std::mutex> lock(s.mutex);
  std::fprintf(s.out, "%s:%d:%ld TRNCCL %s %s\n", s.host.c_str(), getpid(), static_cast<long>(syscall(SYS_gettid)),
               levelName(l), message);
  std::fflush(s.out);
}

}  // namespace trnccl::log
