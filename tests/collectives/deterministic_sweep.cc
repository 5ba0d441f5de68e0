#include "deterministic_sweep.h"

#include <set>

namespace trnccl::test {

SweepResult sweepAlgorithms(trncclComm_t comm, const std::vector<std::string>& algorithms, size_t count,
                            bool deterministic, uint64_t salt) {
  SweepResult sweep;
  for (trncclDataType_t type : {trncclFloat32, trncclBfloat16, trncclFloat16})
    for (trncclRedOp_t op : {trncclSum, trncclAvg}) sweep.cases.push_back(RandomCase{type, op, count});
  sweep.bits.resize(sweep.cases.size());
  for (const std::string& algorithm : algorithms) {
    trncclCollConfig_t config = TRNCCL_COLLCONFIG_INITIALIZER;
    config.algorithm = algorithm.c_str();
    config.deterministic = deterministic ? 1 : 0;
    bool ran = true;
    for (size_t k = 0; k < sweep.cases.size() && ran; ++k) {
      std::vector<char> result;
      const std::string error = randomAllReduce(comm, sweep.cases[k], salt, &result, &config);
      if (error.find("cannot run this call") != std::string::npos) {
        ran = false;  // refused alike on every rank, before anything is sent
      } else if (!error.empty()) {
        sweep.error = algorithm + ": " + error;
        return sweep;  // a failed call leaves the ranks out of step
      } else {
        sweep.bits[k][algorithm] = std::move(result);
      }
    }
    if (ran) sweep.ran.push_back(algorithm);
  }
  return sweep;
}

std::string deterministicMismatch(const SweepResult& sweep, int nranks, uint64_t salt) {
  for (size_t k = 0; k < sweep.cases.size(); ++k) {
    const RandomCase& c = sweep.cases[k];
    const auto& byAlgorithm = sweep.bits[k];
    if (byAlgorithm.empty()) continue;
    const std::vector<char> want = c.op == trncclSum ? rankOrderSum(c, nranks, salt) : byAlgorithm.begin()->second;
    const std::string wantFrom = c.op == trncclSum ? "the rank-order FP32 sum" : byAlgorithm.begin()->first;
    for (const auto& [algorithm, bits] : byAlgorithm)
      if (bits != want)
        return describeCase(c) + " on " + std::to_string(nranks) + " ranks: " + algorithm + "'s bits differ from " +
               wantFrom + "'s";
  }
  return {};
}

std::vector<int> distinctResults(const SweepResult& sweep) {
  std::vector<int> distinct;
  for (const auto& byAlgorithm : sweep.bits) {
    std::set<std::vector<char>> results;
    for (const auto& entry : byAlgorithm) results.insert(entry.second);
    distinct.push_back(static_cast<int>(results.size()));
  }
  return distinct;
}

}  // namespace trnccl::test
