// Which algorithms a user allows, in NCCL's NCCL_ALGO syntax (TRNCCL_ALGO or
// config.algorithm):
//   "ring"                           only ring (where it applies)
//   "ring,mesh"                      any of these
//   "^mesh"                          anything but mesh
//   "allreduce:torus2d;allgather:ring"  per collective; unnamed ones are unrestricted
//   "auto" or ""                     no restriction
//   "neuron"                         what AWS Neuron's runtime plays (neuron_profile.h)
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "algorithms/schedule.h"

namespace trnccl::algo {

class AlgorithmFilter {
 public:
  // `known`: the algorithm names that exist. Throws Error(InvalidArgument)
  // naming `source` (e.g. "TRNCCL_ALGO") for an unknown collective or algorithm.
  AlgorithmFilter(const std::string& spec, const std::string& source, const std::vector<std::string>& known);

  bool allows(Collective c, const std::string& algorithm) const;
  // Whether `c` follows Neuron's choice ("neuron") instead of the cost model.
  bool followsNeuron(Collective c) const;
  const std::string& spec() const { return spec_; }

 private:
  struct Rule {
    std::set<std::string> names;  // empty: all
    bool exclude = false;
    bool neuron = false;
  };
  const Rule& ruleFor(Collective c) const;
  std::map<Collective, Rule> rules_;
  Rule defaultRule_;
  std::string spec_;
};

}  // namespace trnccl::algo
