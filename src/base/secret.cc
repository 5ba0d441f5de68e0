#include "base/secret.h"

#include <sys/random.h>

#include <cerrno>

#include "base/error.h"

namespace trnccl {

Secret randomSecret() {
  Secret secret{};
  ssize_t got;
  do {
    got = getrandom(secret.data(), secret.size(), 0);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(secret.size())) throwSystemError("getrandom", errno);
  return secret;
}

}  // namespace trnccl
