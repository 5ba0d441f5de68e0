#include "core/call_checker.h"

#include <iterator>
#include <vector>

#include "algorithms/mesh.h"
#include "base/error.h"
#include "core/call_check.h"

namespace trnccl::core {

void CallChecker::check(const algo::CollectiveArgs& args, uint64_t sequence, uint32_t choice) {
  if (!swap_) {
    algo::CollectiveArgs swap;
    swap.collective = algo::Collective::AllGather;
    swap.rank = rank_;
    swap.nranks = nranks_;
    swap.count = sizeof(CallFingerprint);
    swap.type = trncclUint8;
    swap.layout = args.layout;
    swap_ = algo::Mesh().build(swap);
  }
  CallFingerprint mine = fingerprintOf(args, sequence, choice);
  std::vector<CallFingerprint> all(static_cast<size_t>(nranks_));
  void* const buffers[] = {nullptr, &mine, all.data(), nullptr};
  runtime::Call call;
  call.buffers = buffers;
  call.bufferCount = std::size(buffers);
  call.tagBase = runtime::checkTagBase(sequence);
  call.what = "TRNCCL_CHECK's call comparison";
  call.sequence = sequence;
  executor_.run(*swap_, call);
  const std::string disagreement = describeDisagreement(all);
  if (!disagreement.empty()) throwError(trncclInvalidUsage, disagreement);
}

}  // namespace trnccl::core
