#include "transports/shm/config.h"

#include <string>

#include "base/env.h"

namespace trnccl::transport::shm {

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

Config readConfig() {
  Config config;
  const std::string copy = env::getChoice("TRNCCL_SHM_COPY", "auto", {"auto", "cma", "fifo"});
  config.copy = copy == "cma" ? CopyPath::Cma : copy == "fifo" ? CopyPath::Fifo : CopyPath::Auto;
  // The upper bound only keeps size arithmetic far from overflow; anything
  // near it fails at setup for want of /dev/shm space.
  const auto bytes =
      static_cast<uint64_t>(env::getInt("TRNCCL_SHM_FIFO_BYTES", kDefaultFifoBytes, 1, int64_t{1} << 50));
  const uint64_t slots = (bytes + kSlotBytes - 1) / kSlotBytes;
  config.fifoBytes = (slots < 2 ? 2 : slots) * kSlotBytes;
  config.board = env::getBool("TRNCCL_SHM_BOARD", true);
  return config;
}

}  // namespace trnccl::transport::shm
