// How the survivors of a communicator agree on the one trncclCommShrink makes:
// over the parent's bootstrap (direct connections, no unique id to share),
// every survivor sends the first survivor (the coordinator) the ranks it
// excludes; the coordinator checks that all agree and that each survivor
// answered, then sends each the verdict: a fresh unique id for the new
// communicator, or what went wrong, naming the rank. A survivor that is dead
// but not excluded fails the shrink on every rank that can hear of it (or,
// for the coordinator itself, times out), never hangs past the timeout.
#pragma once

#include <vector>

#include "core/communicator.h"

namespace trnccl::core {

struct ShrinkPlan {
  trncclUniqueId id;
  std::vector<int> members;  // the survivors' parent ranks, in order: member i is new rank i
  int newRank = 0;
};

// `excluded`: the parent ranks left out (checked by the caller: in range,
// distinct, not this rank). Throws InvalidUsage when the survivors disagree,
// RemoteError naming a survivor that did not answer.
ShrinkPlan agreeOnShrink(Communicator& parent, const std::vector<int>& excluded);

}  // namespace trnccl::core
