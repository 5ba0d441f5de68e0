// The doctor's checks. Each returns one verdict for this rank; the job-wide
// ones judge what every rank reported.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "tools/trnccl-doctor/check.h"
#include "tools/trnccl-doctor/identity.h"

namespace trnccl::doctor {

// Every TRNCCL_* variable set (`variables`) is a declared setting
// (core/declared_settings.h), and they parse (the communicator's, and each
// transport's).
CheckResult checkSettings(const std::map<std::string, std::string>& variables);

// What /dev/shm has free; nullopt if statvfs fails. Every rank measures it
// before any rank makes its probe segment, so ranks of a host agree.
std::optional<uint64_t> freeBytesInDevShm();

// /dev/shm takes a segment, and `freeBytes` leave room for the segments of
// the `localRanks` ranks of a `nranks`-rank job that share this host.
CheckResult checkSharedMemory(std::optional<uint64_t> freeBytes, int localRanks, int nranks);

// Cross-memory attach: Yama's ptrace scope (read from `scopeFile`) and a
// real process_vm_readv from a child of this process.
CheckResult checkCrossMemoryAttach(const std::string& scopeFile);

// The libfabric providers offered and the one the ofi transport would use.
CheckResult checkOfi(const core::Config& config);

// TRNCCL_TOPO (if set) loads and places `nranks` ranks (TRNCCL_RANK_ORDER).
CheckResult checkTopology(const core::Config& config, int nranks);

// Every rank runs the same trnccl version with the same TRNCCL_* settings
// (but for those that shape only a rank's own diagnostics: Scope::Rank).
CheckResult checkConsistency(const std::vector<Identity>& ranks);

}  // namespace trnccl::doctor
