// Per-generation performance model of a Trainium device. The engines account
// modelled time with it, and the simulator uses the very same figures.
#pragma once

#include <cstddef>
#include <string_view>

namespace trnccl::device {

struct DeviceModel {
  const char* generation;  // "trainium", "trainium2", "trainium3"
  const char* core;        // NeuronCore version
  double hbmBytes;         // capacity per chip
  double hbmBytesPerSec;   // HBM bandwidth per chip
  double dmaBytesPerSec;   // DMA bandwidth per chip
  double vectorFlopsFp32;  // VectorEngine FP32 throughput of one NeuronCore
};

const DeviceModel& trainium();
const DeviceModel& trainium2();
const DeviceModel& trainium3();
// By generation name; throws Error(InvalidArgument) naming an unknown one.
const DeviceModel& deviceModel(std::string_view generation);

// Modelled seconds for a DMA copy of `bytes` (read and write HBM).
double dmaCopySeconds(const DeviceModel& m, size_t bytes);
// Modelled seconds for a K-source reduction of `count` elements of `elemBytes`:
// bound by HBM traffic (K reads + 1 write) or by the vector engine (K-1 ops/element).
double vectorReduceSeconds(const DeviceModel& m, size_t count, int nsrcs, size_t elemBytes);
// The vector engine on a 2-input fp32 reduction, in output bytes per second.
double reduceBytesPerSec(const DeviceModel& m);

}  // namespace trnccl::device
