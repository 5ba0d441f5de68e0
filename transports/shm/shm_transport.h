// The shared-memory transport: ranks on one host (threads or processes) move
// messages through shared memory, the model of NeuronLink's direct
// device-to-device writes. See shm_transport.cc for the protocol.
//
// Environment: TRNCCL_SHM_COPY=auto|cma|fifo (how message bytes travel),
// TRNCCL_SHM_FIFO_BYTES (FIFO payload bytes per peer, default 512 KiB).
#pragma once

#include <memory>

#include "transports/transport.h"

namespace trnccl::transport {

// Collective: every rank of options.oob calls it, with mutual peer lists.
// Throws trnccl::Error (SystemError naming /dev/shm when it is too full).
std::unique_ptr<Transport> createShmTransport(const Options& options);

}  // namespace trnccl::transport
