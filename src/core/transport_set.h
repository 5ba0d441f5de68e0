// The transports that carry this rank's messages: the instance-local one
// (shared memory) to the ranks of its instance, and a network transport to
// the ranks of other instances.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transports/factory.h"
#include "transports/transport.h"

namespace trnccl::core {

// The factory's instance-local transport; throws if the build has none.
const transport::TransportEntry& instanceTransport();

// Between instances: `setting` (TRNCCL_TRANSPORT, named `source` in errors),
// or for "auto" the factory's preferred network transport. Throws
// InvalidUsage for an instance-only transport when the ranks run on several
// hosts.
const transport::TransportEntry& networkTransport(const std::string& setting, const std::string& source, int hostCount);

class TransportSet {
 public:
  // Collective: every rank builds its set from the same instanceOf (per
  // rank; empty: one instance) and the same transports, so all call the same
  // factories. `options` says everything but the peers; its link emulation
  // models NeuronLink, so only `local` gets it. When `network` is `local`
  // (instances emulated on one host may, by choice, all share memory), it
  // carries every peer. One rank alone has no transports.
  TransportSet(const transport::Options& options, const std::vector<int>& instanceOf,
               const transport::TransportEntry& local, const transport::TransportEntry& network);

  // Indexed by peer rank; null for this rank.
  const std::vector<transport::Transport*>& byPeer() const { return byPeer_; }
  // Each transport once.
  std::vector<transport::Transport*> all() const;
  // "shm", "shm + ofi (tcp;ofi_rxm, 1 rail)"; "none" for one rank.
  std::string description() const;
  transport::MemoryUse memoryUse() const;
  // Wakes every transport's waiting thread (abort).
  void interrupt();
  // Forgets everything posted and closes every transport, which tells the
  // peers this rank left (as its exit would): a peer waiting for it fails
  // at once instead of at its timeout. Call with no operation running.
  void close();

 private:
  std::vector<std::unique_ptr<transport::Transport>> owned_;
  std::vector<transport::Transport*> byPeer_;
};

}  // namespace trnccl::core
