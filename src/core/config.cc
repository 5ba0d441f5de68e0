#include "core/config.h"

#include "algorithms/algorithm_filter.h"
#include "algorithms/tuner.h"
#include "base/env.h"
#include "base/error.h"
#include "base/log.h"
#include "transports/factory.h"

namespace trnccl::core {
namespace {

bool isSet(int field) { return field != TRNCCL_CONFIG_UNDEF_INT; }

std::string choice(const char* field, const char* value, const char* variable, const std::string& fallback,
                   const std::vector<std::string>& allowed) {
  if (value == nullptr) return env::getChoice(variable, fallback, allowed);
  std::string list;
  for (const std::string& a : allowed) {
    if (value == a) return a;
    list += list.empty() ? a : ", " + a;
  }
  throwInvalidArgument(std::string("config->") + field, std::string("is '") + value + "', not one of: " + list);
}

}  // namespace

std::chrono::milliseconds timeoutFromEnvironment() {
  const Config defaults;
  return std::chrono::milliseconds(env::getInt("TRNCCL_TIMEOUT_MS", defaults.timeout.count(), 1, INT64_MAX / 2));
}

Config resolveConfig(const trncclConfig_t* user) {
  if (user != nullptr && (user->magic != TRNCCL_CONFIG_MAGIC || user->size != sizeof(trncclConfig_t)))
    throwInvalidArgument("config", "was not initialised with TRNCCL_CONFIG_INITIALIZER");
  log::checkEnvironment();
  trncclConfig_t none = TRNCCL_CONFIG_INITIALIZER;
  const trncclConfig_t& c = user ? *user : none;
  Config out;

  if (isSet(c.blocking)) {
    if (c.blocking != 0 && c.blocking != 1) throwInvalidArgument("config->blocking", "must be 0 or 1");
    out.blocking = c.blocking == 1;
  }
  if (isSet(c.timeoutMs)) {
    if (c.timeoutMs <= 0) throwInvalidArgument("config->timeoutMs", "must be positive");
    out.timeout = std::chrono::milliseconds(c.timeoutMs);
  } else {
    out.timeout = timeoutFromEnvironment();
  }

  out.topology = c.topology ? c.topology : env::get("TRNCCL_TOPO").value_or("");
  out.topologySource = c.topology ? "config->topology" : "TRNCCL_TOPO";
  out.rankOrder = env::get("TRNCCL_RANK_ORDER").value_or("");
  out.emulateLinks = env::getBool("TRNCCL_EMULATE_LINKS", false);
  out.emulateScale = static_cast<int>(env::getInt("TRNCCL_EMULATE_SCALE", out.emulateScale, 1, 1000000));

  // Between instances; within one, ranks always share memory.
  std::vector<std::string> transports = {"auto"};
  for (const std::string& name : transport::transportNames()) transports.push_back(name);
  out.transport = choice("transport", c.transport, "TRNCCL_TRANSPORT", "auto", transports);
  out.transportSource = c.transport ? "config->transport" : "TRNCCL_TRANSPORT";

  out.algorithm = c.algorithm ? c.algorithm : env::get("TRNCCL_ALGO").value_or("auto");
  out.algorithmSource = c.algorithm ? "config->algorithm" : "TRNCCL_ALGO";
  algo::AlgorithmFilter check(out.algorithm, out.algorithmSource, algo::Tuner::algorithmNames());

  if (isSet(c.stochasticRounding)) {
    if (c.stochasticRounding != 0 && c.stochasticRounding != 1)
      throwInvalidArgument("config->stochasticRounding", "must be 0 or 1");
    out.stochasticRounding = c.stochasticRounding == 1;
  } else {
    out.stochasticRounding = env::getBool("TRNCCL_STOCHASTIC_ROUNDING", false);
  }
  out.seed = c.seed != 0 ? c.seed : static_cast<uint64_t>(env::getInt("TRNCCL_SEED", 0, 0, INT64_MAX));
  if (c.commName) out.name = c.commName;

  out.sliceBytes = static_cast<size_t>(env::getInt("TRNCCL_SLICE_BYTES", 512 * 1024, 4096, 64 << 20));
  out.window = static_cast<int>(env::getInt("TRNCCL_WINDOW", 4, 1, 64));
  out.checkCalls = env::getBool("TRNCCL_CHECK", false);
  out.recorderOps = static_cast<size_t>(env::getInt("TRNCCL_RECORDER_OPS", 64, 0, 1 << 20));
  out.traceDir = env::get("TRNCCL_TRACE_DIR").value_or("");
  out.tracePattern = env::get("TRNCCL_TRACE").value_or("");
  return out;
}

}  // namespace trnccl::core
