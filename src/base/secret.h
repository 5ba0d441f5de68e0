// A shared secret that admits a connection: the bootstrap's unique id and the
// TCP transport's handshake both carry one, so a stray or hostile client that
// does not know it is refused before anything it sends is trusted.
#pragma once

#include <array>
#include <cstdint>

namespace trnccl {

using Secret = std::array<uint8_t, 16>;

// 128 bits from the kernel's random source. Throws Error(SystemError).
Secret randomSecret();

}  // namespace trnccl
