#include "core/issue_order.h"

namespace trnccl::core {

void IssueOrder::unissue(const Work& work) {
  sequence_ -= work.collectives.size();
  for (const P2PCall& call : work.p2p) --(call.op.send ? sendTags_ : recvTags_).at(call.op.peer);
}

}  // namespace trnccl::core
