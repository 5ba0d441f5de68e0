// A communicator's status as trnccl-top shows it: its last started and last
// finished operation (from the flight recorder, read without blocking its
// writer), its state and error, and what each transport's rails moved.
#include "core/communicator.h"
#include "runtime/recorder_dump.h"

namespace trnccl::core {
namespace {

bool ended(runtime::OpState state) { return state == runtime::OpState::Done || state == runtime::OpState::Failed; }

nlohmann::json transportJson(const transport::Transport& transport) {
  nlohmann::json rails = nlohmann::json::array();
  uint64_t sent = 0, received = 0;
  const std::vector<transport::RailStatus> status = transport.railStatus();
  for (const transport::RailStatus& rail : status) {
    rails.push_back({{"name", rail.name},
                     {"up", rail.up},
                     {"bytesSent", rail.bytesSent},
                     {"bytesReceived", rail.bytesReceived},
                     {"failovers", rail.failovers}});
    sent += rail.bytesSent;
    received += rail.bytesReceived;
  }
  // A transport that keeps no figures says so: null, not 0.
  const auto total = [&](uint64_t bytes) { return status.empty() ? nlohmann::json(nullptr) : nlohmann::json(bytes); };
  return {{"name", transport.description()},
          {"bytesSent", total(sent)},
          {"bytesReceived", total(received)},
          {"rails", std::move(rails)}};
}

}  // namespace

nlohmann::json Communicator::describeStatus() {
  nlohmann::json j{{"comm", diagnostics_->commId()}, {"name", config_.name}, {"rank", rank_}, {"nranks", nranks_}};
  j["state"] = health_.aborted()                       ? "aborted"
               : health_.revoked()                     ? "revoked"
               : health_.asyncError() != trncclSuccess ? "failed"
                                                       : "ok";
  j["error"] = health_.asyncError() == trncclSuccess ? nlohmann::json(nullptr) : nlohmann::json(health_.asyncMessage());
  j["lastStarted"] = nullptr;
  j["lastFinished"] = nullptr;
  int failedOps = 0;  // in the recorder's window
  const runtime::FlightRecorder* recorder = diagnostics_->recorder();
  j["recorder"] = recorder != nullptr;
  if (recorder) {
    const std::vector<runtime::OpSnapshot> ops = recorder->snapshot();
    const runtime::TickClock::Scale scale = recorder->clock().scale();
    if (!ops.empty()) j["lastStarted"] = runtime::opJson(ops.back(), scale);
    for (auto op = ops.rbegin(); op != ops.rend(); ++op) {
      if (!ended(op->state)) continue;
      j["lastFinished"] = runtime::opJson(*op, scale);
      break;
    }
    for (const runtime::OpSnapshot& op : ops) failedOps += op.state == runtime::OpState::Failed;
  }
  j["failedOps"] = failedOps;
  j["transports"] = nlohmann::json::array();
  // A failing call closes the transports under this lock (leave()): it is
  // never held on a collective's path.
  std::lock_guard<std::mutex> lock(leaveMutex_);
  for (const transport::Transport* transport : transports_->all()) j["transports"].push_back(transportJson(*transport));
  return j;
}

}  // namespace trnccl::core
