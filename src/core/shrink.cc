#include "core/shrink.h"

#include <algorithm>
#include <string>

#include "base/error.h"
#include "core/bootstrap.h"

namespace trnccl::core {
namespace {

constexpr int kProposalTag = 0x5b18;
constexpr int kVerdictTag = 0x5b19;

struct Verdict {
  trncclResult_t result = trncclSuccess;
  int culprit = -1;  // the survivor that disagreed or did not answer
  trncclUniqueId id{};
};

std::string describeVerdict(const Verdict& v) {
  if (v.result == trncclInvalidUsage)
    return "rank " + std::to_string(v.culprit) + " excludes other ranks than the first survivor does";
  return "rank " + std::to_string(v.culprit) + " did not answer (dead? exclude it too)";
}

}  // namespace

ShrinkPlan agreeOnShrink(Communicator& parent, const std::vector<int>& excluded) {
  const int n = parent.size(), me = parent.rank();
  std::vector<uint8_t> mask(static_cast<size_t>(n), 0);
  for (int r : excluded) mask[static_cast<size_t>(r)] = 1;
  ShrinkPlan plan;
  for (int r = 0; r < n; ++r)
    if (!mask[static_cast<size_t>(r)]) plan.members.push_back(r);
  plan.newRank = static_cast<int>(std::find(plan.members.begin(), plan.members.end(), me) - plan.members.begin());
  const int coordinator = plan.members.front();
  Bootstrap& bootstrap = parent.bootstrap();

  Verdict verdict;
  if (me == coordinator) {
    for (int m : plan.members) {
      if (m == me || verdict.result == trncclRemoteError) continue;  // one silent survivor decides it
      std::vector<uint8_t> theirs(mask.size());
      try {
        bootstrap.recv(m, kProposalTag, theirs.data(), theirs.size());
      } catch (const Error&) {
        if (verdict.result == trncclSuccess) verdict = Verdict{trncclRemoteError, m, {}};
        continue;
      }
      if (theirs != mask && verdict.result == trncclSuccess) verdict = Verdict{trncclInvalidUsage, m, {}};
    }
    if (verdict.result == trncclSuccess) verdict.id = createUniqueId(parent.config().timeout);
    // Every survivor but a silent one hears the verdict (those not asked,
    // after a silent one, are waiting for it too).
    const int silent = verdict.result == trncclRemoteError ? verdict.culprit : -1;
    for (int m : plan.members)
      if (m != me && m != silent) {
        try {
          bootstrap.send(m, kVerdictTag, &verdict, sizeof(verdict));
        } catch (const Error&) {  // it died since: it learns nothing, the others still do
        }
      }
  } else {
    try {
      bootstrap.send(coordinator, kProposalTag, mask.data(), mask.size());
      // The coordinator may wait a whole timeout for a silent survivor first.
      bootstrap.recv(coordinator, kVerdictTag, &verdict, sizeof(verdict), 2 * bootstrap.timeout());
    } catch (const Error& e) {
      throwError(trncclRemoteError, "rank " + std::to_string(coordinator) +
                                        ", the first survivor, which coordinates the shrink, did not answer (" +
                                        e.what() + "); exclude it too");
    }
  }
  if (verdict.result != trncclSuccess) throwError(verdict.result, describeVerdict(verdict));
  plan.id = verdict.id;
  return plan;
}

}  // namespace trnccl::core
