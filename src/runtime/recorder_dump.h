// A flight recorder's dump: one JSON file per rank and communicator, written
// on timeout, on trncclCommAbort and on SIGUSR1 into TRNCCL_TRACE_DIR, and
// read back by `trnccl-trace analyze`. docs/tracing.md describes the format.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runtime/flight_recorder.h"

namespace trnccl::runtime {

inline constexpr const char* kDumpFormat = "trnccl-flight-recorder";
inline constexpr int kDumpVersion = 1;

// Who dumps, and why.
struct DumpHeader {
  std::string comm;      // the communicator's id, the same on all its ranks
  std::string commName;  // config.commName, if any
  int rank = 0;
  int nranks = 1;
  std::string reason;  // "timeout", "abort", "signal", ...
};

nlohmann::json dumpJson(const FlightRecorder& recorder, const DumpHeader& header);
// One operation as the dump writes it (trnccl-top shows the same fields).
nlohmann::json opJson(const OpSnapshot& op, const TickClock::Scale& scale);

// `<dir>/trnccl-<comm>-rank<R>.json`: a later dump of the same rank replaces
// an earlier one.
std::string dumpPath(const std::string& dir, const DumpHeader& header);

// Writes the recorder's dump to dumpPath(); returns the path. Atomic (a
// temporary file renamed), so a reader never sees half a dump. Throws
// Error(SystemError) if the file cannot be written.
std::string writeDump(const FlightRecorder& recorder, const DumpHeader& header, const std::string& dir);

}  // namespace trnccl::runtime
