#include "core/schedule_cache.h"

namespace trnccl::core {

ScheduleCache::Fields ScheduleCache::fieldsOf(const algo::CollectiveArgs& args, const CallChoice& choice) {
  return Fields{static_cast<int>(args.collective),
                args.count,
                args.type,
                args.op,
                args.root,
                args.inPlace,
                args.sendPeer,
                args.recvPeer,
                choice};
}

ScheduleCache::Key ScheduleCache::keyOf(const algo::CollectiveArgs& args, const CallChoice& choice) {
  return Key{fieldsOf(args, choice), args.v ? *args.v : algo::VarCounts{}};
}

bool ScheduleCache::repeatsLast(const algo::CollectiveArgs& args, const CallChoice& choice) const {
  const auto& [fields, v] = lastKey_;
  return fieldsOf(args, choice) == fields && (args.v ? *args.v == v : v.sendCounts.empty() && v.recvCounts.empty());
}

}  // namespace trnccl::core
