// How long a connection to one of trnccl's listeners (the rendezvous root, a
// rank's bootstrap listener, a tcp transport listener) may take to present
// its whole greeting before it is dropped. A genuine peer sends its greeting
// as soon as it has connected; a silent or trickling outsider would
// otherwise keep a descriptor for the job's life, and a crowd of them every
// descriptor the process may open.
#pragma once

#include <chrono>

namespace trnccl::net {

// TRNCCL_GREETING_TIMEOUT_MS, read at each call (a listener reads it as it
// accepts a connection).
std::chrono::milliseconds greetingLimit();

}  // namespace trnccl::net
