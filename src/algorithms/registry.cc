#include "algorithms/registry.h"

#include <algorithm>
#include <tuple>

#include "base/error.h"

namespace trnccl::algo {

// registered_algorithm_files.inc: TRNCCL_ALGORITHM_FILE(<file>) for each
// file of TRNCCL_ALGORITHMS, in its order (written by algorithms.cmake).
#define TRNCCL_ALGORITHM_FILE(file) std::vector<AlgorithmVariant> TRNCCL_ALGORITHMS_OF(file)();
#include "registered_algorithm_files.inc"
#undef TRNCCL_ALGORITHM_FILE

namespace {

std::vector<RegisteredAlgorithm> collectAlgorithms() {
  std::vector<AlgorithmVariant> variants;
  auto add = [&](std::vector<AlgorithmVariant> more) { variants.insert(variants.end(), more.begin(), more.end()); };
#define TRNCCL_ALGORITHM_FILE(file) add(TRNCCL_ALGORITHMS_OF(file)());
#include "registered_algorithm_files.inc"
#undef TRNCCL_ALGORITHM_FILE
  std::vector<RegisteredAlgorithm> all;
  for (const AlgorithmVariant& v : variants) {
    const std::string name = v.make()->name();
    for (const RegisteredAlgorithm& earlier : all)
      if (earlier.name == name) throwError(trncclInternalError, "two algorithms are named " + name);
    all.push_back({name, v.reach, v.make, v.simplicity});
  }
  std::sort(all.begin(), all.end(), preferredOnTie);
  return all;
}

}  // namespace

bool preferredOnTie(const RegisteredAlgorithm& a, const RegisteredAlgorithm& b) {
  return std::tie(a.simplicity, a.name) < std::tie(b.simplicity, b.name);
}

const char* reachName(Reach reach) {
  return reach == Reach::AnyRanks ? "any-ranks" : reach == Reach::Instances ? "instances" : "chips";
}

const std::vector<RegisteredAlgorithm>& registeredAlgorithms() {
  static const std::vector<RegisteredAlgorithm> all = collectAlgorithms();
  return all;
}

}  // namespace trnccl::algo
