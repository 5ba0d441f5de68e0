// Point-to-point (trncclSend/Recv, fused by trncclGroupStart/End): each
// operation of the group is its own channel, so sends and receives to
// different peers progress together and a ring exchange written with
// send/recv cannot deadlock.
#pragma once

#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/schedule.h"

namespace trnccl::algo {

struct P2POp {
  bool send = true;
  int peer = 0;
  size_t bytes = 0;
  uint32_t tag = 0;  // the k-th message from a sender to a receiver has tag k on both sides
};

// Operation i reads or writes buffer kFirstUserBuffer + i. Elements are bytes.
// A send to oneself is paired with the receive from oneself with the same tag
// (a local copy). Throws Error(InvalidUsage) for an unpaired or mis-sized one.
Schedule buildP2P(int rank, int nranks, const std::vector<P2POp>& ops);

// The cost model's time for `rank`'s operations `ops`, with each peer posting
// the other side of the same messages (the model charges a message to the
// step that receives it, so the peers' side is what prices the sends).
Prediction predictP2P(int rank, int nranks, const std::vector<P2POp>& ops, const Network& net);

}  // namespace trnccl::algo
