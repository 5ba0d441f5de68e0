// `trnccl-trace merge`: per-rank TRNCCL_TRACE files into one trace-event
// file (the ranks' clocks are the host's monotonic clock, so they line up).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace trnccl::trace {

// Each input is a trace-event object ({"traceEvents": [...]}) or a bare
// array of events; throws std::runtime_error naming a file that is neither.
nlohmann::json mergeTraces(const std::vector<std::string>& files);

}  // namespace trnccl::trace
