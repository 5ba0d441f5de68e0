// Chooses the algorithm for each call. TRNCCL_ALGO (or config.algorithm)
// restricts the choice with NCCL's syntax:
//   "ring"                      only ring (where it applies)
//   "ring,mesh"                 any of these
//   "^mesh"                     anything but mesh
//   "allreduce:mesh;allgather:ring"  per collective
// Forcing an algorithm that cannot run a call is an error naming why.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class Tuner {
 public:
  // Throws Error(InvalidArgument) naming `source` (e.g. "TRNCCL_ALGO") for a bad spec.
  Tuner(const std::string& spec, const std::string& source);
  ~Tuner();

  const Algorithm& choose(const CollectiveArgs& args) const;
  static std::vector<std::string> algorithmNames();

  // While every rank sends its whole buffer to every peer in fewer than this
  // many bytes, the one-step mesh beats the ring's 2(n-1) steps of latency.
  static constexpr size_t kMeshMaxBytesToPeers = 64 * 1024;

 private:
  bool allowed(Collective c, const std::string& algorithm) const;

  std::vector<std::unique_ptr<Algorithm>> algorithms_;
  // Per collective: the allowed set (empty = all) and whether it excludes.
  struct Rule {
    std::set<std::string> names;
    bool exclude = false;
  };
  std::map<Collective, Rule> rules_;
  Rule defaultRule_;
  std::string spec_;
};

}  // namespace trnccl::algo
