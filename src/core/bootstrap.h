// Bootstrap: how the ranks of a communicator find each other (NCCL's model).
//
// trncclGetUniqueId() starts a rendezvous root in the calling process and
// writes its TCP address and a random secret into the unique id. Every rank
// then connects to the root, presenting the secret, its rank, the rank count
// and the address it listens on; the root hands the table of addresses to
// every rank. From then on ranks talk to each other directly
// (all-gather around a ring, point-to-point). Every connection presents the
// secret first; one that does not is refused and logged, and one that has
// not within net::greetingLimit() is dropped and logged. Every wait is
// bounded by the timeout and returns early on abort.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/socket.h"
#include "transports/transport.h"
#include "trnccl/trnccl.h"

namespace trnccl::core {

// Creates a unique id and starts its rendezvous root (a thread of this
// process that serves one communicator and ends; it gives up after `timeout`).
// The root listens on the interface chosen by TRNCCL_SOCKET_IFNAME (NCCL
// syntax: "eth,ib" prefixes, "^docker" excludes, "=eth0" exact); loopback when
// unset.
trncclUniqueId createUniqueId(std::chrono::milliseconds timeout);

// What a unique id carries: where the root listens and the secret every
// connection of the job must present.
struct RendezvousInfo {
  net::SocketAddress root;
  std::array<uint8_t, 16> secret{};
  bool encrypted = false;  // its connections use TLS (base/encryption.h)
};
trncclUniqueId encodeUniqueId(const RendezvousInfo& info);
// Throws InvalidArgument "argument 'id' ..." for an id createUniqueId did not make.
RendezvousInfo decodeUniqueId(const trncclUniqueId& id);

class Bootstrap : public transport::OutOfBand {
 public:
  // Collective over the nranks ranks that share `id`. Throws trnccl::Error:
  // InvalidArgument for a malformed id, Timeout (naming the ranks that never
  // arrived), SystemError for socket failures, InvalidUsage if ranks disagree
  // on nranks or two ranks claim the same rank. Every later operation is
  // bounded by `timeout` too. Calls on one Bootstrap must not overlap (each
  // rank's thread owns its own).
  static std::unique_ptr<Bootstrap> connect(const trncclUniqueId& id, int rank, int nranks,
                                            std::chrono::milliseconds timeout,
                                            const std::atomic<bool>* abortFlag = nullptr);
  ~Bootstrap() override;

  int rank() const override;
  int size() const override;
  void allGather(void* data, size_t bytes) override;
  void barrier() override;
  // Point-to-point with a user tag; messages between a pair with the same tag
  // arrive in order. send() returns once the message is handed to the kernel,
  // so a large message to a peer that is not receiving blocks (bounded by the
  // timeout). recv() of a message of another size is InvalidUsage.
  void send(int peer, int tag, const void* data, size_t bytes);
  void recv(int peer, int tag, void* data, size_t bytes);
  // The same, waiting up to `timeout` instead of the bootstrap's own.
  void recv(int peer, int tag, void* data, size_t bytes, std::chrono::milliseconds timeout);
  std::chrono::milliseconds timeout() const;
  void broadcast(void* data, size_t bytes, int root);

  // The address this rank listens on, e.g. "127.0.0.1:40123".
  std::string address() const;
  // The connection this rank registered with the root on, kept open: while
  // it is, the root serves status queries (trnccl-top) and asks this rank
  // over it. The first call takes it; a closed socket after that.
  net::Socket takeRootLink();

  class Impl;

 private:
  explicit Bootstrap(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trnccl::core
