// trnccl-doctor --transports: the transports this build has, as the factory
// lists them, with what each declares (for users, and for benchmarks such as
// bench/transports_table.py, which iterate it rather than name transports).
#pragma once

#include <nlohmann/json.hpp>

namespace trnccl::doctor {

// [{"name", "reach": "instance"|"network", "auto_rank", "path_setting"
// (null: none), "paths": [{"value", "crosses_hosts"}], "rails",
// "registration"}], in the factory's order.
nlohmann::json transportsJson();

}  // namespace trnccl::doctor
