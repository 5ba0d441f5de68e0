#include "device/model.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace trnccl::device {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

// Trainium (trn1, NeuronCore-v2): 32 GiB HBM at 820 GiB/s and 1 TB/s DMA
// (Neuron docs, "Trainium Architecture"); VectorEngine 2.3 FP32 TFLOPS per
// NeuronCore (Neuron docs, "NeuronCore-v2 Architecture").
const DeviceModel& trainium() {
  static const DeviceModel m{"trainium", "NeuronCore-v2", 32 * GiB, 820 * GiB, 1e12, 2.3e12};
  return m;
}

// Trainium2 (trn2, NeuronCore-v3): 96 GiB HBM at 2.9 TB/s, DMA 3.5 TB/s
// (DESIGN.md's hardware table). The NeuronCore-v3 VectorEngine figure is not
// published; NeuronCore-v2's is assumed.
const DeviceModel& trainium2() {
  static const DeviceModel m{"trainium2", "NeuronCore-v3", 96 * GiB, 2.9e12, 3.5e12, 2.3e12};
  return m;
}

// Neuron's Trainium3 architecture page (Dec 2025): 144 GiB of HBM at 4.9 TB/s,
// 4.9 TB/s of DMA. Nothing published gives its vector engine's FP32 rate:
// assumed Trainium2's (both chips list 181-183 FP32 TFLOPS in all).
const DeviceModel& trainium3() {
  static const DeviceModel m{"trainium3", "NeuronCore-v4", 144 * GiB, 4.9e12, 4.9e12, 2.3e12};
  return m;
}

const DeviceModel& deviceModel(std::string_view generation) {
  if (generation == "trainium") return trainium();
  if (generation == "trainium2") return trainium2();
  if (generation == "trainium3") return trainium3();
  throwInvalidArgument("generation",
                       "'" + std::string(generation) + "' is not a known device (trainium, trainium2, trainium3)");
}

double dmaCopySeconds(const DeviceModel& m, size_t bytes) {
  const double b = static_cast<double>(bytes);
  return std::max(b / m.dmaBytesPerSec, 2 * b / m.hbmBytesPerSec);
}

double vectorReduceSeconds(const DeviceModel& m, size_t count, int nsrcs, size_t elemBytes) {
  const double n = static_cast<double>(count);
  const double traffic = n * static_cast<double>(elemBytes) * (nsrcs + 1);
  const double ops = n * std::max(nsrcs - 1, 1);
  return std::max(traffic / m.hbmBytesPerSec, ops / m.vectorFlopsFp32);
}

double reduceBytesPerSec(const DeviceModel& m) {
  constexpr size_t kElements = 1 << 20;
  return kElements * 4.0 / vectorReduceSeconds(m, kElements, 2, 4);
}

}  // namespace trnccl::device
