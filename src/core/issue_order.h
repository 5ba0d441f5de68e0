// The numbering of a communicator's operations, in program order: every rank
// numbers the same calls alike, which is how a message finds its call on the
// other side. Used by the issuing thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "core/work.h"

namespace trnccl::core {

class IssueOrder {
 public:
  explicit IssueOrder(int nranks) : sendTags_(nranks, 0), recvTags_(nranks, 0) {}

  uint64_t nextSequence() { return sequence_++; }
  uint32_t nextP2PTag(int peer, bool send) { return (send ? sendTags_ : recvTags_).at(peer)++; }
  // The tag the next receive from `peer` will have (trncclProbe).
  uint32_t pendingRecvTag(int peer) const { return recvTags_.at(peer); }
  // Gives back the numbers and tags of `work`, the last operations issued and
  // never prepared (trncclGroupSimulateEnd).
  void unissue(const Work& work);

 private:
  uint64_t sequence_ = 0;
  std::vector<uint32_t> sendTags_, recvTags_;
};

}  // namespace trnccl::core
