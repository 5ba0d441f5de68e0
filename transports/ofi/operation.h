// One operation posted to (or queued for) a rail, and the pool that recycles
// them. libfabric hands back the context pointer given at posting time; every
// operation's context starts with the fi_context2 that FI_CONTEXT2 providers
// (EFA) may use as scratch space until the operation completes.
#pragma once

#include <rdma/fabric.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "transports/ofi/registration_cache.h"
#include "transports/transport.h"

namespace trnccl::transport::ofi {

enum class OpKind : uint8_t {
  ControlReceive,  // a standing receive for one peer's control messages
  ControlSend,     // a control message (its bytes in `storage`)
  DataSend,        // one chunk of a message, or an empty withdrawal marker
  DataReceive,     // one chunk of a message, into the user's buffer or the sink
};

struct Operation;

// What libfabric sees as the operation's context.
struct OperationContext {
  fi_context2 provider;  // first: its address is the context pointer
  Operation* operation;
};

struct Operation {
  Operation() { context.operation = this; }
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  OperationContext context{};
  OpKind kind = OpKind::ControlSend;
  int rail = 0;
  int peer = -1;               // the peer's rank
  Request* request = nullptr;  // a Done: the receive it completes (null once cancelled)
  void* buffer = nullptr;
  size_t bytes = 0;
  uint64_t tag = 0;      // the libfabric tag
  uint64_t message = 0;  // data: the send's or the receive's number
  uint32_t chunk = 0;
  bool awaitingCredit = false;  // control sends: still in the peer's credit queue
  bool posted = false;          // handed to the provider, not yet completed
  bool abandoned = false;       // cancelled while queued: recycle instead of posting
  bool granted = false;         // data receives: a Cts promised the sender this chunk
  bool resend = false;          // control sends: a kept copy going out again (its header stays)
  bool kept = false;            // control sends: numbered, among the peer's unacknowledged
  bool left = false;            // control sends: completed since last queued
  bool draining = false;        // cancelled while posted: cancelAll waits for it
  // Data receives: when the Cts promising it went out; control sends: when they left.
  std::chrono::steady_clock::time_point grantedAt;
  RegistrationCache::Lease lease;
  std::vector<std::byte> storage;  // control messages; data over several rails: the chunk
};

// Recycles operations (and the capacity of their storage), so steady traffic
// allocates nothing and control buffers keep their registrations. A data
// operation's chunk buffer goes back to a list of its own when the operation
// does (at most `keepChunkBuffers` are kept), so that control messages never
// hold one.
class OperationPool {
 public:
  Operation& take(OpKind kind, int rail, int peer);
  void give(Operation& op);
  // Sets op.storage to `bytes` of a recycled chunk buffer, and op.buffer to
  // it (data over several rails).
  void takeChunkBuffer(Operation& op, size_t bytes);
  void keepChunkBuffers(size_t count) { keepChunkBuffers_ = count; }
  // Heap the operations hold: themselves, their control and chunk buffers.
  uint64_t storageBytes() const;

 private:
  std::vector<std::unique_ptr<Operation>> all_;
  std::vector<Operation*> free_;
  std::vector<std::vector<std::byte>> chunkBuffers_;
  size_t keepChunkBuffers_ = 0;
};

}  // namespace trnccl::transport::ofi
