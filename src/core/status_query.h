// trnccl-top's side of a status query: connects to the rendezvous root of a
// running job (the address in its unique id), presents the job's secret (and
// its encryption, if on: TRNCCL_ENCRYPTION_KEY_FILE), and returns what the
// root gathered from every rank (core/status_service.h).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>

#include "trnccl/trnccl.h"

namespace trnccl::core {

// Throws trnccl::Error: InvalidArgument for an id that is no unique id;
// RemoteError when nothing listens at its root (refused: at once), Timeout
// when its host does not answer within `connectTimeout`, both saying
// "cannot reach"; InvalidUsage when the root refuses (a wrong secret);
// RemoteError or Timeout when it does not answer. The root waits up to
// `rankWait` for the ranks; one that does not answer by then is marked so.
nlohmann::json queryJobStatus(const trncclUniqueId& id, std::chrono::milliseconds connectTimeout,
                              std::chrono::milliseconds rankWait);

}  // namespace trnccl::core
