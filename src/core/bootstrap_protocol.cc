#include "core/bootstrap_protocol.h"

#include <cerrno>

namespace trnccl::core::wire {

Hello makeHello(Purpose purpose, const Secret& secret, int rank, int nranks) {
  return {kHelloMagic, kProtocolVersion, static_cast<uint32_t>(purpose), secret, rank, nranks};
}

std::string rankContext(int rank, int nranks, const char* operation) {
  return "bootstrap rank " + std::to_string(rank) + "/" + std::to_string(nranks) + " " + operation +
         ": ";
}

}  // namespace trnccl::core::wire
