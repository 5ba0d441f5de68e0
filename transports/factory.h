// The one list of transports this build has (transports.cmake), each entry
// registered by its own folder (registration.h): what it reaches, how the
// automatic choice ranks it, what it can do. The communicator, the config's
// validation of TRNCCL_TRANSPORT, the tests, the benchmarks and
// trnccl-doctor read this list rather than name transports.
#pragma once

#include <string>
#include <vector>

#include "transports/registration.h"

namespace trnccl::transport {

// Every transport of this build, in TRNCCL_TRANSPORTS order.
const std::vector<TransportEntry>& transports();
std::vector<std::string> transportNames();
// Those of `reach`, preferred first.
std::vector<std::string> transportNames(Reach reach);

// Throws Error(InvalidArgument) naming an unknown transport.
const TransportEntry& transportNamed(const std::string& name);

// The automatic choice among the transports of `reach`: the lowest autoRank;
// null when the build has none.
const TransportEntry* preferredTransport(Reach reach);

}  // namespace trnccl::transport
