// What a communicator runs: the calls an API entry point issues, gathered
// into the work of one turn.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/p2p.h"

namespace trnccl::core {

// A PreMulSum's scalar (trncclRedOpCreatePreMulSum): its value, copied when
// the call was issued, or where to read it when the collective runs.
struct PreMulScalar {
  const void* pointer = nullptr;  // trncclScalarDevice; null: `value` holds it
  std::array<std::byte, 8> value{};
  const void* address() const { return pointer != nullptr ? pointer : value.data(); }
};

// What one call asks for beyond the communicator's choices
// (trncclCollConfig_t), resolved and checked when the call is issued.
struct CallChoice {
  const algo::Algorithm* algorithm = nullptr;  // the communicator's tuner's; null: the tuner picks
  size_t chunkElements = 0;                    // the most elements a step carries; 0: the executor's bound
  bool deterministic = false;                  // reductions in rank order (algorithms/deterministic.h)
  auto operator<=>(const CallChoice&) const = default;
};

struct CollectiveCall {
  algo::CollectiveArgs args;  // a PreMulSum runs as args.op = trncclSum with preMul set
  const void* send = nullptr;
  void* recv = nullptr;
  uint64_t sequence = 0;
  std::optional<PreMulScalar> preMul;
  CallChoice choice;
};

struct P2PCall {
  algo::P2POp op;
  void* buffer = nullptr;
};

// What one turn of a communicator runs: collectives in call order, then the
// fused point-to-point operations of a group.
struct Work {
  std::vector<CollectiveCall> collectives;
  std::vector<P2PCall> p2p;
};

// What the tuner runs for a call, and its predicted time as this run would
// measure it.
struct AlgorithmInfo {
  std::string name;
  double predictedSeconds = 0;
};

}  // namespace trnccl::core
