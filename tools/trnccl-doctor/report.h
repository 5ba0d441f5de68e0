// The job's report: every rank's verdicts merged into one line per check
// (ranks that agree share a line), printed as text or JSON by rank 0.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "tools/trnccl-doctor/check.h"

namespace trnccl::doctor {

struct MergedCheck {
  std::string check;
  bool ok = true;
  // One entry per distinct verdict; `ranks` is empty for a job-wide check.
  struct Finding {
    std::vector<int> ranks;
    bool ok;
    std::string detail;
    std::string fix;
  };
  std::vector<Finding> findings;
};

// perRank[r]: rank r's verdicts, in the same order of checks on every rank;
// `jobWide`: verdicts every rank reached alike, reported once.
std::vector<MergedCheck> mergeResults(const std::vector<std::vector<CheckResult>>& perRank,
                                      const std::vector<CheckResult>& jobWide);

bool allOk(const std::vector<MergedCheck>& merged);

// "shm          ok: ..." / "cma          problem: ranks 2-3: ... fix: ..."
void printText(std::ostream& out, const std::vector<MergedCheck>& merged, int nranks, int hosts);
void printJson(std::ostream& out, const std::vector<MergedCheck>& merged, int nranks, int hosts);

}  // namespace trnccl::doctor
