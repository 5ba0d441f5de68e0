// A bare libfabric reliable-datagram endpoint with tagged messages, opened
// the way the libfabric man pages describe, with nothing of trnccl's ofi
// transport in it: the independent ceiling the transport is compared with.
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trnccl::ofi_bench {

class RawEndpoint {
 public:
  // Opens fabric, domain, completion queue, address vector and endpoint of
  // `provider`; registers [buffer, buffer + bytes) when the provider asks for
  // local registration. Throws std::runtime_error naming the call that failed.
  RawEndpoint(const std::string& provider, void* buffer, size_t bytes);
  ~RawEndpoint();
  RawEndpoint(const RawEndpoint&) = delete;
  RawEndpoint& operator=(const RawEndpoint&) = delete;

  std::vector<uint8_t> name() const;
  void addPeer(const std::vector<uint8_t>& name);  // becomes fi_addr 0

  // Post one tagged operation on the registered buffer; false when the
  // provider's queue is full (read completions, then post again).
  bool send(const void* data, size_t bytes, uint64_t tag, void* context);
  bool receive(void* data, size_t bytes, uint64_t tag, void* context);
  // The contexts of completed operations (at most `max`); throws on an error
  // completion with the provider's message.
  size_t completions(void** contexts, size_t max);

  const std::string& fabricName() const { return fabricName_; }

 private:
  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_av* av_ = nullptr;
  fid_ep* ep_ = nullptr;
  fid_mr* mr_ = nullptr;
  fi_addr_t peer_ = FI_ADDR_UNSPEC;
  std::string fabricName_;
};

}  // namespace trnccl::ofi_bench
