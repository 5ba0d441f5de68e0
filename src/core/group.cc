#include "core/group.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

#include "base/error.h"

namespace trnccl::core {
namespace {

struct Pending {
  Communicator* comm;
  runtime::Stream* stream;
  Work work;
};

struct GroupState {
  int depth = 0;
  std::vector<Pending> pending;  // one entry per communicator, in first-use order

  Pending& entry(Communicator& comm, runtime::Stream* stream) {
    for (Pending& p : pending) {
      if (p.comm != &comm) continue;
      if (p.stream != stream)
        throwError(trncclInvalidUsage, "operations on one communicator inside a group must use the same stream");
      return p;
    }
    pending.push_back(Pending{&comm, stream, {}});
    return pending.back();
  }

  // The outermost group ended: its operations, and an empty group after.
  std::vector<Pending> take() {
    depth = 0;
    std::vector<Pending> taken = std::move(pending);
    pending.clear();
    return taken;
  }
};

thread_local GroupState group;

}  // namespace

void groupStart() { ++group.depth; }

bool inGroup() { return group.depth > 0; }

void groupEnd() {
  if (group.depth == 0) throwError(trncclInvalidUsage, "trncclGroupEnd without trncclGroupStart");
  if (--group.depth > 0) return;
  std::vector<Pending> pending = group.take();

  // Turns are taken here, in program order; then blocking work runs. Blocking
  // work of several communicators (ranks driven by one thread) must run
  // concurrently, or the first would wait forever for the others.
  std::vector<std::function<void()>> blocking;
  for (Pending& p : pending) {
    auto run = p.comm->prepare(std::move(p.work));
    if (p.stream)
      p.stream->enqueue(std::move(run));
    else
      blocking.push_back(std::move(run));
  }
  if (blocking.size() == 1) return blocking[0]();
  std::vector<std::exception_ptr> errors(blocking.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < blocking.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        blocking[i]();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

double groupSimulateEnd() {
  if (group.depth == 0) throwError(trncclInvalidUsage, "trncclGroupSimulateEnd without trncclGroupStart");
  if (group.depth > 1)
    throwError(trncclInvalidUsage, "trncclGroupSimulateEnd inside a nested group: end the inner groups first");
  std::vector<Pending> pending = group.take();

  double longest = 0;
  std::exception_ptr error;
  for (Pending& p : pending) {
    try {
      if (!error) longest = std::max(longest, p.comm->runner().predictSeconds(p.work));
    } catch (...) {
      error = std::current_exception();
    }
    p.comm->order().unissue(p.work);  // every communicator, even after an error
  }
  if (error) std::rethrow_exception(error);
  return longest;
}

void issueCollective(Communicator& comm, runtime::Stream* stream, CollectiveCall call) {
  if (inGroup()) {
    Pending& entry = group.entry(comm, stream);  // may refuse: before the sequence advances
    call.sequence = comm.order().nextSequence();
    return entry.work.collectives.push_back(call);
  }
  call.sequence = comm.order().nextSequence();
  if (stream)
    stream->enqueue(comm.prepare(Work{{call}, {}}));
  else
    comm.runNow(call);
}

void issueP2P(Communicator& comm, runtime::Stream* stream, P2PCall call) {
  if (inGroup()) {
    Pending& entry = group.entry(comm, stream);
    call.op.tag = comm.order().nextP2PTag(call.op.peer, call.op.send);
    return entry.work.p2p.push_back(call);
  }
  call.op.tag = comm.order().nextP2PTag(call.op.peer, call.op.send);
  auto run = comm.prepare(Work{{}, {call}});
  if (stream)
    stream->enqueue(std::move(run));
  else
    run();
}

}  // namespace trnccl::core
