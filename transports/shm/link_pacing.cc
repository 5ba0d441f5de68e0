#include "transports/shm/link_pacing.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <utility>

#include "base/error.h"

namespace trnccl::transport::shm {
namespace {

// Past this a time would overflow when added to: a message that takes a
// century is as good as never delivered.
constexpr double kLongestNs = 4e18;

uint64_t scaledNs(double ns) { return static_cast<uint64_t>(std::min(ns, kLongestNs)); }

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

std::string text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

class BoardLock {
 public:
  explicit BoardLock(pthread_mutex_t& mutex) : mutex_(mutex) {
    const int err = pthread_mutex_lock(&mutex_);
    // A rank died holding it, half-way through a reservation: every time it
    // left is still a plausible busy-until time.
    if (err == EOWNERDEAD)
      pthread_mutex_consistent(&mutex_);
    else if (err != 0)
      throwSystemError("locking the shared link board of link emulation", err);
  }
  ~BoardLock() { pthread_mutex_unlock(&mutex_); }
  BoardLock(const BoardLock&) = delete;
  BoardLock& operator=(const BoardLock&) = delete;

 private:
  pthread_mutex_t& mutex_;
};

}  // namespace

uint64_t monotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

void validateEmulation(const LinkEmulation& emulation, int nranks) {
  if (!std::isfinite(emulation.scale) || emulation.scale <= 0)
    throwInvalidArgument("options.emulation.scale", "is " + text(emulation.scale) + ", not a positive time factor");
  const size_t links = emulation.linkBytesPerSec.size();
  if (links > UINT32_MAX)
    throwInvalidArgument("options.emulation.linkBytesPerSec",
                         "has " + std::to_string(links) + " links, more than 2^32 - 1");
  for (size_t link = 0; link < links; ++link) {
    const double bandwidth = emulation.linkBytesPerSec[link];
    if (!std::isfinite(bandwidth) || bandwidth <= 0)
      throwInvalidArgument(
          "options.emulation.linkBytesPerSec",
          "gives link " + std::to_string(link) + " " + text(bandwidth) + " bytes/s, not a positive bandwidth");
  }
  const auto ranks = static_cast<size_t>(nranks);
  if (emulation.pathTo.size() != ranks || emulation.latencyTo.size() != ranks ||
      (!emulation.issueTo.empty() && emulation.issueTo.size() != ranks))
    throwInvalidArgument("options.emulation", "has " + std::to_string(emulation.pathTo.size()) + " paths, " +
                                                  std::to_string(emulation.latencyTo.size()) + " latencies and " +
                                                  std::to_string(emulation.issueTo.size()) +
                                                  " issue times, not one per rank (" + std::to_string(nranks) + ")");
  for (size_t peer = 0; peer < ranks; ++peer) {
    for (int link : emulation.pathTo[peer]) {
      if (link < 0 || static_cast<size_t>(link) >= links)
        throwInvalidArgument("options.emulation.pathTo", "leads to rank " + std::to_string(peer) + " over link " +
                                                             std::to_string(link) + ", but there are links 0 to " +
                                                             std::to_string(static_cast<long long>(links) - 1));
    }
    const double issue = emulation.issueTo.empty() ? 0 : emulation.issueTo[peer];
    for (auto [field, seconds] : {std::pair{"latencyTo", emulation.latencyTo[peer]}, std::pair{"issueTo", issue}})
      if (!std::isfinite(seconds) || seconds < 0)
        throwInvalidArgument(std::string("options.emulation.") + field,
                             "gives rank " + std::to_string(peer) + " " + text(seconds) + " s");
  }
}

void LinkBoard::initialize(std::byte* segment, uint32_t links) {
  auto* header = reinterpret_cast<Header*>(segment);
  header->links = links;
  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
  const int err = pthread_mutex_init(&header->lock, &attributes);
  pthread_mutexattr_destroy(&attributes);
  if (err != 0) throwSystemError("initialising the link board's mutex", err);
  std::atomic_ref<uint64_t>(header->magic).store(kMagic, std::memory_order_release);
}

void LinkBoard::check(const std::byte* segment, uint32_t links, const std::string& name) {
  auto* header = reinterpret_cast<Header*>(const_cast<std::byte*>(segment));
  if (std::atomic_ref<uint64_t>(header->magic).load(std::memory_order_acquire) != kMagic || header->links != links)
    throwError(trncclSystemError, "shared-memory segment " + name + " is not the link board of this communicator");
}

LinkPacer::LinkPacer(Segment board, const LinkEmulation& emulation)
    : board_(std::move(board)),
      header_(reinterpret_cast<LinkBoard::Header*>(board_.data())),
      busyUntil_(reinterpret_cast<uint64_t*>(board_.data() + sizeof(LinkBoard::Header))),
      routes_(emulation.pathTo.size()) {
  for (size_t peer = 0; peer < routes_.size(); ++peer) {
    Route& route = routes_[peer];
    for (int link : emulation.pathTo[peer]) {
      route.links.push_back(static_cast<uint32_t>(link));
      route.linkNsPerByte.push_back(emulation.scale * 1e9 / emulation.linkBytesPerSec[static_cast<size_t>(link)]);
    }
    route.latencyNs = scaledNs(emulation.latencyTo[peer] * emulation.scale * 1e9);
    if (!emulation.issueTo.empty()) route.issueNs = scaledNs(emulation.issueTo[peer] * emulation.scale * 1e9);
  }
}

uint64_t LinkPacer::reserve(int peer, uint64_t bytes, bool issued) {
  const Route& route = routes_[static_cast<size_t>(peer)];
  uint64_t end = monotonicNs();
  const uint64_t issueNs = issued ? route.issueNs : 0;
  // An empty message pays latency only, and its issue time where the path
  // has one: it occupies no link, nor waits for one, but to be issued.
  const size_t links = bytes > 0 ? route.links.size() : issueNs > 0 ? std::min<size_t>(1, route.links.size()) : 0;
  if (links > 0) {
    const double size = static_cast<double>(bytes);
    const uint64_t now = end;
    BoardLock lock(header_->lock);
    for (size_t i = 0; i < links; ++i) {
      uint64_t& busy = busyUntil_[route.links[i]];
      // The first link issues the message (its sender's DMA engines).
      busy = saturatingAdd(saturatingAdd(std::max(now, busy), i == 0 ? issueNs : 0),
                           scaledNs(size * route.linkNsPerByte[i]));
      end = std::max(end, busy);
    }
  }
  return saturatingAdd(end, route.latencyNs);
}

}  // namespace trnccl::transport::shm
