// The one list of transports this build has. Each entry says what it can
// reach and how the automatic choice ranks it; the communicator, the config's
// validation of TRNCCL_TRANSPORT and the tests all read this list, so a new
// transport is one folder and one entry in factory.cc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transports/transport.h"

namespace trnccl::transport {

enum class Reach {
  Instance,  // ranks of one instance (one host) only: shared memory
  Network,   // ranks of any instance
};

struct TransportEntry {
  const char* name;
  std::unique_ptr<Transport> (*create)(const Options&);
  Reach reach;
  // The automatic choice takes, of the transports that reach far enough,
  // the one with the lowest rank.
  int autoRank;
};

// Every transport of this build, in table order.
const std::vector<TransportEntry>& transports();
std::vector<std::string> transportNames();
// Those of `reach`, preferred first.
std::vector<std::string> transportNames(Reach reach);

// Throws Error(InvalidArgument) naming an unknown transport.
const TransportEntry& transportNamed(const std::string& name);

// The automatic choice among the transports of `reach`: the lowest autoRank;
// null when the build has none.
const TransportEntry* preferredTransport(Reach reach);

// Collective over options.oob like every factory. Throws
// Error(InvalidArgument) naming an unknown transport.
std::unique_ptr<Transport> createTransport(const std::string& name, const Options& options);

}  // namespace trnccl::transport
