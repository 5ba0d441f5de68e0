// A trncclUniqueId as hex text, to hand it to worker processes in argv.
#pragma once

#include <string>

#include "trnccl/trnccl.h"

namespace trnccl::test {

std::string uniqueIdToHex(const trncclUniqueId& id);
// False if `hex` is not exactly 2 * sizeof(trncclUniqueId) hex digits.
bool uniqueIdFromHex(const std::string& hex, trncclUniqueId* id);

}  // namespace trnccl::test
