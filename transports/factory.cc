#include "transports/factory.h"

#include "base/error.h"
#include "transports/ofi/ofi_transport.h"
#include "transports/shm/shm_transport.h"
#include "transports/tcp/tcp_transport.h"

namespace trnccl::transport {
namespace {

struct Factory {
  const char* name;
  std::unique_ptr<Transport> (*create)(const Options&);
};

const Factory kFactories[] = {
    {"shm", createShmTransport}, {"ofi", createOfiTransport}, {"tcp", createTcpTransport}};

}  // namespace

std::vector<std::string> transportNames() {
  std::vector<std::string> names;
  for (const Factory& f : kFactories) names.push_back(f.name);
  return names;
}

std::unique_ptr<Transport> createTransport(const std::string& name, const Options& options) {
  for (const Factory& f : kFactories)
    if (name == f.name) return f.create(options);
  throwInvalidArgument("transport", "'" + name + "' is not a transport of this build");
}

}  // namespace trnccl::transport
