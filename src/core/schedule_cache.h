// The schedules a communicator has built, by call. Building one costs more
// than running a small collective, and benchmarks and training loops repeat
// the same few calls. Not thread-safe: a communicator touches it only in its
// turns.
#pragma once

#include <cstddef>
#include <map>
#include <tuple>
#include <utility>

#include "algorithms/algorithm.h"
#include "core/work.h"

namespace trnccl::core {

class ScheduleCache {
 public:
  // Past this many schedules the cache forgets them all: a program whose
  // sizes never repeat must not grow without bound.
  static constexpr size_t kCapacity = 256;

  // The schedule for `args`'s call with `choice` (this rank's, for the same
  // layout every time), made by build() on a miss. Forgetting invalidates the
  // references returned before.
  template <class Build>
  const algo::Schedule& find(const algo::CollectiveArgs& args, const CallChoice& choice, Build&& build) {
    if (last_ != nullptr && repeatsLast(args, choice)) return *last_;  // benchmarks repeat one call
    const Key key = keyOf(args, choice);
    auto it = schedules_.find(key);
    if (it == schedules_.end()) {
      if (schedules_.size() >= kCapacity) schedules_.clear(), last_ = nullptr;  // build() may throw
      it = schedules_.emplace(key, build()).first;
    }
    last_ = &it->second;
    lastKey_ = key;
    return *last_;
  }

  template <class Build>
  const algo::Schedule& find(const algo::CollectiveArgs& args, Build&& build) {
    return find(args, CallChoice{}, std::forward<Build>(build));
  }

  size_t size() const { return schedules_.size(); }
  // Forgets every schedule (trncclCommSuspend).
  void clear() {
    schedules_.clear();
    last_ = nullptr;
  }

 private:
  // The v-collectives' blocks, permute's peers and the call's choice are
  // part of the call.
  using Fields = std::tuple<int, size_t, int, int, int, bool, int, int, CallChoice>;
  using Key = std::pair<Fields, algo::VarCounts>;
  static Fields fieldsOf(const algo::CollectiveArgs& args, const CallChoice& choice);
  static Key keyOf(const algo::CollectiveArgs& args, const CallChoice& choice);
  // Whether `args` is the last call's key, without building a key (its
  // block lists) for the call that repeats.
  bool repeatsLast(const algo::CollectiveArgs& args, const CallChoice& choice) const;

  std::map<Key, algo::Schedule> schedules_;
  const algo::Schedule* last_ = nullptr;
  Key lastKey_;
};

}  // namespace trnccl::core
