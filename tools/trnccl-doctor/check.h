// One check's verdict on one rank, and the job-wide report merged from every
// rank's verdicts.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trnccl::doctor {

struct CheckResult {
  std::string check;  // "shm", "cma", ...
  bool ok = true;
  std::string detail;  // what was found
  std::string fix;     // what to do about it (problems only)
};

inline CheckResult ok(std::string check, std::string detail) { return {std::move(check), true, std::move(detail), {}}; }
inline CheckResult problem(std::string check, std::string detail, std::string fix) {
  return {std::move(check), false, std::move(detail), std::move(fix)};
}

nlohmann::json toJson(const std::vector<CheckResult>& results);
std::vector<CheckResult> resultsFromJson(const nlohmann::json& json);

}  // namespace trnccl::doctor
