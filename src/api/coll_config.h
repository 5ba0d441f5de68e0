// trncclCollConfig_t, the per-call configuration of the *Config collectives
// (NCCL 2.31's ncclCollConfig_t): its checks, each naming the bad field, and
// the choice it makes for one call.
#pragma once

#include "api/argument_checks.h"

namespace trnccl::api {

// What can be checked before the call's arguments: the initializer's marks
// and the fields' own values. NULL (the plain call) passes.
void checkCollConfig(const trncclCollConfig_t* config);

// Fills call.choice: the config's choices (or the communicator's where a
// field is unset); refuses an algorithm that cannot run this call and a
// chunk size this call cannot use.
void applyCollConfig(const Checked& c, core::CollectiveCall& call, const trncclCollConfig_t* config);

}  // namespace trnccl::api
