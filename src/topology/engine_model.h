// What a collective costs on the chips beyond the bytes on the links: the
// Neuron runtime's launch of each collective, and the chips' collective DMA
// engines that read, write and forward every message (topology files'
// "collectiveEngine"). With the links, these few physical figures are the
// machine model the tuner, the simulator and the link emulation share; each
// figure carries its source (a document, or the calibration it was fitted to).
#pragma once

#include <array>
#include <string>

namespace trnccl::topo {

struct EngineModel {
  // Per collective call: launch and the final synchronisation.
  double launchSec = 0;
  // Per chip: the bytes its DMA engines move for messages (reading them,
  // writing them at their destination), its own NeuronCores' and those it
  // forwards. 0: not modelled.
  double dmaBytesPerSec = 0;
  // Per message a chip's DMA engines issue (descriptors, the semaphore
  // write): its messages are issued one after another, while the bytes of
  // those issued before move.
  double dmaMessageSec = 0;
  // Per chip: the output bytes per second of a 2-input reduction of a
  // collective. 0: the device model's vector engine.
  double reduceBytesPerSec = 0;
  // Per figure above, in kEngineFigures' order: where it comes from.
  std::array<std::string, 4> sources;
  // Per message crossing EFA: the runtime's network proxy posting it, on
  // top of the NIC's latency (a runtime figure, runtime_era.h).
  double proxySec = 0;
  std::string proxySource;
  // The slices the runtime cuts a received message into, reducing each as
  // it arrives while the next moves (a runtime figure; 1: reduced whole).
  double reduceSlices = 1;
  std::string reduceSlicesSource;
  // The Neuron runtime era launchSec, dmaMessageSec and proxySec come from
  // ("2026"); empty: the topology file's own figures.
  std::string runtime;
};

struct EngineFigure {
  const char* key;   // its name in the file
  const char* knob;  // its name for trnccl-sim --set (in `unit`)
  double EngineModel::*member;
  const char* unit;  // "us", "GB/s": how trnccl-sim takes and prints it
  double perUnit;    // the figure in that unit is value / perUnit
};

inline constexpr std::array<EngineFigure, 4> kEngineFigures{{
    {"launchSec", "launch", &EngineModel::launchSec, "us", 1e-6},
    {"dmaBytesPerSec", "dma.bandwidth", &EngineModel::dmaBytesPerSec, "GB/s", 1e9},
    {"dmaMessageSec", "dma.message", &EngineModel::dmaMessageSec, "us", 1e-6},
    {"reduceBytesPerSec", "reduce.bandwidth", &EngineModel::reduceBytesPerSec, "GB/s", 1e9},
}};

}  // namespace trnccl::topo
