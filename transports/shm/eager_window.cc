#include "transports/shm/eager_window.h"

#include <string>

#include "base/error.h"

namespace trnccl::transport::shm {

bool EagerWindow::admits(uint64_t bytes, const FifoWriter& fifo, int peer) {
  if (fits(bytes)) return true;
  const Deliveries seen = fifo.deliveries();
  if (seen.messages < delivered_.messages || seen.messages > sent_.messages || seen.bytes < delivered_.bytes ||
      seen.bytes > sent_.bytes)
    throwError(trncclRemoteError, "rank " + std::to_string(peer) + " claims to have delivered " +
                                      std::to_string(seen.messages) + " eager messages (" + std::to_string(seen.bytes) +
                                      " bytes) of the " + std::to_string(sent_.messages) + " (" +
                                      std::to_string(sent_.bytes) + " bytes) this rank sent it");
  delivered_ = seen;
  return fits(bytes);
}

}  // namespace trnccl::transport::shm
