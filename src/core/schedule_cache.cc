#include "core/schedule_cache.h"

namespace trnccl::core {

ScheduleCache::Key ScheduleCache::keyOf(const algo::CollectiveArgs& args) {
  return Key{static_cast<int>(args.collective),
             args.count,
             args.type,
             args.op,
             args.root,
             args.inPlace,
             args.sendPeer,
             args.recvPeer,
             args.v ? *args.v : algo::VarCounts{}};
}

bool ScheduleCache::repeatsLast(const algo::CollectiveArgs& a) const {
  const auto& [collective, count, type, op, root, inPlace, sendPeer, recvPeer, v] = lastKey_;
  return collective == static_cast<int>(a.collective) && count == a.count && type == a.type && op == a.op &&
         root == a.root && inPlace == a.inPlace && sendPeer == a.sendPeer && recvPeer == a.recvPeer &&
         (a.v ? *a.v == v : v.sendCounts.empty() && v.recvCounts.empty());
}

}  // namespace trnccl::core
