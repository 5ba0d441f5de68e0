// Files shipped beside the topology files (topologies/runtimes/ERA.json),
// found where the topology files are (loadTopology's search).
#pragma once

#include <string>

namespace trnccl::topo {

// The path of `relative` under the first topology directory that has it;
// empty when none does.
std::string shippedDataPath(const std::string& relative);

// A shipped file's text; throws Error(InvalidArgument) naming what cannot be read.
std::string readDataFile(const std::string& path);

}  // namespace trnccl::topo
