#include "core/call_check.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "base/datatype.h"
#include "base/rank_list.h"

namespace trnccl::core {

bool rooted(algo::Collective c) {
  return c == algo::Collective::Broadcast || c == algo::Collective::Reduce || c == algo::Collective::Gather ||
         c == algo::Collective::Scatter;
}

namespace {

std::string describe(const CallFingerprint& f) {
  if (f.magic != kFingerprintMagic) return "something that is not a trnccl call fingerprint";
  const auto collective = static_cast<algo::Collective>(f.collective);
  std::string text = std::string(algo::collectiveName(collective)) + " #" + std::to_string(f.sequence) + " of " +
                     std::to_string(f.count) + " x " + typeName(static_cast<trncclDataType_t>(f.type));
  if (f.op != 0xff) text += std::string(" ") + opName(static_cast<trncclRedOp_t>(f.op));
  if (f.rooted) text += " root " + std::to_string(f.root);
  return text;
}

std::string differingFields(const CallFingerprint& a, const CallFingerprint& b) {
  if (a.magic != b.magic) return "everything";
  std::string fields;
  const auto add = [&](bool differs, const char* name) {
    if (differs) fields += (fields.empty() ? "" : ", ") + std::string(name);
  };
  add(a.collective != b.collective, "collective");
  add(a.sequence != b.sequence, "sequence number");
  add(a.count != b.count, "count");
  add(a.type != b.type, "datatype");
  add(a.op != b.op, "op");
  add(a.root != b.root, "root");
  add(a.choice != b.choice, "per-call configuration (algorithm, chunkSize or deterministic)");
  return fields.empty() ? "everything" : fields;
}

}  // namespace

CallFingerprint fingerprintOf(const algo::CollectiveArgs& args, uint64_t sequence, uint32_t choice) {
  CallFingerprint f;
  std::memset(&f, 0, sizeof f);  // no stray padding bytes: fingerprints compare as bytes
  f.magic = kFingerprintMagic;
  f.collective = static_cast<uint8_t>(args.collective);
  f.type = static_cast<uint8_t>(args.type);
  f.op = algo::reduces(args.collective) ? static_cast<uint8_t>(args.op) : 0xff;
  f.rooted = rooted(args.collective) ? 1 : 0;
  f.root = f.rooted ? args.root : -1;
  f.count = algo::agreedCount(args);  // all-to-all-v's and permute's counts are each rank's own
  f.sequence = sequence;
  f.choice = choice;
  return f;
}

std::string describeDisagreement(const std::vector<CallFingerprint>& byRank) {
  // Ranks grouped by identical fingerprints, groups in order of their lowest rank.
  std::vector<std::pair<CallFingerprint, std::vector<int>>> groups;
  for (size_t r = 0; r < byRank.size(); ++r) {
    auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return std::memcmp(&g.first, &byRank[r], sizeof(CallFingerprint)) == 0;
    });
    if (same == groups.end()) groups.push_back({byRank[r], {}}), same = groups.end() - 1;
    same->second.push_back(static_cast<int>(r));
  }
  if (groups.size() <= 1) return "";
  std::string text = "TRNCCL_CHECK: the ranks disagree on this call:";
  for (size_t g = 0; g < groups.size(); ++g)
    text += std::string(g == 0 ? " " : "; ") + describeRanks(groups[g].second) + " called " + describe(groups[g].first);
  text += " (differing: " + differingFields(groups[0].first, groups[1].first) + ")";
  return text;
}

}  // namespace trnccl::core
