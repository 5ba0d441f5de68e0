#include "merge.h"

#include <fstream>
#include <stdexcept>

namespace trnccl::trace {

nlohmann::json mergeTraces(const std::vector<std::string>& files) {
  nlohmann::json events = nlohmann::json::array();
  for (const std::string& file : files) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error(file + ": cannot be read");
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(file + ": " + e.what());
    }
    const nlohmann::json* list = &j;
    if (j.is_object() && j.contains("traceEvents")) list = &j["traceEvents"];
    if (!list->is_array()) throw std::runtime_error(file + ": not a trace-event file (no traceEvents array)");
    for (const nlohmann::json& e : *list) events.push_back(e);
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

}  // namespace trnccl::trace
