#include "transports/shm/config.h"

#include <string>

#include "base/settings.h"

namespace trnccl::transport::shm {
namespace {

TRNCCL_SETTING(kCopy, TRNCCL_SHM_COPY, settings::choice("auto, cma, fifo", "auto"),
               "shared-memory copy path: single-copy cross-memory attach, or the bounded two-copy FIFO; auto: "
               "messages over 64 KiB in one copy between threads, and between processes when the host's ranks "
               "outnumber its cores");
// The upper bound only keeps size arithmetic far from overflow; anything
// near it fails at setup for want of /dev/shm space.
TRNCCL_SETTING(kFifoBytes, TRNCCL_SHM_FIFO_BYTES, settings::integer(kDefaultFifoBytes, 1, int64_t{1} << 50, "bytes"),
               "shared memory per peer pair for eager messages and streaming (`/dev/shm`)");
TRNCCL_SETTING(kBoard, TRNCCL_SHM_BOARD, settings::boolean(true),
               "the block board: a mesh all-reduce of up to 2 KiB among ranks that all share one host runs one-shot, "
               "each rank's input published once in its own segment and read in place by every peer, instead of a "
               "FIFO message per peer (every rank must agree)");

}  // namespace

const char* copyPathName(CopyPath path) {
  switch (path) {
    case CopyPath::Auto:
      return "auto";
    case CopyPath::Cma:
      return "cma";
    case CopyPath::Fifo:
      return "fifo";
  }
  return "?";
}

bool pullsFromOtherProcesses(CopyPath path, bool oversubscribed) {
  return path == CopyPath::Cma || (path == CopyPath::Auto && oversubscribed);
}

Config readConfig() {
  Config config;
  const std::string copy = settings::readChoice(kCopy);
  config.copy = copy == "cma" ? CopyPath::Cma : copy == "fifo" ? CopyPath::Fifo : CopyPath::Auto;
  const auto bytes = static_cast<uint64_t>(settings::readInt(kFifoBytes));
  const uint64_t slots = (bytes + kSlotBytes - 1) / kSlotBytes;
  config.fifoBytes = (slots < 2 ? 2 : slots) * kSlotBytes;
  config.board = settings::readBool(kBoard);
  return config;
}

}  // namespace trnccl::transport::shm
