#include "transports/shm/shm_transport.h"

#include "transports/registration.h"
#include "transports/shm/shm_transport_internal.h"

namespace trnccl::transport::shm {

ShmTransport::ShmTransport(const Options& options, Config config, Connections connections)
    : rank_(options.rank),
      config_(config),
      timeout_(options.timeout),
      oversubscribed_(options.oversubscribed),
      connections_(std::move(connections)),
      peerOfRank_(static_cast<size_t>(options.nranks), nullptr) {
  peers_.reserve(connections_.peers.size());
  for (PeerLink& link : connections_.peers) peers_.emplace_back(std::move(link));
  connections_.peers.clear();
  for (Peer& peer : peers_) peerOfRank_[static_cast<size_t>(peer.link.rank)] = &peer;
  boardOffered_ = config_.board && peers_.size() + 1 == static_cast<size_t>(options.nranks);
  seen_ = connections_.doorbell.sequence();
  if (connections_.linkBoard.data() != nullptr) {
    pacer_ = std::make_unique<LinkPacer>(std::move(connections_.linkBoard), options.emulation);
    TRNCCL_INFO("shm: rank %d: links emulated: %zu links, times x %g", rank_, options.emulation.linkBytesPerSec.size(),
                options.emulation.scale);
  }
  TRNCCL_INFO(
      "shm: rank %d: %zu peers, FIFO of %llu x %llu bytes per peer (%zu-byte segment), "
      "TRNCCL_SHM_COPY=%s%s, block board %s",
      rank_, peers_.size(), static_cast<unsigned long long>(connections_.fifo.slots),
      static_cast<unsigned long long>(connections_.fifo.slotBytes), connections_.own.size(), copyPathName(config_.copy),
      config_.copy == CopyPath::Auto && oversubscribed_ ? " (oversubscribed: large messages in one copy)" : "",
      boardOffered_ ? "on" : "off");
}

ShmTransport::~ShmTransport() {
  sendLastReplies();
  std::atomic_ref<uint32_t>(*connections_.closed).store(1, std::memory_order_release);
  for (Peer& peer : peers_) peer.link.doorbell.ring();
}

Peer& ShmTransport::peerOf(const Request& request, const char* operation) {
  Peer* peer = peerAt(request.peer);
  if (peer == nullptr)
    throwInvalidArgument("request.peer", "is " + std::to_string(request.peer) + ", not a shared-memory peer of rank " +
                                             std::to_string(rank_) + " (" + operation + ")");
  if (request.buffer == nullptr && request.bytes > 0)
    throwInvalidArgument("request.buffer", std::string("is NULL for a non-empty ") + operation);
  return *peer;
}

void ShmTransport::isend(Request& request) {
  Peer& peer = peerOf(request, "send");
  request.done = false;
  request.transferred = 0;
  const bool announce = request.bytes > 0 && (config_.copy == CopyPath::Cma || request.bytes > kEagerBytes);
  const Outgoing send{&request, announce ? SlotKind::Rts : SlotKind::Eager};
  if (pacer_) [[unlikely]]
    return hold(peer, send);
  peer.outbox.push_back(send);
  // Nothing queued before it: an eager message goes into the FIFO now, a
  // progress() sooner (a broken peer's error comes from progress()).
  if (!announce && peer.outbox.size() == 1) unlessBroken(peer, [&] { flush(peer); });
}

void ShmTransport::irecv(Request& request) {
  Peer& peer = peerOf(request, "receive");
  request.done = false;
  request.transferred = 0;
  if (const size_t i = findEarly(peer, request.tag); i != kNotFound) return takeEarly(peer, i, request);
  bool receiving = false;
  if (!peer.incoming.empty()) {
    auto message = peer.incoming.find(request.tag);
    if (message != peer.incoming.end() && message->second.state == Incoming::State::Unexpected)
      return match(peer, message, request);
    receiving = message != peer.incoming.end() && message->second.state == Incoming::State::Receiving;
  }
  if (receiving || findPosted(peer, request.tag) != kNotFound)
    throwError(trncclInvalidUsage, "rank " + std::to_string(rank_) + " posted a second receive from " +
                                       describe(request.peer, request.tag) +
                                       " while the first is pending: tags must be unique "
                                       "among the messages in flight between two ranks");
  peer.posted.push_back(&request);
}

void ShmTransport::progress() {
  seen_ = connections_.doorbell.sequence();
  noticeDepartures();
  for (Peer& peer : peers_) unlessBroken(peer, [&] { drain(peer); });
  advancePulls();
  if (nextDueNs_ != kNoneDue) releaseDue();
  for (Peer& peer : peers_) unlessBroken(peer, [&] { flush(peer); });
  if (pendingError_) std::rethrow_exception(std::exchange(pendingError_, nullptr));
  for (const Peer& peer : peers_) {
    if (!peer.gone.empty() && hasOutstanding(peer)) throwError(trncclRemoteError, peer.gone);
  }
}

void ShmTransport::wait(std::chrono::microseconds maxWait) {
  if (!pulls_.empty() || pendingError_) return;  // work that needs nobody else
  if (interrupted_.exchange(false)) return;
  if (nextDueNs_ != kNoneDue) {  // wake when the earliest held send is due
    const uint64_t now = monotonicNs();
    if (nextDueNs_ <= now) return;
    const auto untilDue = std::chrono::microseconds(static_cast<int64_t>((nextDueNs_ - now + 999) / 1000));
    maxWait = std::min(maxWait, untilDue);
  }
  connections_.doorbell.sleep(seen_, maxWait, [this] { return anythingPublished(); });
  slept_ = true;
  interrupted_.store(false);  // whatever woke us, the caller is awake now
}

bool ShmTransport::anythingPublished() const {
  if (awaitedRank_ >= 0 && peerAt(awaitedRank_)->link.board.published(awaitedCall_)) return true;
  return std::any_of(peers_.begin(), peers_.end(),
                     [](const Peer& peer) { return !peer.broken && peer.link.fromPeer.published(); });
}

void ShmTransport::interrupt() {
  interrupted_.store(true);
  connections_.doorbell.ring();
}

void ShmTransport::cancelAll() {
  for (Peer& peer : peers_) {
    // Replies stay queued: they concern the peer's requests, not ours.
    peer.paced.clear();
    peer.outbox.clear();
    for (const auto& [tag, send] : peer.awaitingReply) withdraw(peer, send.announcement);
    peer.awaitingReply.clear();
    peer.posted.clear();
    for (; peer.earlyCount > 0; --peer.earlyCount) peer.link.fromPeer.delivered(peer.early[peer.earlyCount - 1].total);
    // A message part-way through the FIFO still sends its remaining chunks:
    // swallow them instead of mistaking them for a new message.
    for (auto entry = peer.incoming.begin(); entry != peer.incoming.end();) {
      Incoming& message = entry->second;
      if (message.state != Incoming::State::Unexpected) {  // streaming, or already discarding
        message.state = Incoming::State::Discarding;
        message.receive = nullptr;
        ++entry;
      } else {
        entry = peer.incoming.erase(entry);
      }
    }
  }
  nextDueNs_ = kNoneDue;
  pulls_.clear();
  pendingError_ = nullptr;
}

}  // namespace trnccl::transport::shm

namespace trnccl::transport {

std::unique_ptr<Transport> createShmTransport(const Options& options) {
  const shm::Config config = shm::readConfig();
  return std::make_unique<shm::ShmTransport>(options, config, shm::connect(options, config));
}

// Ranks of one instance; peers read registered memory in place.
TRNCCL_REGISTER_TRANSPORT(shm, {"shm",
                                createShmTransport,
                                Reach::Instance,
                                0,
                                {.pathSetting = nullptr, .paths = {}, .rails = false, .registration = true}})

}  // namespace trnccl::transport
