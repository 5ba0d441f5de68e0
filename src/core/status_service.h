// The rendezvous root's second life: once every rank has its table, the root
// keeps listening and answers status queries (trnccl-top) until every rank
// has left. A query presents the job's secret (as ranks do); the root then
// asks every rank over the connection it registered on, waits a bounded
// time, and answers with every rank's status as JSON, a rank that did not
// answer in time marked so. Nothing is sent while nobody asks: the root
// and the ranks' responders sleep in poll().
#pragma once

#include <memory>
#include <vector>

#include "base/secret.h"
#include "base/socket.h"
#include "base/tls.h"

namespace trnccl::core {

class StatusService {
 public:
  // A rank the root answered with the table: the connection it registered on.
  struct Member {
    net::Socket link;
    int rank;
    net::SocketAddress listenAddress;
  };

  StatusService(net::Socket listener, const Secret& secret, std::shared_ptr<const net::TlsContext> tls,
                std::vector<Member> members);
  ~StatusService();

  // Serves queries until every member has closed its connection.
  void run();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trnccl::core
