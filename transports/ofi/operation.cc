#include "transports/ofi/operation.h"

namespace trnccl::transport::ofi {

Operation& OperationPool::take(OpKind kind, int rail, int peer) {
  if (free_.empty()) {
    all_.push_back(std::make_unique<Operation>());
    free_.push_back(all_.back().get());
  }
  Operation& op = *free_.back();
  free_.pop_back();
  op.kind = kind;
  op.rail = rail;
  op.peer = peer;
  return op;
}

void OperationPool::give(Operation& op) {
  std::vector<std::byte> storage = std::move(op.storage);
  storage.clear();
  if (op.kind == OpKind::DataReceive || op.kind == OpKind::DataSend) {
    if (storage.capacity() > 0 && chunkBuffers_.size() < keepChunkBuffers_) chunkBuffers_.push_back(std::move(storage));
    storage = {};
  }
  op.request = nullptr;
  op.buffer = nullptr;
  op.bytes = 0;
  op.tag = 0;
  op.message = 0;
  op.chunk = 0;
  op.awaitingCredit = op.posted = op.abandoned = op.granted = op.draining = op.resend = op.kept = op.left = false;
  op.grantedAt = {};
  op.lease = {};
  op.storage = std::move(storage);
  free_.push_back(&op);
}

void OperationPool::takeChunkBuffer(Operation& op, size_t bytes) {
  if (!chunkBuffers_.empty()) {
    op.storage = std::move(chunkBuffers_.back());
    chunkBuffers_.pop_back();
  }
  op.storage.resize(bytes);
  op.buffer = op.storage.data();
}

uint64_t OperationPool::storageBytes() const {
  uint64_t bytes = 0;
  for (const auto& op : all_) bytes += sizeof(Operation) + op->storage.capacity();
  for (const auto& buffer : chunkBuffers_) bytes += buffer.capacity();
  return bytes;
}

}  // namespace trnccl::transport::ofi
