// TRNCCL_CHECK=1: before each collective the ranks swap a fingerprint of the
// call (what it is, how much, of what, with which op and root, and its
// sequence number), so ranks that disagree fail at once on every rank, with a
// message naming the ranks and the fields that differ, instead of hanging or
// computing garbage. The swap is one mesh all-gather of a few bytes over the
// communicator's own transports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"

namespace trnccl::core {

struct CallFingerprint {
  uint32_t magic;
  uint8_t collective;
  uint8_t type;
  uint8_t op;  // 0xff: the collective reduces nothing
  uint8_t rooted;
  int32_t root;     // -1 when not rooted
  uint32_t choice;  // a hash of the call's per-call configuration (0: none)
  uint64_t count;
  uint64_t sequence;
};

inline constexpr uint32_t kFingerprintMagic = 0x4b434843;  // "CHCK"

CallFingerprint fingerprintOf(const algo::CollectiveArgs& args, uint64_t sequence, uint32_t choice = 0);
// Whether the collective has a root (broadcast, reduce, gather, scatter).
bool rooted(algo::Collective c);

// Empty when every rank's fingerprint is the same; otherwise one line naming
// the groups of ranks and what each called, and the fields that differ, the
// same text on every rank (it depends only on the fingerprints).
std::string describeDisagreement(const std::vector<CallFingerprint>& byRank);

}  // namespace trnccl::core
