#include "core/schedule_cache.h"

namespace trnccl::core {

ScheduleCache::Fields ScheduleCache::fieldsOf(const algo::CollectiveArgs& args) {
  return Fields{static_cast<int>(args.collective),
                args.count,
                args.type,
                args.op,
                args.root,
                args.inPlace,
                args.sendPeer,
                args.recvPeer};
}

ScheduleCache::Key ScheduleCache::keyOf(const algo::CollectiveArgs& args) {
  return Key{fieldsOf(args), args.v ? *args.v : algo::VarCounts{}};
}

bool ScheduleCache::repeatsLast(const algo::CollectiveArgs& args) const {
  const auto& [fields, v] = lastKey_;
  return fieldsOf(args) == fields && (args.v ? *args.v == v : v.sendCounts.empty() && v.recvCounts.empty());
}

}  // namespace trnccl::core
