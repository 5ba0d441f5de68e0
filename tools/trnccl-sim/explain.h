// --explain SIZE: one size's predicted time split into the launch, per-step
// latency (routes and the issuing of each message), bandwidth and reduction,
// with the figures behind each, so a what-if study sees which figure it is
// really changing.
#pragma once

#include <string>

#include "options.h"

namespace trnccl::simtool {

std::string explain(const Options& options);

}  // namespace trnccl::simtool
