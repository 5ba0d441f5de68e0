#include "core/bootstrap_protocol.h"

#include <cerrno>

namespace trnccl::core::wire {

Hello makeHello(Purpose purpose, const Secret& secret, int rank, int nranks) {
  return {kHelloMagic, kProtocolVersion, static_cast<uint32_t>(purpose), secret, rank, nranks};
}

std::string describeRanks(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size();) {
    size_t last = i;
    while (last + 1 < ranks.size() && ranks[last + 1] == ranks[last] + 1) ++last;
    text += (i ? ", " : "") + std::to_string(ranks[i]);
    if (last > i) text += "-" + std::to_string(ranks[last]);
    i = last + 1;
  }
  return text;
}

std::string rankContext(int rank, int nranks, const char* operation) {
  return "bootstrap rank " + std::to_string(rank) + "/" + std::to_string(nranks) + " " + operation +
         ": ";
}

}  // namespace trnccl::core::wire
