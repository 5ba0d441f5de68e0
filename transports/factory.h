// Every transport by name, for the communicator: "shm" between ranks of one
// instance, "ofi" or "tcp" between instances (TRNCCL_TRANSPORT).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transports/transport.h"

namespace trnccl::transport {

// The transports this build has, by name.
std::vector<std::string> transportNames();

// Collective over options.oob like every factory. Throws
// Error(InvalidArgument) naming an unknown transport.
std::unique_ptr<Transport> createTransport(const std::string& name, const Options& options);

}  // namespace trnccl::transport
