// A communicator's settings, resolved once at creation from trncclConfig_t and
// the environment: a field set in the config struct wins over its environment
// variable; an unknown or malformed value is an error naming the field or
// variable, never a silent fallback.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "trnccl/trnccl.h"

namespace trnccl::core {

// The numeric defaults, written once: Config's members and the settings'
// declarations (config.cc) both read them.
struct Defaults {
  static constexpr int64_t kTimeoutMs = 300000;
  static constexpr int kEmulateScale = 1000;
  static constexpr size_t kSliceBytes = 512 * 1024;
  static constexpr int kWindow = 4;
  static constexpr size_t kRecorderOps = 64;
};

struct Config {
  bool blocking = true;
  std::chrono::milliseconds timeout{Defaults::kTimeoutMs};  // TRNCCL_TIMEOUT_MS
  std::string topology;                                     // TRNCCL_TOPO: empty = this host as it is
  std::string topologySource = "TRNCCL_TOPO";               // where `topology` came from, for messages
  std::string rankOrder;                                    // TRNCCL_RANK_ORDER: ranks onto NeuronCores
  bool emulateLinks = false;                                // TRNCCL_EMULATE_LINKS: pace shm to the modelled links
  int emulateScale = Defaults::kEmulateScale;               // TRNCCL_EMULATE_SCALE: modelled time x this = host time
  std::string transport = "auto";                           // TRNCCL_TRANSPORT: between instances (auto = ofi)
  std::string transportSource = "TRNCCL_TRANSPORT";
  std::string algorithm = "auto";               // TRNCCL_ALGO
  std::string algorithmSource = "TRNCCL_ALGO";  // where `algorithm` came from, for messages
  bool stochasticRounding = false;              // TRNCCL_STOCHASTIC_ROUNDING
  bool deterministic = false;                   // TRNCCL_DETERMINISTIC: reductions in rank order
  uint64_t seed = 0;                            // TRNCCL_SEED
  std::string name;                             // config.commName
  size_t sliceBytes = Defaults::kSliceBytes;    // TRNCCL_SLICE_BYTES: pipelining unit
  int window = Defaults::kWindow;               // TRNCCL_WINDOW: slices in flight per step
  bool checkCalls = false;                      // TRNCCL_CHECK: ranks compare each collective's call first
  size_t recorderOps = Defaults::kRecorderOps;  // TRNCCL_RECORDER_OPS: the flight recorder's ring (0: off)
  std::string traceDir;                         // TRNCCL_TRACE_DIR: where the recorder dumps (empty: nowhere)
  std::string tracePattern;                     // TRNCCL_TRACE: Chrome trace file, %r rank, %p pid (empty: off)
};

// `user` may be NULL (all from the environment). Throws Error(InvalidArgument).
Config resolveConfig(const trncclConfig_t* user);

// TRNCCL_TIMEOUT_MS, or the default: also bounds a rendezvous root's life.
std::chrono::milliseconds timeoutFromEnvironment();

}  // namespace trnccl::core
