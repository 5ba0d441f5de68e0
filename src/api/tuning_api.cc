// trncclCommGetAlgorithm: what the tuner would run for a call, and its
// prediction (trnccl-perf prints both beside each measured row);
// trncclCommGetTransport: what carries the bytes (trnccl-perf's header);
// trncclCommMemStats: the memory a communicator holds.
#include <cstring>
#include <string>

#include "api/guard.h"
#include "api/handles.h"
#include "base/datatype.h"

using trnccl::throwInvalidArgument;
using trnccl::api::guarded;
namespace algo = trnccl::algo;

extern "C" TRNCCL_API trncclResult_t trncclCommGetAlgorithm(const trncclComm_t comm, const char* collective,
                                                            size_t count, trncclDataType_t datatype, char* algorithm,
                                                            double* predictedUs) {
  return guarded("trncclCommGetAlgorithm", comm, [&] {
    trnccl::core::Communicator& c = trnccl::api::usableComm(comm);
    if (collective == nullptr) throwInvalidArgument("collective", "is NULL");
    if (algorithm == nullptr) throwInvalidArgument("algorithm", "is NULL");
    if (!trnccl::validType(datatype))
      throwInvalidArgument("datatype", "is " + std::to_string(static_cast<int>(datatype)) + ", not a trnccl data type");
    const algo::Collective kinds[] = {algo::Collective::AllReduce,     algo::Collective::AllGather,
                                      algo::Collective::ReduceScatter, algo::Collective::Broadcast,
                                      algo::Collective::Reduce,        algo::Collective::AllToAll,
                                      algo::Collective::Gather,        algo::Collective::Scatter};
    std::string names;
    for (algo::Collective k : kinds) {
      if (std::strcmp(collective, algo::collectiveName(k)) != 0) {
        names += names.empty() ? algo::collectiveName(k) : std::string(", ") + algo::collectiveName(k);
        continue;
      }
      const trnccl::core::AlgorithmInfo info = c.runner().algorithmFor(k, count, datatype);
      std::snprintf(algorithm, TRNCCL_ALGO_NAME_MAX, "%s", info.name.c_str());
      if (predictedUs) *predictedUs = info.predictedSeconds * 1e6;
      return;
    }
    throwInvalidArgument("collective", std::string("is '") + collective + "', not one of: " + names);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommGetTransport(const trncclComm_t comm, char* transport) {
  return guarded("trncclCommGetTransport", comm, [&] {
    const trnccl::core::Communicator& c = trnccl::api::usableComm(comm);
    if (transport == nullptr) throwInvalidArgument("transport", "is NULL");
    std::snprintf(transport, TRNCCL_TRANSPORT_NAME_MAX, "%s", c.transports().description().c_str());
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommMemStats(const trncclComm_t comm, trncclMemStats_t* stats) {
  return guarded("trncclCommMemStats", comm, [&] {
    trnccl::core::Communicator& c = trnccl::api::liveComm(comm);
    if (stats == nullptr) throwInvalidArgument("stats", "is NULL");
    c.drain();
    const trnccl::transport::MemoryUse use = c.runner().memoryUse();
    *stats = {use.hostBytes, use.sharedBytes, use.registeredBytes, use.peersWithBuffers};
  });
}
