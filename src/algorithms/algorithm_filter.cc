#include "algorithms/algorithm_filter.h"

#include <sstream>

#include "base/error.h"

namespace trnccl::algo {
namespace {

const Collective kCollectives[] = {Collective::AllReduce,  Collective::AllGather,      Collective::ReduceScatter,
                                   Collective::Broadcast,  Collective::Reduce,         Collective::AllToAll,
                                   Collective::Gather,     Collective::Scatter,        Collective::AllToAllV,
                                   Collective::AllGatherV, Collective::ReduceScatterV, Collective::Permute};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(trim(part));
  return parts;
}

}  // namespace

AlgorithmFilter::AlgorithmFilter(const std::string& spec, const std::string& source,
                                 const std::vector<std::string>& known)
    : spec_(spec) {
  auto bad = [&](const std::string& why) { throwError(trncclInvalidArgument, source + "='" + spec + "': " + why); };
  auto parseRule = [&](std::string list) {
    Rule rule;
    if (!list.empty() && list[0] == '^') rule.exclude = true, list.erase(0, 1);
    for (const std::string& name : split(list, ',')) {
      if (name == "auto" && !rule.exclude) return Rule{};
      if (name == "neuron" && !rule.exclude) return Rule{{}, false, true};
      bool ok = false;
      for (const auto& k : known) ok = ok || k == name;
      if (!ok) {
        std::string names;
        for (const auto& k : known) names += " " + k;
        bad("unknown algorithm '" + name + "' (known: auto neuron" + names + ")");
      }
      rule.names.insert(name);
    }
    return rule;
  };
  if (trim(spec).empty()) return;
  for (const std::string& clause : split(spec, ';')) {
    const auto colon = clause.find(':');
    if (colon == std::string::npos) {
      defaultRule_ = parseRule(clause);
      continue;
    }
    const std::string coll = trim(clause.substr(0, colon));
    bool found = false;
    for (Collective c : kCollectives) {
      if (coll == collectiveName(c)) rules_[c] = parseRule(trim(clause.substr(colon + 1))), found = true;
    }
    if (!found) bad("unknown collective '" + coll + "'");
  }
}

const AlgorithmFilter::Rule& AlgorithmFilter::ruleFor(Collective c) const {
  auto it = rules_.find(c);
  return it == rules_.end() ? defaultRule_ : it->second;
}

bool AlgorithmFilter::followsNeuron(Collective c) const { return ruleFor(c).neuron; }

bool AlgorithmFilter::allows(Collective c, const std::string& algorithm) const {
  const Rule& rule = ruleFor(c);
  if (rule.names.empty()) return true;
  return rule.names.count(algorithm) != rule.exclude;
}

}  // namespace trnccl::algo
