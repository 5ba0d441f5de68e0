#include "exchange.h"

#include <rdma/fabric.h>

#include <algorithm>
#include <vector>

namespace trnccl::ofi_bench {
namespace {

// A slot of the window: the provider's context first, so its address is the
// operation's context pointer.
struct Slot {
  fi_context2 context{};
  bool send = false;
  size_t chunk = 0;
  bool busy = false;
};

}  // namespace

void exchange(RawEndpoint& endpoint, const char* out, char* in, size_t bytes, size_t chunkBytes, int window) {
  const size_t chunks = std::max<size_t>(1, (bytes + chunkBytes - 1) / chunkBytes);
  const auto length = [&](size_t chunk) { return std::min(chunkBytes, bytes - std::min(bytes, chunk * chunkBytes)); };
  std::vector<Slot> slots(2 * static_cast<size_t>(window));
  size_t nextSend = 0, nextReceive = 0, done = 0;
  // Puts every idle slot to work while chunks are left; the provider may
  // refuse when its queue is full, and the slot is tried again later.
  const auto postIdle = [&] {
    for (size_t s = 0; s < slots.size(); ++s) {
      Slot& slot = slots[s];
      slot.send = s % 2 == 0;
      size_t& next = slot.send ? nextSend : nextReceive;
      if (slot.busy || next == chunks) continue;
      const size_t offset = next * chunkBytes;
      const bool posted = slot.send ? endpoint.send(out + offset, length(next), next, &slot.context)
                                    : endpoint.receive(in + offset, length(next), next, &slot.context);
      if (!posted) return;
      slot.busy = true;
      slot.chunk = next++;
    }
  };
  postIdle();
  void* completed[64];
  while (done < 2 * chunks) {
    const size_t n = endpoint.completions(completed, std::size(completed));
    for (size_t i = 0; i < n; ++i) static_cast<Slot*>(completed[i])->busy = false;
    done += n;
    postIdle();  // also what the provider refused before: it needs progress first
  }
}

}  // namespace trnccl::ofi_bench
