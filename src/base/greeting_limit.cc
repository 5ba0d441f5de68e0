#include "base/greeting_limit.h"

#include "base/settings.h"

namespace trnccl::net {

namespace {
TRNCCL_SETTING(kGreetingTimeoutMs, TRNCCL_GREETING_TIMEOUT_MS, settings::integer(5000, 100, 3600000, "ms"),
               "how long a connection to a bootstrap or tcp transport port may take to send its greeting before "
               "it is dropped and logged (a silent or trickling outsider)");
}  // namespace

std::chrono::milliseconds greetingLimit() { return std::chrono::milliseconds(settings::readInt(kGreetingTimeoutMs)); }

}  // namespace trnccl::net
