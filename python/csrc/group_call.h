// Several trnccl calls fused into one group, as one operation.
#pragma once

#include "trnccl/trnccl.h"

namespace trnccl_torch {

// Runs `issue` (which makes the calls and returns the first failure) between
// trncclGroupStart and trncclGroupEnd; the first failure wins.
template <class Issue>
trncclResult_t inGroup(Issue&& issue) {
  const trncclResult_t started = trncclGroupStart();
  if (started != trncclSuccess) return started;
  const trncclResult_t issued = issue();
  const trncclResult_t ended = trncclGroupEnd();
  return issued != trncclSuccess ? issued : ended;
}

}  // namespace trnccl_torch
