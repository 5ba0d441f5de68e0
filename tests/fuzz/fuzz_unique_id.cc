// trncclUniqueId as a rank receives it (from MPI, a file, a launcher): 128
// bytes anyone could have written. decodeUniqueId must refuse what
// trncclGetUniqueId did not make, and what it accepts must mean every byte.
#include <cstdint>
#include <cstring>

#include "base/error.h"
#include "core/bootstrap.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trncclUniqueId id{};
  std::memcpy(&id, data, std::min(size, sizeof id));
  try {
    const trnccl::core::RendezvousInfo info = trnccl::core::decodeUniqueId(id);
    // Nothing in an accepted id is ignored: it encodes back to the same bytes.
    const trncclUniqueId again = trnccl::core::encodeUniqueId(info);
    FUZZ_CHECK(std::memcmp(&again, &id, sizeof id) == 0);
  } catch (const trnccl::Error& e) {
    FUZZ_CHECK(e.code() == trncclInvalidArgument);
  }
  return 0;
}
