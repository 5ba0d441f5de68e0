// libfabric 1.17's shm provider reaches a peer endpoint of the same process
// through that endpoint's own memory, so closing one endpoint while another
// of the same process still polls makes the survivor crash in fi_cq_read.
// Ranks of one job that run as threads (trncclCommInitAll) therefore park
// their rails here when they close (with the operations and the sink that
// posted receives still point to), and the rails of a job are closed
// together when its last transport in this process goes. Between processes
// a job has one transport per process, so nothing is ever kept waiting.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "transports/ofi/operation.h"
#include "transports/ofi/rail.h"

namespace trnccl::transport::ofi {

// What a closing transport leaves open. Destroyed rails first: their
// endpoints hold pointers into the operations and the sink.
struct ParkedEndpoints {
  OperationPool operations;
  std::vector<std::byte> sink;
  std::vector<std::unique_ptr<Rail>> rails;
};

class EndpointKeeper {
 public:
  explicit EndpointKeeper(std::string jobKey);  // this transport joins its job
  ~EndpointKeeper();                            // and leaves it: the last closes every parked rail
  EndpointKeeper(const EndpointKeeper&) = delete;
  EndpointKeeper& operator=(const EndpointKeeper&) = delete;

  // Keeps `endpoints` open until the last transport of the job leaves.
  void park(ParkedEndpoints endpoints);

 private:
  std::string jobKey_;
};

}  // namespace trnccl::transport::ofi
