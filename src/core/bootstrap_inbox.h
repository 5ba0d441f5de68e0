// The messages from one peer of the bootstrap, demultiplexed by (channel, tag).
#pragma once

#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/socket.h"
#include "core/bootstrap_protocol.h"

namespace trnccl::core::wire {

class Inbox {
 public:
  explicit Inbox(net::Socket socket) : socket_(std::move(socket)) {}

  net::Socket& socket() { return socket_; }

  // Reads what has arrived, up to the first complete message for `awaited`
  // (reading on could run into the peer's orderly close). A frame for
  // `awaited` that is next in line must have `awaitedBytes`; anything
  // malformed throws.
  void readAvailable(const MessageKey& awaited, size_t awaitedBytes) {
    while (true) {
      if (headerBytes_ < sizeof(header_)) {
        size_t got = socket_.recvSome(reinterpret_cast<char*>(&header_) + headerBytes_, sizeof(header_) - headerBytes_);
        if (got == 0) return;
        headerBytes_ += got;
        if (headerBytes_ < sizeof(header_)) continue;
        startPayload(awaited, awaitedBytes);
      } else {
        size_t got = socket_.recvSome(payload_.data() + payloadBytes_, payload_.size() - payloadBytes_);
        if (got == 0) return;
        payloadBytes_ += got;
      }
      if (headerBytes_ == sizeof(header_) && payloadBytes_ == payload_.size() && park() == awaited) {
        return;
      }
    }
  }

  // Moves the oldest parked message for `key` into data; false if none.
  bool take(const MessageKey& key, void* data, size_t bytes) {
    auto queue = parked_.find(key);
    if (queue == parked_.end() || queue->second.empty()) return false;
    checkSize(key, queue->second.front().size(), bytes);
    if (bytes > 0) std::memcpy(data, queue->second.front().data(), bytes);
    queue->second.pop_front();
    return true;
  }

 private:
  void startPayload(const MessageKey& awaited, size_t awaitedBytes) {
    if (!frameHeaderValid(header_)) {
      throwError(trncclRemoteError, "malformed message header from " + socket_.describePeer());
    }
    MessageKey key{header_.channel, header_.tag};
    if (key == awaited && (parked_.count(key) == 0 || parked_[key].empty()))
      checkSize(key, header_.bytes, awaitedBytes);
    payload_.assign(header_.bytes, 0);
    payloadBytes_ = 0;
  }

  MessageKey park() {
    MessageKey key{header_.channel, header_.tag};
    parked_[key].push_back(std::move(payload_));
    payload_.clear();
    headerBytes_ = 0;
    payloadBytes_ = 0;
    return key;
  }

  void checkSize(const MessageKey& key, uint64_t arrived, size_t expected) const {
    if (arrived == expected) return;
    std::string what = key.channel == static_cast<uint32_t>(Channel::User)
                           ? "a message with tag " + std::to_string(key.tag)
                           : "a collective message";
    throwError(trncclInvalidUsage, socket_.describePeer() + " sent " + what + " of " + std::to_string(arrived) +
                                       " bytes where " + std::to_string(expected) + " were expected");
  }

  net::Socket socket_;
  FrameHeader header_{};
  size_t headerBytes_ = 0;
  std::vector<char> payload_;
  size_t payloadBytes_ = 0;
  std::map<MessageKey, std::deque<std::vector<char>>> parked_;
};

}  // namespace trnccl::core::wire
