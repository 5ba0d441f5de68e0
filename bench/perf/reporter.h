#pragma once

#include <cstddef>
#include <fstream>
#include <vector>

#include "logic/options.h"
#include "logic/report_json.h"
#include "logic/row.h"

namespace trnccl::perf {

// Rank 0's output: the table on stdout as rows arrive, then the summary and,
// with -J, the JSON file (opened up front so a bad path fails before the run).
class Reporter {
 public:
  Reporter(const Options& options, RunInfo info);
  void begin();
  void add(const Row& row);
  // Prints the summary lines and writes the JSON file.
  void finish();

 private:
  const Options& options_;
  RunInfo info_;
  std::ofstream json_;
  std::vector<Row> rows_;
};

}  // namespace trnccl::perf
