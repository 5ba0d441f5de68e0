// trnccl-top's screen: the job view (job_view.h) as a table per communicator.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace trnccl::top {

std::string textView(const nlohmann::json& view);

}  // namespace trnccl::top
