#include "core/config.h"

#include "algorithms/algorithm_filter.h"
#include "algorithms/tuner.h"
#include "base/env.h"
#include "base/error.h"
#include "base/log.h"
#include "base/settings.h"
#include "core/declared_settings.h"
#include "transports/factory.h"

namespace trnccl::core {
namespace {

using settings::boolean;
using settings::integer;
using settings::text;

TRNCCL_SETTING(kTimeoutMs, TRNCCL_TIMEOUT_MS, integer(Defaults::kTimeoutMs, 1, INT64_MAX / 2),
               "bound on every wait; on expiry calls return `trncclTimeout` naming the peer and step");
TRNCCL_SETTING(kTopo, TRNCCL_TOPO,
               text("`trn1.32xlarge`, `trn1.2xlarge:4`, `/path/my.json`", "unset (this host, flat)"),
               "the machine the ranks run on (emulated)");
TRNCCL_SETTING(kRankOrder, TRNCCL_RANK_ORDER, text("`core`, `chip`, `spread`, `0,2,4,...`", "`core`"),
               "ranks onto NeuronCores");
TRNCCL_SETTING(kEmulateLinks, TRNCCL_EMULATE_LINKS, boolean(false),
               "pace shared-memory messages to the topology's machine model (links, DMA engines, launch; bandwidth, "
               "latency, sharing)");
TRNCCL_SETTING(kEmulateScale, TRNCCL_EMULATE_SCALE, integer(Defaults::kEmulateScale, 1, 1000000),
               "host time = modelled time x this, so the host keeps up");
TRNCCL_SETTING(kTransport, TRNCCL_TRANSPORT, text("`auto` or a transport: `shm`, `ofi`, `tcp`", "auto"),
               "transport between instances (`auto`: ofi, else tcp); `shm` keeps emulated instances on shared memory "
               "(an error when ranks are on several hosts)");
TRNCCL_SETTING(kAlgo, TRNCCL_ALGO,
               text("`torus2d`, `ring,rdh`, `^mesh`, `allreduce:torus2d;allgather:ring`, `neuron`", "auto"),
               "NCCL_ALGO syntax over the algorithms above; an algorithm that cannot run a call is an error saying "
               "why; `neuron` plays the Neuron runtime's documented choice per size");
TRNCCL_SETTING(kStochasticRounding, TRNCCL_STOCHASTIC_ROUNDING, boolean(false),
               "stochastic instead of round-to-nearest-even rounding for 16/8-bit float reductions");
TRNCCL_SETTING(kDeterministic, TRNCCL_DETERMINISTIC, boolean(false),
               "every algorithm reduces in rank order at one owner per block, so all give the same bits (README)");
TRNCCL_SETTING(kSeed, TRNCCL_SEED, integer(0, 0, INT64_MAX), "stochastic-rounding seed (same seed, same bits)");
TRNCCL_SETTING(kSliceBytes, TRNCCL_SLICE_BYTES, integer(Defaults::kSliceBytes, 4096, 64 << 20, "bytes"),
               "pipelining unit of the executor");
TRNCCL_SETTING(kWindow, TRNCCL_WINDOW, integer(Defaults::kWindow, 1, 64), "slices in flight per step");
TRNCCL_SETTING(kCheck, TRNCCL_CHECK, boolean(false),
               "before each collective, ranks compare the call (collective, count, type, op, root, sequence); a "
               "mismatch fails every rank naming the ranks and fields (on in the tests)");
TRNCCL_SETTING(kRecorderOps, TRNCCL_RECORDER_OPS, integer(Defaults::kRecorderOps, 0, 1 << 20),
               "operations the flight recorder keeps per communicator (0: off)", settings::Scope::Rank);
TRNCCL_SETTING(kTraceDir, TRNCCL_TRACE_DIR, text("directory", "unset"),
               "where each rank dumps its flight recorder (timeout or failure, abort, destroy, SIGUSR1)",
               settings::Scope::Rank);
TRNCCL_SETTING(kTrace, TRNCCL_TRACE, text("file, `%r` rank, `%p` pid", "unset"),
               "Chrome/Perfetto trace of every collective, step and transfer", settings::Scope::Rank);

bool isSet(int field) { return field != TRNCCL_CONFIG_UNDEF_INT; }

std::string choice(const char* field, const char* value, const settings::Setting& variable,
                   const std::vector<std::string>& allowed) {
  if (value == nullptr) return env::getChoice(variable.name, variable.form.fallback, allowed);
  std::string list;
  for (const std::string& a : allowed) {
    if (value == a) return a;
    list += list.empty() ? a : ", " + a;
  }
  throwInvalidArgument(std::string("config->") + field, std::string("is '") + value + "', not one of: " + list);
}

}  // namespace

std::chrono::milliseconds timeoutFromEnvironment() { return std::chrono::milliseconds(settings::readInt(kTimeoutMs)); }

Config resolveConfig(const trncclConfig_t* user) {
  if (user != nullptr && (user->magic != TRNCCL_CONFIG_MAGIC || user->size != sizeof(trncclConfig_t)))
    throwInvalidArgument("config", "was not initialised with TRNCCL_CONFIG_INITIALIZER");
  log::checkEnvironment();
  warnMisspelledSettingsOnce();
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

  out.topology = c.topology ? c.topology : settings::readText(kTopo).value_or("");
  out.topologySource = c.topology ? "config->topology" : kTopo.name;
  out.rankOrder = settings::readText(kRankOrder).value_or("");
  out.emulateLinks = settings::readBool(kEmulateLinks);
  out.emulateScale = static_cast<int>(settings::readInt(kEmulateScale));

  // Between instances; within one, ranks always share memory.
  std::vector<std::string> transports = {"auto"};
  for (const std::string& name : transport::transportNames()) transports.push_back(name);
  out.transport = choice("transport", c.transport, kTransport, transports);
  out.transportSource = c.transport ? "config->transport" : kTransport.name;

  out.algorithm = c.algorithm ? c.algorithm : settings::readText(kAlgo).value_or(kAlgo.form.fallback);
  out.algorithmSource = c.algorithm ? "config->algorithm" : kAlgo.name;
  algo::AlgorithmFilter check(out.algorithm, out.algorithmSource, algo::Tuner::algorithmNames());

  if (isSet(c.stochasticRounding)) {
    if (c.stochasticRounding != 0 && c.stochasticRounding != 1)
      throwInvalidArgument("config->stochasticRounding", "must be 0 or 1");
    out.stochasticRounding = c.stochasticRounding == 1;
  } else {
    out.stochasticRounding = settings::readBool(kStochasticRounding);
  }
  if (isSet(c.deterministic)) {
    if (c.deterministic != 0 && c.deterministic != 1) throwInvalidArgument("config->deterministic", "must be 0 or 1");
    out.deterministic = c.deterministic == 1;
  } else {
    out.deterministic = settings::readBool(kDeterministic);
  }
  out.seed = c.seed != 0 ? c.seed : static_cast<uint64_t>(settings::readInt(kSeed));
  if (c.commName) out.name = c.commName;

  out.sliceBytes = static_cast<size_t>(settings::readInt(kSliceBytes));
  out.window = static_cast<int>(settings::readInt(kWindow));
  out.checkCalls = settings::readBool(kCheck);
  out.recorderOps = static_cast<size_t>(settings::readInt(kRecorderOps));
  out.traceDir = settings::readText(kTraceDir).value_or("");
  out.tracePattern = settings::readText(kTrace).value_or("");
  return out;
}

}  // namespace trnccl::core
