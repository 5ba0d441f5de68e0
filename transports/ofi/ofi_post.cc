// The libfabric transport: queueing and posting operations, at most a bounded
// number per rail and direction at a time.
#include <rdma/fi_errno.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "transports/ofi/ofi_transport_internal.h"

namespace trnccl::transport::ofi {
namespace {

bool isSend(OpKind kind) { return kind == OpKind::ControlSend || kind == OpKind::DataSend; }

}  // namespace

void OfiTransport::submit(Operation& op, bool first) {
  RailQueues& q = queues_[static_cast<size_t>(op.rail)];
  std::deque<Operation*>& queue = isSend(op.kind) ? q.sends : q.receives;
  if (first)
    queue.push_front(&op);
  else
    queue.push_back(&op);
}

void OfiTransport::pump() {
  // Receives first: the chunks they post are promised in the Cts sent next,
  // and the control receives they post again are credits to return.
  for (size_t r = 0; r < rails_.size(); ++r) postQueued(static_cast<int>(r), false);
  grant();
  for (Peer& peer : peers_) flushControl(peer);
  for (size_t r = 0; r < rails_.size(); ++r) postQueued(static_cast<int>(r), true);
}

void OfiTransport::postQueued(int rail, bool sends) {
  RailQueues& q = queues_[static_cast<size_t>(rail)];
  std::deque<Operation*>& queue = sends ? q.sends : q.receives;
  size_t& posted = sends ? q.sendsPosted : q.receivesPosted;
  bool& blocked = sends ? q.sendsBlocked : q.receivesBlocked;
  const size_t limit = sends ? q.sendLimit : q.receiveLimit;
  while (!blocked && !queue.empty() && posted < limit) {
    Operation& op = *queue.front();
    if (op.abandoned) {
      queue.pop_front();
      rails_[static_cast<size_t>(rail)]->release(op.lease);
      pool_.give(op);
      continue;
    }
    const ssize_t rc = post(op);
    if (rc == -FI_EAGAIN) {
      blocked = true;  // until the next poll() has read the completion queue
      return;
    }
    queue.pop_front();
    if (rc != 0) {
      onCompletion({&op.context, 0, static_cast<int>(-rc), "posting it failed"});
      continue;
    }
    op.posted = true;
    ++posted;
    if (op.kind == OpKind::DataReceive) {
      auto entry = receives_.find(op.message);
      if (entry != receives_.end() && entry->second.request != nullptr) {
        if (entry->second.newlyPosted.empty()) granting_.push_back(op.message);
        entry->second.newlyPosted.push_back(&op);
      }
    }
  }
}

ssize_t OfiTransport::post(Operation& op) {
  Rail& rail = *rails_[static_cast<size_t>(op.rail)];
  Peer& peer = *peerOfRank_[static_cast<size_t>(op.peer)];
  if (!op.lease.held) op.lease = rail.lease(op.buffer, op.bytes);
  const fi_addr_t address = peer.fiAddress[static_cast<size_t>(op.rail)];
  switch (op.kind) {
    case OpKind::ControlSend: {
      ControlHeader& header = headerOf(op);
      // A Bye counts what went before it, so it is filled in as it leaves.
      if (header.kind == ControlKind::Bye) header.bytes = peer.controlSent;
      const ssize_t rc = rail.send(op.buffer, op.bytes, op.lease.desc, address, kControlTag, &op.context);
      if (rc == 0 && !failsOver() && header.kind != ControlKind::Bye) ++peer.controlSent;
      return rc;
    }
    case OpKind::DataSend:
      return rail.send(op.buffer, op.bytes, op.lease.desc, address, op.tag, &op.context);
    case OpKind::ControlReceive:
    case OpKind::DataReceive:
      return rail.receive(op.buffer, op.bytes, op.lease.desc, address, op.tag, &op.context);
  }
  return -FI_EINVAL;
}

// A control message's operation, not yet queued: the header (its magic set)
// and the payload in its own storage.
Operation& OfiTransport::controlOperation(Peer& peer, int rail, const ControlHeader& header, const void* payload,
                                          size_t payloadBytes) {
  Operation& op = pool_.take(OpKind::ControlSend, rail, peer.rank);
  op.storage.resize(sizeof header + payloadBytes);
  ControlHeader& stored = headerOf(op);
  stored = header;
  stored.magic = kControlMagic;
  if (payloadBytes > 0) std::memcpy(op.storage.data() + sizeof header, payload, payloadBytes);
  op.buffer = op.storage.data();
  op.bytes = op.storage.size();
  op.tag = kControlTag;
  return op;
}

Operation& OfiTransport::sendControl(Peer& peer, const ControlHeader& header, const void* payload, size_t payloadBytes,
                                     OutgoingMessage* message) {
  Operation& op = controlOperation(peer, 0, header, payload, payloadBytes);
  if (message != nullptr) {
    op.message = header.send;
    message->ops.push_back(&op);
  }
  // Replies jump the queue: they unblock the peer's messages.
  op.awaitingCredit = true;
  if (header.kind == ControlKind::Eager || header.kind == ControlKind::Rts)
    peer.controlQueue.push_back(&op);
  else
    peer.controlQueue.push_front(&op);
  return op;
}

void OfiTransport::flushControl(Peer& peer) {
  const int rail = peer.controlRail();
  ControlRail& control = peer.control[static_cast<size_t>(rail)];
  while (!peer.controlQueue.empty()) {
    Operation& op = *peer.controlQueue.front();
    if (op.abandoned) {
      peer.controlQueue.pop_front();
      pool_.give(op);
      continue;
    }
    const bool bye = headerOf(op).kind == ControlKind::Bye;
    if (control.credits < (bye ? 1u : 2u)) break;  // the last credit is for returning credits
    peer.controlQueue.pop_front();
    spendCredit(peer, op, rail);
  }
  const uint32_t threshold = std::max(1u, controlReceives_ / 2);
  const uint32_t owed = peer.control[peer.mostOwedRail()].owed;
  if (owed >= threshold && control.credits >= 1 && (peer.controlQueue.empty() || control.credits < 2)) {
    ControlHeader credit{};
    credit.kind = ControlKind::Credit;
    spendCredit(peer, controlOperation(peer, rail, credit), rail);
  }
}

// A message sent again keeps its number and the credits it returns (the
// peer acts on one copy only); every copy says what of the peer's we have.
void OfiTransport::spendCredit(Peer& peer, Operation& op, int rail) {
  ControlHeader& header = headerOf(op);
  --peer.control[static_cast<size_t>(rail)].credits;
  op.rail = rail;
  if (!op.resend) {
    // Credits first for the rail the peer's control messages come on now.
    const size_t credited = peer.control[peer.controlArrivals].owed > 0 ? peer.controlArrivals : peer.mostOwedRail();
    header.creditRail = static_cast<uint32_t>(credited);
    header.credits = std::exchange(peer.control[credited].owed, 0);
    if (failsOver() && header.kind != ControlKind::Bye) {
      header.seq = ++peer.controlSent;
      op.kept = true;
      peer.unacked.push_back(&op);
    }
  }
  op.grantedAt = Clock::now();
  if (failsOver()) header.acked = peer.controlReceived;
  if (checksums_) sealControl(op.storage.data(), op.storage.size());
  op.awaitingCredit = false;
  op.left = false;
  const bool reply = header.kind != ControlKind::Eager && header.kind != ControlKind::Rts;
  submit(op, reply);
}

// Ping and Pong go on the rail asked for, ahead of the queue and without a
// credit (wire.h): they say whether that rail delivers, and must do so when
// the credits that rail's lost messages were to return never come.
void OfiTransport::sendPing(Peer& peer, int rail, ControlKind kind) {
  ControlHeader header{};
  header.kind = kind;
  header.acked = peer.controlReceived;
  Operation& op = controlOperation(peer, rail, header);
  if (checksums_) sealControl(op.storage.data(), op.storage.size());
  submit(op, true);
}

void OfiTransport::postControlReceive(Operation& op) {
  op.buffer = op.storage.data();
  op.bytes = op.storage.size();
  op.tag = kControlTag;
  submit(op, true);
}

}  // namespace trnccl::transport::ofi
