// Every environment variable trnccl reads. tests/doctor checks this list
// against the names in the sources, so a new variable cannot be forgotten.
#pragma once

#include <string_view>

namespace trnccl::doctor {

struct Variable {
  std::string_view name;
  // Shapes only this rank's diagnostics (logs, traces), so ranks may differ.
  bool perRank = false;
};

inline constexpr Variable kVariables[] = {
    {"TRNCCL_ALGO"},
    {"TRNCCL_CHECK"},
    {"TRNCCL_COMM_ID"},
    {"TRNCCL_DEBUG", true},
    {"TRNCCL_DEBUG_FILE", true},
    {"TRNCCL_EMULATE_LINKS"},
    {"TRNCCL_EMULATE_SCALE"},
    {"TRNCCL_KERNEL_ISA"},
    {"TRNCCL_OFI_CHUNK_BYTES"},
    {"TRNCCL_OFI_FAULTS"},
    {"TRNCCL_OFI_MAX_OUTSTANDING"},
    {"TRNCCL_OFI_PROVIDER"},
    {"TRNCCL_OFI_RAILS"},
    {"TRNCCL_RANK_ORDER"},
    {"TRNCCL_RECORDER_OPS", true},
    {"TRNCCL_RUNTIME_ERA"},
    {"TRNCCL_SEED"},
    {"TRNCCL_SHM_BOARD"},
    {"TRNCCL_SHM_COPY"},
    {"TRNCCL_SHM_FIFO_BYTES"},
    {"TRNCCL_SLICE_BYTES"},
    {"TRNCCL_SOCKET_IFNAME"},
    {"TRNCCL_STOCHASTIC_ROUNDING"},
    {"TRNCCL_TCP_SOCKETS_PER_PEER"},
    {"TRNCCL_TIMEOUT_MS"},
    {"TRNCCL_TOPO"},
    {"TRNCCL_TOPO_DIR", true},
    {"TRNCCL_TRACE", true},
    {"TRNCCL_TRACE_DIR", true},
    {"TRNCCL_TRANSPORT"},
    {"TRNCCL_WINDOW"},
};

}  // namespace trnccl::doctor
