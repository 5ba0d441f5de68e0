// NCCL_DEBUG-style logging: TRNCCL_DEBUG=WARN|INFO|TRACE (default: none,
// warnings only go out when asked), TRNCCL_DEBUG_FILE=path with %h (host) and
// %p (pid) substituted; lines look like "host:pid:tid TRNCCL INFO message".
#pragma once

namespace trnccl::log {

enum class Level { None = 0, Warn = 1, Info = 2, Trace = 3 };

Level level();  // parsed once from TRNCCL_DEBUG (a bad value logs a note and means WARN)
// Throws Error(InvalidArgument) naming TRNCCL_DEBUG if its value is not a level:
// creating a communicator refuses what logging itself only warns about.
void checkEnvironment();
inline bool enabled(Level l) { return static_cast<int>(l) <= static_cast<int>(level()); }
void write(Level l, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace trnccl::log

#define TRNCCL_LOG(lvl, ...)                                        \
  do {                                                              \
    if (::trnccl::log::enabled(::trnccl::log::Level::lvl))          \
      ::trnccl::log::write(::trnccl::log::Level::lvl, __VA_ARGS__); \
  } while (0)
#define TRNCCL_WARN(...) TRNCCL_LOG(Warn, __VA_ARGS__)
#define TRNCCL_INFO(...) TRNCCL_LOG(Info, __VA_ARGS__)
#define TRNCCL_TRACE(...) TRNCCL_LOG(Trace, __VA_ARGS__)
