#include "api/coll_config.h"

#include <string>
#include <vector>

#include "algorithms/tuner.h"
#include "base/error.h"

namespace trnccl::api {
namespace {

bool choosesAlgorithm(const trncclCollConfig_t& config) {
  return config.algorithm != nullptr && std::string(config.algorithm) != "auto";
}

}  // namespace

void checkCollConfig(const trncclCollConfig_t* config) {
  if (config == nullptr) return;
  if (config->size != sizeof(trncclCollConfig_t) || config->magic != TRNCCL_COLLCONFIG_MAGIC)
    throwInvalidArgument("config", "was not initialised with TRNCCL_COLLCONFIG_INITIALIZER");
  if (config->deterministic != TRNCCL_CONFIG_UNDEF_INT && config->deterministic != 0 && config->deterministic != 1)
    throwInvalidArgument("config->deterministic",
                         "is " + std::to_string(config->deterministic) + "; it must be 0 or 1");
  if (choosesAlgorithm(*config)) {
    std::string known;
    for (const std::string& name : algo::Tuner::algorithmNames()) {
      if (name == config->algorithm) return;
      known += (known.empty() ? "" : ", ") + name;
    }
    throwInvalidArgument("config->algorithm",
                         std::string("is '") + config->algorithm + "', not \"auto\" nor one of: " + known);
  }
}

void applyCollConfig(const Checked& c, core::CollectiveCall& call, const trncclCollConfig_t* config) {
  call.choice.deterministic = c.comm->config().deterministic;
  if (config == nullptr) return;
  if (config->deterministic != TRNCCL_CONFIG_UNDEF_INT) call.choice.deterministic = config->deterministic == 1;
  if (config->chunkSize != 0) {
    const size_t most = static_cast<size_t>(c.comm->config().window) * c.comm->config().sliceBytes;
    if (config->chunkSize % c.elemBytes != 0 || config->chunkSize > most)
      throwInvalidArgument("config->chunkSize", "is " + std::to_string(config->chunkSize) +
                                                    " bytes; it must be a multiple of the " +
                                                    std::to_string(c.elemBytes) + "-byte datatype and at most " +
                                                    std::to_string(most) + " (TRNCCL_WINDOW x TRNCCL_SLICE_BYTES)");
    call.choice.chunkElements = config->chunkSize / c.elemBytes;
  }
  if (!choosesAlgorithm(*config)) return;
  const algo::Algorithm* chosen = c.comm->runner().tuner().named(config->algorithm);
  if (chosen == nullptr) throwInvalidArgument("config->algorithm", std::string("is '") + config->algorithm + "'");
  algo::CollectiveArgs args = call.args;
  args.layout = &c.comm->placement().layout();
  if (const std::string why = chosen->whyUnsupported(args); !why.empty())
    throwInvalidArgument("config->algorithm",
                         std::string("is '") + config->algorithm + "', which cannot run this call: " + why);
  call.choice.algorithm = chosen;
}

}  // namespace trnccl::api
