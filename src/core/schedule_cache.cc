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

}  // namespace trnccl::core
