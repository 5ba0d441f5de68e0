// What a measured file's '#' header says of the machine and the software it
// ran on (MeasuredRun's topology, instances, onePerInstance, unit and era),
// read from the words people write there: "two trn1.32xlarge over EFA, one
// rank on each instance", "busbw here is decimal GB/s", "a 2025 Neuron runtime".
#pragma once

#include <string>

#include "measured_run.h"

namespace trnccl::simtool {

// `header`: the file's comment lines; `folder`: the name of the folder it
// lies in ("trn1-2025"), read for a generation and a year too.
void describeFromHeader(const std::string& header, const std::string& folder, MeasuredRun& run);

}  // namespace trnccl::simtool
