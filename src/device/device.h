// A simulated Trainium device as one rank sees it: a DMA engine (copies,
// copies with type conversion) and a vector engine (reductions). Each engine
// executes for real on the host, through the kernel library, and accounts the
// time the modelled hardware would have taken, so a collective can report
// modelled device time beside wall time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "device/kernels/kernels.h"
#include "device/model.h"

namespace trnccl::device {

struct EngineStats {
  uint64_t calls = 0;
  uint64_t bytes = 0;          // bytes read and written
  double modelledSeconds = 0;  // busy time on the modelled hardware
};

class Engine {
 public:
  EngineStats stats() const;
  void reset();

 protected:
  void account(uint64_t bytes, double seconds);

 private:
  std::atomic<uint64_t> calls_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> picoseconds_{0};
};

class DmaEngine : public Engine {
 public:
  explicit DmaEngine(const DeviceModel& model) : model_(model) {}
  void copy(void* dst, const void* src, size_t bytes);
  void convert(const kernels::ConvertArgs& args);

 private:
  const DeviceModel& model_;
};

class VectorEngine : public Engine {
 public:
  explicit VectorEngine(const DeviceModel& model) : model_(model) {}
  void reduce(const kernels::ReduceArgs& args);

 private:
  const DeviceModel& model_;
};

class Device {
 public:
  explicit Device(const DeviceModel& model) : model_(model), dma_(model), vector_(model) {}
  const DeviceModel& model() const { return model_; }
  DmaEngine& dma() { return dma_; }
  VectorEngine& vector() { return vector_; }

 private:
  const DeviceModel& model_;
  DmaEngine dma_;
  VectorEngine vector_;
};

}  // namespace trnccl::device
