// Every setting the library declares (base/settings.h), collected from its
// sources at build time.
#pragma once

#include <span>

#include "base/settings.h"

namespace trnccl::core {

std::span<const settings::Setting* const> declaredSettings();

// Once per process: a log line (whatever TRNCCL_DEBUG says) for each
// TRNCCL_* variable of the environment that is not a setting but is a typo
// or two from one ("TRNCCL_ALOG is not a trnccl setting; did you mean
// TRNCCL_ALGO?").
void warnMisspelledSettingsOnce();

}  // namespace trnccl::core
