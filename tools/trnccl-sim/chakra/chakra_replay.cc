#include "chakra_replay.h"

#include <cstdio>
#include <map>
#include <queue>
#include <unordered_map>

#include "base/datatype.h"
#include "base/error.h"

namespace trnccl::simtool::chakra {

namespace {

using ChakraProtoMsg::Node;

[[noreturn]] void badNode(const Node& n, const std::string& why) {
  throwInvalidArgument("--chakra", "node " + std::to_string(n.id()) + " ('" + n.name() + "'): " + why);
}

const ChakraProtoMsg::AttributeProto* attribute(const Node& n, const std::string& name) {
  for (const auto& a : n.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t integer(const Node& n, const std::string& name) {
  const ChakraProtoMsg::AttributeProto* a = attribute(n, name);
  if (a == nullptr) badNode(n, "no " + name + " attribute");
  switch (a->value_case()) {
    case ChakraProtoMsg::AttributeProto::kInt32Val:
      return a->int32_val();
    case ChakraProtoMsg::AttributeProto::kInt64Val:
      return a->int64_val();
    case ChakraProtoMsg::AttributeProto::kUint32Val:
      return a->uint32_val();
    case ChakraProtoMsg::AttributeProto::kUint64Val:
      return static_cast<int64_t>(a->uint64_val());
    default:
      badNode(n, name + " is not an integer");
  }
}

algo::Collective collectiveOf(const Node& n) {
  switch (integer(n, "comm_type")) {
    case ChakraProtoMsg::ALL_REDUCE:
      return algo::Collective::AllReduce;
    case ChakraProtoMsg::ALL_GATHER:
      return algo::Collective::AllGather;
    case ChakraProtoMsg::REDUCE_SCATTER:
      return algo::Collective::ReduceScatter;
    case ChakraProtoMsg::BROADCAST:
      return algo::Collective::Broadcast;
    case ChakraProtoMsg::REDUCE:
      return algo::Collective::Reduce;
    case ChakraProtoMsg::ALL_TO_ALL:
      return algo::Collective::AllToAll;
    default:
      badNode(n, "comm_type " + std::to_string(integer(n, "comm_type")) + " is no collective trnccl simulates");
  }
}

// The API's count for `bytes` as nccl-tests sizes them: the all-gather output
// and the reduce-scatter input hold every rank's block.
size_t countOf(algo::Collective c, size_t bytes, const sim::Call& call, int ranks) {
  const size_t elements = bytes / typeSize(call.type);
  const bool perRank =
      c == algo::Collective::AllGather || c == algo::Collective::ReduceScatter || c == algo::Collective::AllToAll;
  return perRank ? elements / static_cast<size_t>(ranks) : elements;
}

}  // namespace

Replay replay(const Trace& trace, const sim::Machine& machine, const sim::Call& call) {
  std::unordered_map<uint64_t, size_t> index;
  for (size_t i = 0; i < trace.nodes.size(); ++i)
    if (!index.emplace(trace.nodes[i].id(), i).second) badNode(trace.nodes[i], "its id is used twice");

  // Each node's duration; a collective's from the simulator, once per collective and size.
  Replay r;
  std::map<std::pair<algo::Collective, size_t>, size_t> used;
  std::vector<double> duration(trace.nodes.size(), 0);
  // What each node occupies while it runs: nothing (metadata, memory nodes),
  // the compute engine, or the collective stream.
  enum Resource { kNone, kCompute, kCollectives };
  std::vector<Resource> resource(trace.nodes.size(), kNone);
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node& n = trace.nodes[i];
    if (n.type() == ChakraProtoMsg::COMP_NODE) {
      duration[i] = static_cast<double>(n.duration_micros()) * 1e-6;
      resource[i] = kCompute;
      r.computeSec += duration[i];
      ++r.computeNodes;
    } else if (n.type() == ChakraProtoMsg::COMM_COLL_NODE) {
      const algo::Collective c = collectiveOf(n);
      const int64_t bytes = integer(n, "comm_size");
      if (bytes < 0) badNode(n, "comm_size is negative");
      auto [at, added] = used.emplace(std::pair{c, static_cast<size_t>(bytes)}, r.collectives.size());
      if (added) {
        sim::Call each = call;
        each.collective = c;
        each.count = countOf(c, static_cast<size_t>(bytes), call, machine.ranks());
        const sim::Prediction p = sim::simulate(machine, each);
        r.collectives.push_back({algo::collectiveName(c), static_cast<size_t>(bytes), 0, p.seconds, p.algorithm});
      }
      CollectiveUse& use = r.collectives[at->second];
      ++use.calls;
      duration[i] = use.secondsEach;
      resource[i] = kCollectives;
      r.commSec += duration[i];
      ++r.collectiveNodes;
    }
  }

  // List scheduling: the node whose dependencies end first goes next (ties by
  // position in the file), at that time or once its resource is free.
  std::vector<size_t> waitingOn(trace.nodes.size(), 0);
  std::vector<std::vector<size_t>> dependents(trace.nodes.size());
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node& n = trace.nodes[i];
    for (const auto* deps : {&n.ctrl_deps(), &n.data_deps()})
      for (uint64_t dep : *deps) {
        const auto found = index.find(dep);
        if (found == index.end()) badNode(n, "depends on node " + std::to_string(dep) + ", which the trace lacks");
        dependents[found->second].push_back(i);
        ++waitingOn[i];
      }
  }
  using Ready = std::pair<double, size_t>;  // when its dependencies end, position
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  std::vector<double> readyAt(trace.nodes.size(), 0);
  for (size_t i = 0; i < trace.nodes.size(); ++i)
    if (waitingOn[i] == 0) ready.push({0.0, i});
  double freeAt[] = {0, 0, 0};  // when each resource is next free (kNone stays 0: always)
  size_t done = 0;
  while (!ready.empty()) {
    const auto [at, i] = ready.top();
    ready.pop();
    const double start = std::max(at, freeAt[resource[i]]);
    const double end = start + duration[i];
    if (resource[i] != kNone) freeAt[resource[i]] = end;
    r.stepSec = std::max(r.stepSec, end);
    ++done;
    for (size_t next : dependents[i]) {
      readyAt[next] = std::max(readyAt[next], end);
      if (--waitingOn[next] == 0) ready.push({readyAt[next], next});
    }
  }
  if (done != trace.nodes.size()) throwInvalidArgument("--chakra", "the trace's dependencies form a cycle");
  r.exposedSec = std::max(0.0, r.stepSec - r.computeSec);
  return r;
}

std::string formatReplay(const Replay& r, const std::string& file, const sim::Machine& machine) {
  char line[512];
  std::snprintf(line, sizeof line,
                "# Chakra trace %s on %s: %zu compute nodes, %zu collectives\n"
                "# %10s %12s %12s %12s\n  %10.3f %12.3f %12.3f %12.3f\n"
                "# per collective and size:\n# %-14s %12s %6s %14s %12s  %s\n",
                file.c_str(), machine.describe().c_str(), r.computeNodes, r.collectiveNodes, "step(ms)", "compute(ms)",
                "comm(ms)", "exposed(ms)", r.stepSec * 1e3, r.computeSec * 1e3, r.commSec * 1e3, r.exposedSec * 1e3,
                "collective", "size(B)", "calls", "each(us)", "total(ms)", "algorithm");
  std::string text = line;
  for (const CollectiveUse& c : r.collectives) {
    std::snprintf(line, sizeof line, "  %-14s %12zu %6d %14.2f %12.3f  %s\n", c.collective.c_str(), c.bytes, c.calls,
                  c.secondsEach * 1e6, c.calls * c.secondsEach * 1e3, c.algorithm.c_str());
    text += line;
  }
  return text;
}

}  // namespace trnccl::simtool::chakra
