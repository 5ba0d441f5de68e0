// Chakra execution traces (the format ASTRA-sim and SimAI replay): a file of
// length-delimited protobuf messages, the GlobalMetadata first, then one Node
// per operation of one rank.
#pragma once

#include <string>
#include <vector>

#include "et_def.pb.h"

namespace trnccl::simtool::chakra {

struct Trace {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
};

// Throws Error(InvalidArgument) naming the file on one that cannot be read
// or parsed.
Trace readTrace(const std::string& path);
void writeTrace(const std::string& path, const Trace& trace);

// Builders for traces and tests: a compute node of `micros`, a collective of
// `bytes` (nccl-tests' size: the all-reduce buffer, the all-gather output),
// each depending on `deps`.
ChakraProtoMsg::Node computeNode(uint64_t id, const std::string& name, uint64_t micros, std::vector<uint64_t> deps);
ChakraProtoMsg::Node collectiveNode(uint64_t id, const std::string& name, ChakraProtoMsg::CollectiveCommType type,
                                    uint64_t bytes, std::vector<uint64_t> deps);

// Two small traces of one rank's step:
//  - data parallel: forward for a third of `computeMicros`, backward for the
//    rest in `buckets` chunks, each chunk's gradients all-reduced
//    (`bucketBytes`) once it is computed, as DDP's buckets are;
//  - a tensor-parallel transformer layer (Megatron): attention and MLP, each
//    followed by an all-reduce of the activations (`activationBytes`).
Trace dataParallelStep(uint64_t computeMicros, int buckets, uint64_t bucketBytes);
Trace tensorParallelLayer(uint64_t attentionMicros, uint64_t mlpMicros, uint64_t activationBytes);

}  // namespace trnccl::simtool::chakra
