// The libfabric transport: ranks on any hosts exchange messages over
// libfabric's reliable-datagram endpoints (FI_EP_RDM) with tagged messages,
// used the way EFA must be (FI_CONTEXT2, registered buffers, a bounded number
// of operations in flight, no reliance on message order). See
// ofi_transport_internal.h for the protocol.
//
// Environment:
//   TRNCCL_OFI_PROVIDER      the libfabric provider, as fi_info names it
//                            ("tcp;ofi_rxm", "udp;ofi_rxd", "shm"); efa wins
//                            wherever it is present (provider.h)
//   TRNCCL_OFI_RAILS         endpoints per rank, each message striped over
//                            them (1-16, default 1; trn1 has 8 EFA NICs)
//   TRNCCL_OFI_CHUNK_BYTES   the largest piece of a message on the wire
//                            (default 1 MiB)
//   TRNCCL_OFI_MAX_OUTSTANDING  operations posted per endpoint and direction
//                            (default 256)
//   TRNCCL_OFI_FAULTS        tests only: delay and reorder completions
//                            (fault_injection.h)
// Every rank must agree on the provider, the rails and the chunk size.
#pragma once

#include <memory>

#include "transports/transport.h"

namespace trnccl::transport {

// Collective: every rank of options.oob calls it (also one without peers).
// Throws trnccl::Error: InvalidArgument naming the variable behind an
// unavailable provider or a bad setting, InvalidUsage when ranks disagree,
// SystemError when libfabric fails to open an endpoint.
std::unique_ptr<Transport> createOfiTransport(const Options& options);

}  // namespace trnccl::transport
