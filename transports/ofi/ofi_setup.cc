// The libfabric transport: opening the rails, exchanging addresses, and
// closing.
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/log.h"
#include "transports/ofi/ofi_transport_internal.h"
#include "transports/ofi/provider.h"
#include "transports/ofi/rank_card.h"

namespace trnccl::transport::ofi {

OfiTransport::OfiTransport(const Options& options, const Config& config)
    : rank_(options.rank),
      config_(config),
      timeout_(options.timeout),
      keeper_(options.jobKey),
      peerOfRank_(static_cast<size_t>(options.nranks), nullptr) {
  if (config.faults.enabled) faults_.emplace(config.faults);
  connect(options);
}

void OfiTransport::connect(const Options& options) {
  const ProviderChoice choice = chooseProvider(config_.rails);
  provider_ = choice.provider;
  checksums_ = config_.checksums == Config::Checksums::On ||
               (config_.checksums == Config::Checksums::Auto && provider_.find("ofi_rxd") != std::string::npos);
  uint64_t maxMessage = UINT64_MAX;
  std::vector<Address> addresses;
  for (int r = 0; r < config_.rails; ++r) {
    rails_.push_back(std::make_unique<Rail>(*choice.rails[static_cast<size_t>(r)], r));
    const Rail& rail = *rails_.back();
    maxMessage = std::min(maxMessage, rail.maxMessageBytes());
    addresses.push_back(rail.address());
    pollingWithoutFd_ = pollingWithoutFd_ || rail.waitFd() < 0;
    RailQueues& q = queues_.emplace_back();
    const auto limit = static_cast<size_t>(config_.maxOutstanding);
    q.sendLimit = rail.sendQueueDepth() > 0 ? std::min(limit, rail.sendQueueDepth()) : limit;
    q.receiveLimit = rail.receiveQueueDepth() > 0 ? std::min(limit, rail.receiveQueueDepth()) : limit;
  }
  chunkBytes_ = std::min(config_.chunkBytes, maxMessage);
  eagerLimit_ = std::min<uint64_t>(kControlBytes, maxMessage) - sizeof(ControlHeader);
  // Standing control receives: up to half the provider's receive queue, in
  // addition to the chunks that may be posted.
  const size_t peerCount = options.peers.size();
  // Over several rails chunks travel in buffers of their own: keep a window's worth per peer each way.
  if (failsOver()) pool_.keepChunkBuffers(2 * kChunksInFlightPerRail * rails_.size() * peerCount);
  if (peerCount > 0) {
    const size_t depth = rails_[0]->receiveQueueDepth();
    controlReceives_ = static_cast<uint32_t>(std::clamp<size_t>(
        depth > 0 ? depth / (2 * peerCount) : kMaxControlReceives, kMinControlReceives, kMaxControlReceives));
    for (size_t r = 0; r < (failsOver() ? rails_.size() : 1); ++r)
      queues_[r].receiveLimit += controlReceives_ * peerCount;
  }

  // Collective, even for a rank without peers.
  std::vector<RankCard> cards(static_cast<size_t>(options.nranks));
  cards[static_cast<size_t>(rank_)] = makeCard(provider_, addresses, chunkBytes_, controlReceives_, checksums_);
  options.oob->allGather(cards.data(), sizeof(RankCard));
  checkAgreement(cards);

  const uint64_t host = cards[static_cast<size_t>(rank_)].hostId;
  peers_.reserve(options.peers.size());
  for (int r : options.peers) {
    const RankCard& card = cards[static_cast<size_t>(r)];
    Peer& peer = peers_.emplace_back();
    peer.rank = r;
    peer.maxCredits = card.controlReceives;
    peer.control.resize(failsOver() ? rails_.size() : 1, ControlRail{card.controlReceives, 0, false});
    if (failsOver()) peer.rails.resize(rails_.size());
    const bool local = card.hostId == host;
    peer.process = PeerProcess(static_cast<pid_t>(card.pid), local);
    peer.addressText = rails_[0]->describe(card.address(0));
    peer.name = "rank " + std::to_string(r) + " (" + peer.addressText +
                (local ? ", pid " + std::to_string(card.pid) : std::string()) + ")";
    peerOfRank_[static_cast<size_t>(r)] = &peer;
  }
  for (auto& rail : rails_) {
    std::vector<Address> peerAddresses;
    for (const Peer& peer : peers_)
      peerAddresses.push_back(cards[static_cast<size_t>(peer.rank)].address(rail->index()));
    const std::vector<fi_addr_t> inserted = rail->insert(peerAddresses);
    for (size_t i = 0; i < peers_.size(); ++i) peers_[i].fiAddress.push_back(inserted[i]);
  }

  for (Peer& peer : peers_) {
    for (size_t r = 0; r < peer.control.size(); ++r) {
      for (uint32_t i = 0; i < controlReceives_; ++i) {
        Operation& op = pool_.take(OpKind::ControlReceive, static_cast<int>(r), peer.rank);
        op.storage.resize(sizeof(ControlHeader) + eagerLimit_);
        postControlReceive(op);
      }
    }
  }
  pump();
  // Peers send against these receives from now on: they must be posted.
  options.oob->barrier();
  TRNCCL_INFO(
      "ofi: rank %d: provider %s (%s), fabric %s, domain %s, %zu rail(s), %zu peers, chunks of "
      "%llu bytes, eager up to %zu bytes, %s%s",
      rank_, provider_.c_str(), choice.why.c_str(), rails_[0]->fabricName().c_str(), rails_[0]->domainName().c_str(),
      rails_.size(), peers_.size(), static_cast<unsigned long long>(chunkBytes_), eagerLimit_,
      pollingWithoutFd_ ? "polling (no wait object)" : "sleeping on the completion queue's fd",
      checksums_ ? ", every message checked by CRC-32" : "");
  if (faults_)
    TRNCCL_INFO("ofi: rank %d: fault layer on: completions delayed up to %lld us%s", rank_,
                static_cast<long long>(config_.faults.maxDelay.count()),
                config_.faults.reorder ? " and reordered" : "");
}

OfiTransport::~OfiTransport() {
  linger();
  if (provider_ == "shm") keeper_.park({std::move(pool_), std::move(sink_), std::move(rails_)});
  rails_.clear();  // endpoints first: then nothing refers to operations any more
}

void OfiTransport::linger() {
  try {
    cancelAll();
    // A peer that said goodbye while nobody progressed is gone: writing to
    // its endpoint can crash a provider (shm, between threads), so read
    // what has arrived before saying ours.
    poll();
    for (Peer& peer : peers_) {
      if (peer.failure || peer.byeAfter) continue;
      ControlHeader bye{};
      bye.kind = ControlKind::Bye;
      sendControl(peer, bye);
    }
    pump();
    const auto start = std::chrono::steady_clock::now();
    lastCompletion_ = start;
    for (;;) {
      poll();
      pump();
      checkLiveness(true);
      const bool waiting =
          std::any_of(peers_.begin(), peers_.end(), [](const Peer& p) { return !p.closed() && !p.failure; });
      const auto now = std::chrono::steady_clock::now();
      if (!waiting || now - lastCompletion_ > kQuietBeforeClose || now - start > timeout_) break;
      wait(std::chrono::milliseconds(1));
    }
  } catch (const std::exception& e) {
    TRNCCL_WARN("ofi: rank %d: while closing: %s", rank_, e.what());
  }
}

}  // namespace trnccl::transport::ofi
