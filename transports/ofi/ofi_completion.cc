// The libfabric transport: reading the completion queues (through the fault
// layer when it is on) and dispatching each completion.
#include <rdma/fi_errno.h>

#include "base/log.h"
#include "transports/ofi/fi_error.h"
#include "transports/ofi/ofi_transport_internal.h"

namespace trnccl::transport::ofi {
namespace {

// Per rail and progress() call: enough to drain a busy queue, few enough that
// one rail does not starve the others.
constexpr size_t kCompletionsPerPoll = 256;

const char* describe(OpKind kind) {
  switch (kind) {
    case OpKind::ControlReceive:
      return "receiving a control message from";
    case OpKind::ControlSend:
      return "sending a control message to";
    case OpKind::DataSend:
      return "sending a chunk to";
    case OpKind::DataReceive:
      return "receiving a chunk from";
  }
  return "?";
}

}  // namespace

void OfiTransport::poll() {
  completions_.clear();
  for (size_t r = 0; r < rails_.size(); ++r) {
    rails_[r]->read(completions_, kCompletionsPerPoll);
    queues_[r].sendsBlocked = queues_[r].receivesBlocked = false;
  }
  if (!faults_) {
    for (const RawCompletion& c : completions_) onCompletion(c);
    return;
  }
  const uint64_t now = nowNs();
  for (RawCompletion& c : completions_) faults_->hold(std::move(c), now);
  while (auto c = faults_->release(now)) onCompletion(*c);
}

void OfiTransport::onCompletion(const RawCompletion& completion) {
  Operation& op = *static_cast<OperationContext*>(completion.context)->operation;
  RailQueues& q = queues_[static_cast<size_t>(op.rail)];
  if (op.posted) {
    op.posted = false;
    const bool send = op.kind == OpKind::ControlSend || op.kind == OpKind::DataSend;
    --(send ? q.sendsPosted : q.receivesPosted);
  }
  rails_[static_cast<size_t>(op.rail)]->release(op.lease);
  lastCompletion_ = std::chrono::steady_clock::now();
  // Only cancelAll cancels a live message's receive (it forgets the request
  // first); one the provider withdrew on its own is a failed chunk, which
  // moves, and never drains into the shared sink.
  const bool cancelled = completion.err == FI_ECANCELED && op.kind == OpKind::DataReceive && !receiving(op);
  if (completion.err != 0 && !cancelled) {
    onFailedOperation(op, completion);
    return;
  }
  if (op.kind == OpKind::ControlSend || op.kind == OpKind::DataSend) {
    q.bytesSent.add(op.bytes);
  } else if (!cancelled) {
    q.bytesReceived.add(completion.len);
    if (faults_) faults_->corrupt(static_cast<std::byte*>(op.buffer), completion.len);
  }
  switch (op.kind) {
    case OpKind::ControlReceive: {
      Peer& peer = *peerOfRank_[static_cast<size_t>(op.peer)];
      try {
        onControl(peer, op.storage.data(), completion.len, op.rail);
      } catch (const Error& e) {
        // It broke the protocol: never listen to it again.
        failPeer(peer, Error(e.code(), peer.name + " " + e.what()));
        pool_.give(op);
        return;
      }
      // A Ping or Pong spent no credit: its receive, posted again, returns none.
      const ControlKind kind = headerOf(op).kind;
      postControlReceive(op);
      if (kind != ControlKind::Ping && kind != ControlKind::Pong) ++peer.control[static_cast<size_t>(op.rail)].owed;
      return;
    }
    case OpKind::ControlSend: {
      auto entry = sends_.find(op.message);
      if (op.message != 0 && entry != sends_.end()) {
        OutgoingMessage& message = entry->second;
        std::erase(message.ops, &op);
        if (message.chunks == 0) {  // eager: the message has left
          complete(*message.peer, *message.request, message.request->bytes);
          sends_.erase(entry);
        }
      }
      onControlSent(*peerOfRank_[static_cast<size_t>(op.peer)], op);
      return;
    }
    case OpKind::DataSend:
      onChunkSent(op);
      return;
    case OpKind::DataReceive:
      onChunkReceived(op, completion.len, cancelled);
      return;
  }
}

void OfiTransport::onFailedOperation(Operation& op, const RawCompletion& completion) {
  Peer& peer = *peerOfRank_[static_cast<size_t>(op.peer)];
  if (failsOver() && !op.draining && failOverChunk(peer, op, completion)) return;
  failPeer(peer, completionError({describe(op.kind), rank_, peer.rank, peer.addressText, completion.err,
                                  completion.providerMessage}));
  if (op.draining) {
    op.draining = false;
    --peer.draining;
  }
  std::erase(dones_, &op);
  // Whatever it belonged to can no longer complete; the peer's failure says why.
  if (auto s = sends_.find(op.message);
      op.message != 0 && s != sends_.end() && (op.kind == OpKind::ControlSend || op.kind == OpKind::DataSend))
    std::erase(s->second.ops, &op);
  if (op.kind == OpKind::DataReceive) {
    if (auto r = receives_.find(op.message); r != receives_.end()) std::erase(r->second.ops, &op);
  }
  pool_.give(op);
}

// More than one rail: a chunk that failed on a rail while another still
// delivers from the peer is not the peer's end. A receive moves with the
// rail's other chunks; a send is forgotten (the receiver asks again when
// the chunk does not arrive).
bool OfiTransport::failOverChunk(Peer& peer, Operation& op, const RawCompletion& completion) {
  if (!peer.anotherRailDelivers(op.rail) || peer.failure) return false;
  const std::string why = completionError({describe(op.kind), rank_, peer.rank, peer.addressText, completion.err,
                                           completion.providerMessage})
                              .what();
  if (op.kind == OpKind::ControlSend || op.kind == OpKind::ControlReceive) {
    // A control receive that failed is not posted again; a numbered message
    // goes again on the next rail.
    TRNCCL_INFO("ofi: rank %d: %s", rank_, why.c_str());
    if (!op.kept) {
      pool_.give(op);
    } else if (op.rail == peer.controlRail()) {
      loseControlRail(peer, why);  // sends it again with the others
    } else {
      sendAgain(peer, op);
    }
    return true;
  }
  if (op.kind == OpKind::DataReceive) {
    if (!receiving(op)) return false;
    loseRail(peer, op.rail, why);  // moves this chunk too: it is in the message, no longer posted
    return true;
  }
  if (op.kind != OpKind::DataSend) return false;
  if (auto s = sends_.find(op.message); op.message != 0 && s != sends_.end()) std::erase(s->second.ops, &op);
  TRNCCL_INFO("ofi: rank %d: %s; the receiver asks for the chunk again on another rail", rank_, why.c_str());
  pool_.give(op);
  return true;
}

// A control message left. Over several rails a numbered one stays until the
// peer acknowledges it (onAcked), and goes again at once if its rail has been
// lost meanwhile; what it completes, it completes once.
void OfiTransport::onControlSent(Peer& peer, Operation& op) {
  op.left = true;
  if (op.request != nullptr) {  // a Done: its receive is complete
    complete(peer, *op.request, headerOf(op).bytes);
    std::erase(dones_, &op);
    op.request = nullptr;
  }
  op.message = 0;
  if (!op.kept)
    pool_.give(op);
  else if (peer.control[static_cast<size_t>(op.rail)].lost)
    sendAgain(peer, op);
}

uint64_t OfiTransport::nowNs() const {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace trnccl::transport::ofi
