#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "logic/options.h"
#include "logic/row.h"

namespace trnccl::perf {

// What a JSON report records besides the rows, so that a file says what was
// measured without the command line that made it.
struct RunInfo {
  int nranks;
  std::string launch;     // "mpirun" or "threads"
  int version_code;       // from trncclGetVersion
  std::string transport;  // from trncclCommGetTransport (rank 0's)
  std::map<std::string, std::string> trnccl_env;
};

// "X.Y.Z" from TRNCCL_VERSION_CODE's X*10000 + Y*100 + Z.
std::string version_string(int version_code);

nlohmann::json report_json(const Options& options, const RunInfo& info, const std::vector<Row>& rows,
                           size_t wrong_total, double avg_busbw);

}  // namespace trnccl::perf
