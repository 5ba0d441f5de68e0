// What trnccl-top makes of a job's status (core/status_query.h): per
// communicator, each rank's last started and last finished collective, the
// oldest collective some rank has started and some has not finished, the
// ranks missing from it, the bytes each transport and rail moved summed
// over the ranks, and the errors. `--json` prints it as is; the text view
// renders it.
#pragma once

#include <nlohmann/json.hpp>

namespace trnccl::top {

// {"root", "nranks", "notAnswering": [{"rank", "address", "reason"}],
//  "comms": [{"comm", "name", "nranks", "ranks": [...], "notHeardFrom": [...],
//             "oldestOpen": {"seq", "collective", "missing", "missingHosts", "inIt"} | null,
//             "transports": [...], "errors": [...]}]}
nlohmann::json jobView(const nlohmann::json& status);

}  // namespace trnccl::top
