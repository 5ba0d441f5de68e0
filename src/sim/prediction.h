// What the simulator predicts for one call, whichever engine made it: the
// cost model's prediction (seconds, and what bounded them) with what the
// simulator also knows about it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/cost_model.h"

namespace trnccl::sim {

enum class Engine { Analytical, EventDriven, Folded, Auto };
const char* engineName(Engine e);  // "analytical", "event", "folded"
// Throws Error(InvalidArgument) naming --engine.
Engine parseEngine(const std::string& name);

// `bound`: "link NAME" (the busiest link's busy time: its bytes, or the
// issuing of its messages, whichever is longer), "launch" (the network's
// launchSec), "vector engine" (the most a rank reduced), "straggler rank R"
// (the latest entry), each when it is at least half the time; else "latency".
struct Prediction : algo::Prediction {
  std::string algorithm;  // the one that ran (the tuner's pick for "auto")
  Engine engine = Engine::Analytical;
  size_t transfers = 0;  // messages moved (the event-driven engines)
  // Per link of the machine's network: the bytes that crossed it, and what
  // issuing messages held it. Folded: per link of the first instance only
  // (every instance's carry the same).
  std::vector<double> linkBytes;
  std::vector<double> linkIssueSeconds;
};

}  // namespace trnccl::sim
