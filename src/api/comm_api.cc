// Communicator entry points: creation (unique id, init, init-all, split),
// queries, the three ways to end one (finalize, destroy, abort), and going on
// without lost ranks (revoke, shrink).
#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "api/guard.h"
#include "api/handles.h"
#include "core/bootstrap.h"
#include "core/shrink.h"

using trnccl::throwInvalidArgument;
using trnccl::api::guarded;
namespace core = trnccl::core;

namespace {

trncclComm_t newComm(const trncclUniqueId& id, int nranks, int rank, core::Config config,
                     const std::vector<int>* inheritedCores = nullptr, core::CreationGroup* group = nullptr) {
  auto handle = std::make_unique<trncclComm>();
  handle->impl = std::make_unique<core::Communicator>(id, nranks, rank, std::move(config), inheritedCores, group);
  trncclComm_t comm = handle.release();
  trnccl::api::registerComm(comm);
  return comm;
}

// From inside a call on `comm` (which holds it once), or on a handle never
// handed out (none).
void deleteComm(trncclComm_t comm, int callerHolds = 1) { trnccl::api::retireComm(comm, callerHolds); }

void checkRanks(int nranks, int rank) {
  if (nranks < 1) throwInvalidArgument("nranks", "is " + std::to_string(nranks) + "; it must be >= 1");
  if (rank < 0 || rank >= nranks)
    throwInvalidArgument("rank", "is " + std::to_string(rank) + "; it must be in [0, " + std::to_string(nranks) + ")");
}

// A communicator of `members` (parent ranks; member i becomes rank i) made
// from `parent` by a split or a shrink. The new ranks keep their
// NeuronCores, so a split along a row or a column of the torus still sees its grid.
trncclComm_t childComm(const core::Communicator& parent, const trncclUniqueId& id, const std::vector<int>& members,
                       int newRank, const core::Config& config) {
  std::vector<int> cores;
  const std::vector<int> parentCores = parent.placement().globalCores();
  const bool sameMachine = !parentCores.empty() && config.topology == parent.config().topology;
  for (int m : members)
    if (sameMachine) cores.push_back(parentCores[m]);
  return newComm(id, static_cast<int>(members.size()), newRank, config, sameMachine ? &cores : nullptr);
}

std::optional<trncclUniqueId> takeGrowId(trncclComm_t comm) {
  std::lock_guard<std::mutex> lock(comm->growMutex);
  return std::exchange(comm->growId, std::nullopt);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclGetUniqueId(trncclUniqueId* id) {
  return guarded("trncclGetUniqueId", nullptr, [&] {
    if (id == nullptr) throwInvalidArgument("id", "is NULL");
    *id = core::createUniqueId(core::timeoutFromEnvironment());
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommInitRankConfig(trncclComm_t* comm, int nranks, trncclUniqueId id,
                                                              int rank, trncclConfig_t* config) {
  return guarded("trncclCommInitRankConfig", nullptr, [&] {
    if (comm == nullptr) throwInvalidArgument("comm", "is NULL");
    *comm = nullptr;
    checkRanks(nranks, rank);
    *comm = newComm(id, nranks, rank, core::resolveConfig(config));
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommInitRank(trncclComm_t* comm, int nranks, trncclUniqueId id, int rank) {
  return trncclCommInitRankConfig(comm, nranks, id, rank, nullptr);
}

extern "C" TRNCCL_API trncclResult_t trncclCommInitAll(trncclComm_t* comms, int nranks, const int* unused) {
  (void)unused;  // NCCL's device list; every rank here is a thread of this process
  return guarded("trncclCommInitAll", nullptr, [&] {
    if (comms == nullptr) throwInvalidArgument("comms", "is NULL");
    if (nranks < 1) throwInvalidArgument("nranks", "is " + std::to_string(nranks) + "; it must be >= 1");
    const core::Config config = core::resolveConfig(nullptr);
    const trncclUniqueId id = core::createUniqueId(config.timeout);
    std::vector<trncclComm_t> created(nranks, nullptr);
    std::vector<std::exception_ptr> errors(nranks);
    std::vector<std::thread> threads;
    // The first rank to fail aborts the others' creation; its error is the cause.
    core::CreationGroup group;
    std::atomic<int> firstFailed{-1};
    for (int r = 0; r < nranks; ++r) {
      threads.emplace_back([&, r] {
        try {
          created[r] = newComm(id, nranks, r, config, nullptr, &group);
        } catch (...) {
          errors[r] = std::current_exception();
          int none = -1;
          firstFailed.compare_exchange_strong(none, r);
          group.fail();
        }
      });
    }
    for (auto& t : threads) t.join();
    if (firstFailed >= 0) {
      for (trncclComm_t c : created)
        if (c) deleteComm(c, 0);
      std::rethrow_exception(errors[firstFailed]);
    }
    std::copy(created.begin(), created.end(), comms);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommSplit(trncclComm_t comm, int color, int key, trncclComm_t* newcomm,
                                                     trncclConfig_t* config) {
  return guarded("trncclCommSplit", comm, [&] {
    core::Communicator& parent = trnccl::api::usableComm(comm);
    if (newcomm == nullptr) throwInvalidArgument("newcomm", "is NULL");
    if (color < 0 && color != TRNCCL_SPLIT_NOCOLOR)
      throwInvalidArgument("color", "is negative and not TRNCCL_SPLIT_NOCOLOR");
    *newcomm = nullptr;
    const core::Config childConfig = config ? core::resolveConfig(config) : parent.config();
    parent.drain();

    // Everyone learns everyone's (color, key); members of a color are ordered
    // by (key, parent rank); the first of them makes the new unique id.
    struct Choice {
      int color, key;
    };
    const int n = parent.size(), me = parent.rank();
    std::vector<Choice> choices(n);
    choices[me] = Choice{color, key};
    parent.bootstrap().allGather(choices.data(), sizeof(Choice));
    if (color == TRNCCL_SPLIT_NOCOLOR) return;
    std::vector<int> members;
    for (int r = 0; r < n; ++r)
      if (choices[r].color == color) members.push_back(r);
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) { return choices[a].key < choices[b].key; });
    const int newRank = static_cast<int>(std::find(members.begin(), members.end(), me) - members.begin());
    constexpr int kSplitIdTag = 0x5b17;
    trncclUniqueId id;
    if (newRank == 0) {
      id = core::createUniqueId(childConfig.timeout);
      for (size_t i = 1; i < members.size(); ++i) parent.bootstrap().send(members[i], kSplitIdTag, &id, sizeof(id));
    } else {
      parent.bootstrap().recv(members[0], kSplitIdTag, &id, sizeof(id));
    }
    *newcomm = childComm(parent, id, members, newRank, childConfig);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommFinalize(trncclComm_t comm) {
  return guarded("trncclCommFinalize", comm, [&] {
    core::Communicator& c = trnccl::api::liveComm(comm);
    c.drain();
    c.health().checkUsable();
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommDestroy(trncclComm_t comm) {
  return guarded("trncclCommDestroy", comm, [&] {
    trnccl::api::liveComm(comm);
    deleteComm(comm);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommAbort(trncclComm_t comm) {
  return guarded("trncclCommAbort", comm, [&] {
    trnccl::api::liveComm(comm).abort();
    deleteComm(comm);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommGetAsyncError(trncclComm_t comm, trncclResult_t* asyncError) {
  return guarded("trncclCommGetAsyncError", comm, [&] {
    core::Communicator& c = trnccl::api::liveComm(comm);
    if (asyncError == nullptr) throwInvalidArgument("asyncError", "is NULL");
    *asyncError = c.health().asyncError();
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommCount(const trncclComm_t comm, int* count) {
  return guarded("trncclCommCount", comm, [&] {
    core::Communicator& c = trnccl::api::liveComm(comm);
    if (count == nullptr) throwInvalidArgument("count", "is NULL");
    *count = c.size();
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommUserRank(const trncclComm_t comm, int* rank) {
  return guarded("trncclCommUserRank", comm, [&] {
    core::Communicator& c = trnccl::api::liveComm(comm);
    if (rank == nullptr) throwInvalidArgument("rank", "is NULL");
    *rank = c.rank();
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommRevoke(trncclComm_t comm, int revokeFlags) {
  return guarded("trncclCommRevoke", comm, [&] {
    core::Communicator& c = trnccl::api::liveComm(comm);
    if (revokeFlags != TRNCCL_REVOKE_DEFAULT)
      throwInvalidArgument("revokeFlags",
                           "is " + std::to_string(revokeFlags) + "; only TRNCCL_REVOKE_DEFAULT (0) is defined");
    c.revoke();
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommShrink(trncclComm_t comm, int* excludeRanksList, int excludeRanksCount,
                                                      trncclComm_t* newcomm, trncclConfig_t* config, int shrinkFlags) {
  return guarded("trncclCommShrink", comm, [&] {
    core::Communicator& parent = trnccl::api::liveComm(comm);
    if (newcomm == nullptr) throwInvalidArgument("newcomm", "is NULL");
    *newcomm = nullptr;
    const int n = parent.size(), me = parent.rank();
    if (excludeRanksCount < 0 || excludeRanksCount >= n)
      throwInvalidArgument("excludeRanksCount", "is " + std::to_string(excludeRanksCount) + "; it must be in [0, " +
                                                    std::to_string(n) + ")");
    if (excludeRanksCount > 0 && excludeRanksList == nullptr) throwInvalidArgument("excludeRanksList", "is NULL");
    if ((shrinkFlags & ~TRNCCL_SHRINK_ABORT) != 0)
      throwInvalidArgument("shrinkFlags", "is " + std::to_string(shrinkFlags) +
                                              "; it must be TRNCCL_SHRINK_DEFAULT or TRNCCL_SHRINK_ABORT");
    std::vector<int> excluded(excludeRanksList, excludeRanksList + excludeRanksCount);
    for (int i = 0; i < excludeRanksCount; ++i) {
      const std::string at = "excludeRanksList[" + std::to_string(i) + "]";
      if (excluded[i] < 0 || excluded[i] >= n)
        throwInvalidArgument(at.c_str(),
                             "is " + std::to_string(excluded[i]) + "; ranks are in [0, " + std::to_string(n) + ")");
      if (excluded[i] == me)
        throwInvalidArgument(
            at.c_str(), "is this rank (" + std::to_string(me) + "): an excluded rank does not call trncclCommShrink");
      if (std::find(excluded.begin(), excluded.begin() + i, excluded[i]) != excluded.begin() + i)
        throwInvalidArgument(at.c_str(), "repeats rank " + std::to_string(excluded[i]));
    }
    const core::Config childConfig = config ? core::resolveConfig(config) : parent.config();
    // Outstanding work ends first: given up (ABORT, or a communicator that
    // failed already), or finished (a healthy one).
    if ((shrinkFlags & TRNCCL_SHRINK_ABORT) || parent.health().asyncError() != trncclSuccess)
      parent.revoke();
    else
      parent.drain();
    const core::ShrinkPlan plan = core::agreeOnShrink(parent, excluded);
    *newcomm = childComm(parent, plan.id, plan.members, plan.newRank, childConfig);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommGetUniqueId(trncclComm_t comm, trncclUniqueId* uniqueId) {
  return guarded("trncclCommGetUniqueId", comm, [&] {
    core::Communicator& c = trnccl::api::usableComm(comm);
    if (uniqueId == nullptr) throwInvalidArgument("uniqueId", "is NULL");
    if (c.rank() != 0)
      trnccl::throwError(
          trncclInvalidUsage,
          "trncclCommGetUniqueId is called by rank 0 of the communicator, not rank " + std::to_string(c.rank()));
    *uniqueId = core::createUniqueId(c.config().timeout);
    std::lock_guard<std::mutex> lock(comm->growMutex);
    comm->growId = *uniqueId;
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommGrow(trncclComm_t comm, int nRanks, const trncclUniqueId* uniqueId,
                                                    int rank, trncclComm_t* newcomm, trncclConfig_t* config) {
  return guarded("trncclCommGrow", comm, [&] {
    if (newcomm == nullptr) throwInvalidArgument("newcomm", "is NULL");
    *newcomm = nullptr;
    if (comm == nullptr) {  // a joining rank
      if (uniqueId == nullptr) throwInvalidArgument("uniqueId", "is NULL (a joining rank passes the grow id)");
      checkRanks(nRanks, rank);
      *newcomm = newComm(*uniqueId, nRanks, rank, core::resolveConfig(config));
      return;
    }
    core::Communicator& c = trnccl::api::usableComm(comm);
    if (nRanks < c.size())
      throwInvalidArgument("nRanks", "is " + std::to_string(nRanks) + "; it must be at least the communicator's " +
                                         std::to_string(c.size()) + " ranks");
    if (rank != -1)
      throwInvalidArgument("rank", "is " + std::to_string(rank) + "; a rank of comm passes -1 (it keeps its rank)");
    const core::Config childConfig = config ? core::resolveConfig(config) : c.config();
    c.drain();
    // Rank 0's grow id (from trncclCommGetUniqueId, or the one passed) reaches every rank of comm.
    trncclUniqueId id{};
    if (c.rank() == 0) {
      if (uniqueId != nullptr)
        id = *uniqueId;
      else if (std::optional<trncclUniqueId> made = takeGrowId(comm))
        id = *made;
      else
        trnccl::throwError(trncclInvalidUsage, "rank 0 has no grow id: call trncclCommGetUniqueId first");
    }
    c.bootstrap().broadcast(&id, sizeof(id), 0);
    *newcomm = newComm(id, nRanks, c.rank(), childConfig);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommSuspend(trncclComm_t comm, int flags) {
  return guarded("trncclCommSuspend", comm, [&] {
    core::Communicator& c = trnccl::api::usableComm(comm);
    if ((flags & ~TRNCCL_SUSPEND_MEM) != 0)
      throwInvalidArgument("flags", "is " + std::to_string(flags) + "; it must be 0 or TRNCCL_SUSPEND_MEM");
    c.suspend((flags & TRNCCL_SUSPEND_MEM) != 0);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommResume(trncclComm_t comm) {
  return guarded("trncclCommResume", comm, [&] { trnccl::api::liveComm(comm).resume(); });
}
