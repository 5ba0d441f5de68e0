// One rail: a reliable-datagram endpoint with its own fabric, domain, address
// vector and completion queue (on EFA, one NIC). Owns every libfabric object
// it opens and closes them endpoint first, so that no operation outlives the
// objects it uses.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transports/ofi/registration_cache.h"

namespace trnccl::transport::ofi {

template <class T>
struct FidCloser {
  void operator()(T* object) const { fi_close(&object->fid); }
};
template <class T>
using Fid = std::unique_ptr<T, FidCloser<T>>;

using Address = std::vector<uint8_t>;  // an endpoint's name (fi_getname)

// One entry read from the completion queue.
struct RawCompletion {
  void* context = nullptr;  // the operation's context
  size_t len = 0;           // bytes received (receives)
  int err = 0;              // 0, or the positive FI_E* code of a failed operation
  std::string providerMessage;
};

// Registrations one rail keeps cached.
inline constexpr size_t kCachedRegistrations = 64;

class Rail {
 public:
  // Throws Error(SystemError) naming the object that failed to open.
  Rail(const fi_info& info, int index);

  int index() const { return index_; }
  const Address& address() const { return address_; }
  // Adds peers' addresses to the address vector; their fi_addr_t in order.
  std::vector<fi_addr_t> insert(const std::vector<Address>& addresses);
  // Human-readable form of an address, e.g. "fi_sockaddr_in://10.0.0.2:4711".
  std::string describe(const Address& address) const;

  // Post one tagged operation: 0, -FI_EAGAIN (queue full: progress, then
  // retry), or another negative FI_E* code.
  ssize_t send(const void* buffer, size_t bytes, void* desc, fi_addr_t to, uint64_t tag, void* context);
  ssize_t receive(void* buffer, size_t bytes, void* desc, fi_addr_t from, uint64_t tag, void* context);
  // Asks the provider to cancel a posted receive; it completes with FI_ECANCELED
  // (or normally, if it was already being filled).
  void cancel(void* context);

  // Appends what the completion queue holds (at most `max` entries).
  void read(std::vector<RawCompletion>& out, size_t max);

  // A file descriptor that becomes readable when the completion queue may
  // have something, or -1 when the provider offers none.
  int waitFd() const { return waitFd_; }
  // fi_trywait: true if it is safe to sleep on waitFd() now.
  bool readyToSleep();

  // Registration of local buffers, when the provider asks for it
  // (FI_MR_LOCAL): a lease on a cached registration covering the buffer,
  // held while an operation on it is posted. Without FI_MR_LOCAL the lease
  // is empty (a null desc). Throws Error(SystemError) naming the range.
  RegistrationCache::Lease lease(const void* buffer, size_t bytes);
  void release(RegistrationCache::Lease& lease);
  uint64_t registeredBytes() const { return registrations_ ? registrations_->bytes() : 0; }

  size_t sendQueueDepth() const { return txDepth_; }
  size_t receiveQueueDepth() const { return rxDepth_; }
  uint64_t maxMessageBytes() const { return maxMessageBytes_; }
  const std::string& fabricName() const { return fabricName_; }
  const std::string& domainName() const { return domainName_; }

 private:
  RegistrationCache::Region registerMemory(uintptr_t begin, size_t bytes);

  const int index_;
  std::string fabricName_, domainName_;
  uint64_t mrMode_ = 0;
  uint64_t nextKey_ = 1;  // requested keys must be unique without FI_MR_PROV_KEY
  size_t txDepth_ = 0, rxDepth_ = 0;
  uint64_t maxMessageBytes_ = 0;
  int waitFd_ = -1;
  Address address_;
  // Declaration order is the reverse of the closing order: endpoint first.
  Fid<fid_fabric> fabric_;
  Fid<fid_domain> domain_;
  Fid<fid_cq> cq_;
  Fid<fid_av> av_;
  std::optional<RegistrationCache> registrations_;
  Fid<fid_ep> ep_;
};

}  // namespace trnccl::transport::ofi
