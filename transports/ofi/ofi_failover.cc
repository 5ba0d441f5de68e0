// The libfabric transport's rail failover (ofi_transport_internal.h says how
// it works): choosing a chunk's rail, finding a rail that delivers nothing,
// moving its chunks to the others, and taking it back once it delivers again.
#include <algorithm>
#include <utility>

#include "base/log.h"
#include "transports/ofi/ofi_transport_internal.h"

namespace trnccl::transport::ofi {

int Peer::controlRail() const {
  for (size_t r = 0; r < control.size(); ++r)
    if (!control[r].lost) return static_cast<int>(r);
  return 0;
}

size_t Peer::mostOwedRail() const {
  return static_cast<size_t>(
      std::max_element(control.begin(), control.end(), [](const auto& a, const auto& b) { return a.owed < b.owed; }) -
      control.begin());
}

bool Peer::anotherRailDelivers(int rail) const {
  for (size_t r = 0; r < rails.size(); ++r)
    if (static_cast<int>(r) != rail && !rails[r].lost) return true;
  return false;
}

int OfiTransport::railFor(Peer& peer) {
  if (!failsOver()) return 0;
  const auto now = Clock::now();
  const auto retryAfter = kStallsBeforeRetry * config_.railStall;
  for (size_t r = 0; r < peer.rails.size(); ++r) {
    PeerRail& rail = peer.rails[r];
    if (rail.lost && !rail.retrying && now - rail.lostAt >= retryAfter) {
      rail.retrying = true;
      TRNCCL_INFO("ofi: rank %d: trying rail %zu (%s) from %s again with one chunk", rank_, r,
                  rails_[r]->domainName().c_str(), peer.name.c_str());
      return static_cast<int>(r);
    }
  }
  const auto count = static_cast<uint32_t>(peer.rails.size());
  for (uint32_t tries = 0; tries < count; ++tries) {
    const uint32_t r = peer.nextRail++ % count;
    if (!peer.rails[r].lost) return static_cast<int>(r);
  }
  return 0;  // unreachable: a rail is lost only while another delivers
}

// At most every quarter stall period: a rail with a chunk granted on it a
// stall period ago, that has delivered nothing from the peer since, while
// the peer was heard from otherwise after that period, is lost for it. With
// nothing heard, the peer is pinged: its Pong is the evidence that the peer
// progresses and the rail alone does not deliver.
void OfiTransport::watchRails() {
  if (!failsOver()) return;
  const auto now = Clock::now();
  const auto stall = config_.railStall;
  if (now - lastRailWatch_ < stall / 4) return;
  lastRailWatch_ = now;
  std::erase_if(strayReceives_, [&](Operation* op) {
    if (!op->posted || now - op->grantedAt < stall) return false;
    rails_[static_cast<size_t>(op->rail)]->cancel(&op->context);  // once: it leaves the list
    return true;
  });
  const size_t rails = rails_.size();
  std::vector<Clock::time_point> oldest(peers_.size() * rails, Clock::time_point::max());
  for (const auto& [number, message] : receives_) {
    if (message.request == nullptr) continue;
    const auto p = static_cast<size_t>(message.peer - peers_.data());
    for (const Operation* op : message.ops) {
      if (!op->posted || !op->granted) continue;
      Clock::time_point& t = oldest[p * rails + static_cast<size_t>(op->rail)];
      t = std::min(t, op->grantedAt);
    }
  }
  for (size_t p = 0; p < peers_.size(); ++p) {
    Peer& peer = peers_[p];
    for (size_t r = 0; r < rails; ++r) {
      const Clock::time_point waitingSince = oldest[p * rails + r];
      if (waitingSince == Clock::time_point::max() || now - waitingSince < stall ||
          now - peer.rails[r].lastArrival < stall)
        continue;
      // The last rail keeps its chunks: the call's timeout decides.
      if (!peer.anotherRailDelivers(static_cast<int>(r))) continue;
      Clock::time_point heard = peer.heardAt;
      for (size_t other = 0; other < rails; ++other)
        if (other != r) heard = std::max(heard, peer.rails[other].lastArrival);
      if (heard >= waitingSince + stall) {
        loseRail(peer, static_cast<int>(r),
                 "a chunk waited " +
                     std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now - waitingSince).count()) +
                     " ms on it while the peer was heard from otherwise");
      } else {
        pingPeer(peer, now);
      }
    }
    // Our control messages: one unacknowledged for a stall period asks every
    // rail for a Pong (onPong judges).
    const bool waiting = std::any_of(peer.unacked.begin(), peer.unacked.end(),
                                     [&](const Operation* op) { return now - op->grantedAt >= stall; });
    if (waiting) pingPeer(peer, now);
  }
}

// At most every quarter stall period: a Ping on every rail our control
// messages are not known to be lost on.
void OfiTransport::pingPeer(Peer& peer, Clock::time_point now) {
  if (now - peer.pingedAt < config_.railStall / 4) return;
  peer.pingedAt = now;
  for (size_t r = 0; r < peer.control.size(); ++r)
    if (!peer.control[r].lost) sendPing(peer, static_cast<int>(r), ControlKind::Ping);
}

// The peer has every message of ours up to `acked`: they are kept no more.
// One still with the provider is recycled when it completes, one waiting in
// a queue when it reaches the front.
void OfiTransport::onAcked(Peer& peer, uint64_t acked) {
  if (acked <= peer.acked) return;
  if (acked > peer.controlSent)
    throwError(trncclRemoteError, "acknowledged " + std::to_string(acked) + " control messages of the " +
                                      std::to_string(peer.controlSent) + " sent to it");
  peer.acked = acked;
  std::erase_if(peer.unacked, [&](Operation* op) {
    if (headerOf(*op).seq > acked) return false;
    op->kept = false;
    if (op->posted) return true;
    if (op->left)
      pool_.give(*op);
    else
      op->abandoned = true;
    return true;
  });
}

// A Pong over a rail other than the control rail, answering a Ping sent a
// stall period after a message of ours left that the Pong says the peer
// still lacks: the control rail lost it.
// (Its acknowledgement was taken in onControl.)
void OfiTransport::onPong(Peer& peer, int rail) {
  const int current = peer.controlRail();
  if (rail == current || peer.unacked.empty()) return;
  const auto oldest =
      std::min_element(peer.unacked.begin(), peer.unacked.end(),
                       [](const Operation* a, const Operation* b) { return a->grantedAt < b->grantedAt; });
  if (peer.pingedAt - (*oldest)->grantedAt < config_.railStall) return;
  loseControlRail(
      peer,
      std::to_string(peer.unacked.size()) + " control messages unacknowledged for " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - (*oldest)->grantedAt).count()) +
          " ms while rail " + std::to_string(rail) + " answers");
}

// Our control messages to the peer go on the next rail from now on, those
// not acknowledged first (in order); its chunks move as well. One the
// provider still holds on the lost rail may never complete: a copy goes
// instead, taking over what it was to complete.
void OfiTransport::loseControlRail(Peer& peer, const std::string& why) {
  const int from = peer.controlRail();
  // Control messages stay where they go until that rail fails too (a rail
  // that lost some holds too few credits until its stragglers arrive); then
  // a rail that delivers chunks again takes them.
  for (size_t r = 0; r < peer.control.size(); ++r)
    if (static_cast<int>(r) != from && !peer.rails[r].lost) peer.control[r].lost = false;
  const bool another = std::any_of(peer.control.begin(), peer.control.end(), [&](const ControlRail& c) {
    return !c.lost && &c != &peer.control[static_cast<size_t>(from)];
  });
  if (!another) return;  // the last rail keeps them: the call's timeout decides
  peer.control[static_cast<size_t>(from)].lost = true;
  std::sort(peer.unacked.begin(), peer.unacked.end(),
            [](const Operation* a, const Operation* b) { return headerOf(*a).seq < headerOf(*b).seq; });
  TRNCCL_WARN("ofi: rank %d: control messages to %s stopped arriving over rail %d (%s) (%s); they go on rail %d (%s)",
              rank_, peer.name.c_str(), from, rails_[static_cast<size_t>(from)]->domainName().c_str(), why.c_str(),
              peer.controlRail(), rails_[static_cast<size_t>(peer.controlRail())]->domainName().c_str());
  for (auto it = peer.unacked.rbegin(); it != peer.unacked.rend(); ++it) {
    Operation& op = **it;
    if (op.awaitingCredit) continue;  // going again already
    if (op.posted) {
      *it = &copyOf(op);
      sendAgain(peer, **it);
    } else {
      if (!op.left) std::erase(queues_[static_cast<size_t>(op.rail)].sends, &op);
      sendAgain(peer, op);
    }
  }
  // Its chunks move too, unless it is the last rail that delivers them.
  if (!peer.rails[static_cast<size_t>(from)].lost && peer.anotherRailDelivers(from))
    loseRail(peer, from, "its control messages were lost");
}

// A kept control message goes out again, first in the peer's queue.
void OfiTransport::sendAgain(Peer& peer, Operation& op) {
  op.resend = true;
  op.left = false;
  op.awaitingCredit = true;
  peer.controlQueue.push_front(&op);
}

// A copy of a kept control message the provider holds, which takes its
// place: the original, when it completes, completes nothing and is recycled.
Operation& OfiTransport::copyOf(Operation& op) {
  Operation& copy = pool_.take(OpKind::ControlSend, op.rail, op.peer);
  copy.storage = op.storage;
  copy.buffer = copy.storage.data();
  copy.bytes = copy.storage.size();
  copy.tag = op.tag;
  copy.kept = true;
  copy.message = std::exchange(op.message, 0);
  if (auto entry = sends_.find(copy.message); copy.message != 0 && entry != sends_.end())
    std::replace(entry->second.ops.begin(), entry->second.ops.end(), &op, &copy);
  copy.request = std::exchange(op.request, nullptr);
  std::replace(dones_.begin(), dones_.end(), &op, &copy);
  op.kept = false;
  return copy;
}

void OfiTransport::loseRail(Peer& peer, int rail, const std::string& why) {
  PeerRail& state = peer.rails[static_cast<size_t>(rail)];
  RailQueues& q = queues_[static_cast<size_t>(rail)];
  if (!state.lost) {
    state.lost = true;
    q.lostPeers.add(1);
    q.failovers.add(1);
    TRNCCL_WARN("ofi: rank %d: rail %d (%s) delivers nothing from %s (%s); its chunks move to the other rails", rank_,
                rail, rails_[static_cast<size_t>(rail)]->domainName().c_str(), peer.name.c_str(), why.c_str());
  } else {
    TRNCCL_INFO("ofi: rank %d: rail %d (%s) still delivers nothing from %s", rank_, rail,
                rails_[static_cast<size_t>(rail)]->domainName().c_str(), peer.name.c_str());
  }
  state.retrying = false;
  state.lostAt = Clock::now();
  for (auto& [number, message] : receives_) {
    if (message.peer != &peer || message.request == nullptr) continue;
    for (Operation*& op : message.ops) {
      if (op->rail != rail) continue;
      if (op->posted) {
        // Left behind, belonging to no message: its completion, if any, only recycles it.
        Operation& stale = *op;
        rails_[static_cast<size_t>(rail)]->cancel(&stale.context);
        op = &chunkReceive(message, number, stale.chunk);
        op->granted = stale.granted;
        op->rail = rail;
        stale.message = 0;
      } else {
        std::erase(q.receives, op);
      }
      moveChunk(peer, *op);
    }
  }
}

// A chunk's receive, not posted (any more), goes to a rail that delivers;
// once posted there it is granted again (grant()).
void OfiTransport::moveChunk(Peer& peer, Operation& op) {
  if (op.granted) peer.rails[static_cast<size_t>(op.rail)].strays.emplace_back(op.tag, op.bytes);
  op.granted = false;
  op.rail = railFor(peer);
  submit(op, true);
}

void OfiTransport::heardOnRail(Peer& peer, int rail) {
  if (!failsOver()) return;
  PeerRail& state = peer.rails[static_cast<size_t>(rail)];
  state.lastArrival = Clock::now();
  if (!state.lost) return;
  state.lost = state.retrying = false;
  queues_[static_cast<size_t>(rail)].lostPeers.subtract(1);
  TRNCCL_INFO("ofi: rank %d: rail %d (%s) delivers from %s again; it carries chunks again", rank_, rail,
              rails_[static_cast<size_t>(rail)]->domainName().c_str(), peer.name.c_str());
  drainStrays(peer, rail);
}

void OfiTransport::drainStrays(Peer& peer, int rail) {
  std::vector<std::pair<uint64_t, uint64_t>>& strays = peer.rails[static_cast<size_t>(rail)].strays;
  if (strays.empty()) return;
  sink_.resize(chunkBytes_);
  const auto now = Clock::now();
  for (const auto& [tag, bytes] : strays) {
    Operation& op = pool_.take(OpKind::DataReceive, rail, peer.rank);
    op.buffer = sink_.data();
    op.bytes = bytes;
    op.tag = tag;
    op.grantedAt = now;  // cancelled a stall period from now if nothing came
    strayReceives_.push_back(&op);
    submit(op, true);
  }
  strays.clear();
}

}  // namespace trnccl::transport::ofi
