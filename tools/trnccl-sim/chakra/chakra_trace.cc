#include "chakra_trace.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <fstream>

#include "base/error.h"

namespace trnccl::simtool::chakra {

namespace {

using google::protobuf::util::ParseDelimitedFromZeroCopyStream;
using google::protobuf::util::SerializeDelimitedToOstream;

ChakraProtoMsg::AttributeProto intAttribute(const std::string& name, int64_t value) {
  ChakraProtoMsg::AttributeProto a;
  a.set_name(name);
  a.set_int64_val(value);
  return a;
}

ChakraProtoMsg::Node node(uint64_t id, const std::string& name, ChakraProtoMsg::NodeType type,
                          const std::vector<uint64_t>& deps) {
  ChakraProtoMsg::Node n;
  n.set_id(id);
  n.set_name(name);
  n.set_type(type);
  for (uint64_t dep : deps) n.add_data_deps(dep);
  return n;
}

}  // namespace

Trace readTrace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwInvalidArgument("--chakra", "cannot read '" + path + "'");
  google::protobuf::io::IstreamInputStream stream(&in);
  Trace trace;
  bool clean = false;
  if (!ParseDelimitedFromZeroCopyStream(&trace.metadata, &stream, &clean))
    throwInvalidArgument("--chakra", "'" + path + "' does not start with a Chakra GlobalMetadata message");
  for (;;) {
    ChakraProtoMsg::Node n;
    if (!ParseDelimitedFromZeroCopyStream(&n, &stream, &clean)) {
      if (clean) break;  // the end of the file, between two messages
      throwInvalidArgument("--chakra", "'" + path + "': node " + std::to_string(trace.nodes.size() + 1) +
                                           " is not a Chakra Node message");
    }
    trace.nodes.push_back(std::move(n));
  }
  return trace;
}

void writeTrace(const std::string& path, const Trace& trace) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  bool ok = static_cast<bool>(out) && SerializeDelimitedToOstream(trace.metadata, &out);
  for (const ChakraProtoMsg::Node& n : trace.nodes) ok = ok && SerializeDelimitedToOstream(n, &out);
  if (!ok) throwInvalidArgument("path", "cannot write the Chakra trace '" + path + "'");
}

ChakraProtoMsg::Node computeNode(uint64_t id, const std::string& name, uint64_t micros, std::vector<uint64_t> deps) {
  ChakraProtoMsg::Node n = node(id, name, ChakraProtoMsg::COMP_NODE, deps);
  n.set_duration_micros(micros);
  return n;
}

ChakraProtoMsg::Node collectiveNode(uint64_t id, const std::string& name, ChakraProtoMsg::CollectiveCommType type,
                                    uint64_t bytes, std::vector<uint64_t> deps) {
  ChakraProtoMsg::Node n = node(id, name, ChakraProtoMsg::COMM_COLL_NODE, deps);
  *n.add_attr() = intAttribute("comm_type", type);
  *n.add_attr() = intAttribute("comm_size", static_cast<int64_t>(bytes));
  return n;
}

Trace dataParallelStep(uint64_t computeMicros, int buckets, uint64_t bucketBytes) {
  Trace t;
  t.metadata.set_version("0.0.4");
  const uint64_t forward = computeMicros / 3, chunk = (computeMicros - forward) / static_cast<uint64_t>(buckets);
  t.nodes.push_back(computeNode(1, "forward", forward, {}));
  uint64_t previous = 1;
  for (int b = 0; b < buckets; ++b) {
    const uint64_t backward = 2 + 2 * static_cast<uint64_t>(b);
    t.nodes.push_back(computeNode(backward, "backward bucket " + std::to_string(b), chunk, {previous}));
    t.nodes.push_back(collectiveNode(backward + 1, "all-reduce bucket " + std::to_string(b), ChakraProtoMsg::ALL_REDUCE,
                                     bucketBytes, {backward}));
    previous = backward;
  }
  return t;
}

Trace tensorParallelLayer(uint64_t attentionMicros, uint64_t mlpMicros, uint64_t activationBytes) {
  Trace t;
  t.metadata.set_version("0.0.4");
  t.nodes.push_back(computeNode(1, "attention", attentionMicros, {}));
  t.nodes.push_back(collectiveNode(2, "attention all-reduce", ChakraProtoMsg::ALL_REDUCE, activationBytes, {1}));
  t.nodes.push_back(computeNode(3, "mlp", mlpMicros, {2}));
  t.nodes.push_back(collectiveNode(4, "mlp all-reduce", ChakraProtoMsg::ALL_REDUCE, activationBytes, {3}));
  return t;
}

}  // namespace trnccl::simtool::chakra
