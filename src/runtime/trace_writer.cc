#include "runtime/trace_writer.h"

#include <unistd.h>

#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "base/error.h"
#include "base/log.h"

namespace trnccl::runtime {
namespace {

using nlohmann::json;

// Chrome's tracks ("threads") within a rank: tid 0 the collectives, then
// one per step lane, then one per transfer slot and direction, so the slices
// of one track never overlap.
int64_t trackOf(const TraceEvent& e) {
  switch (e.kind) {
    case TraceKind::Collective:
      return 0;
    case TraceKind::Step:
      return 1 + e.channel * 2 + e.lane;
    case TraceKind::Send:
    case TraceKind::Recv:
      return 1000 + ((e.channel * 2 + e.lane) * 256 + e.slot) * 2 + (e.kind == TraceKind::Send ? 1 : 0);
  }
  return 0;
}

std::string trackName(const TraceEvent& e) {
  const std::string channel = "channel " + std::to_string(e.channel);
  switch (e.kind) {
    case TraceKind::Collective:
      return "collectives";
    case TraceKind::Step:
      return channel + " steps (lane " + std::to_string(e.lane) + ")";
    case TraceKind::Send:
    case TraceKind::Recv:
      return channel + (e.kind == TraceKind::Send ? " sends" : " receives") + " (lane " + std::to_string(e.lane) +
             ", slot " + std::to_string(e.slot) + ")";
  }
  return "";
}

json eventJson(const TraceEvent& e, int64_t pid, const TickClock::Scale& scale) {
  const int64_t begin = scale.toNs(e.begin), end = scale.toNs(e.end);
  json j = {{"ph", "X"},
            {"pid", pid},
            {"tid", trackOf(e)},
            {"ts", static_cast<double>(begin) / 1000.0},
            {"dur", static_cast<double>(std::max<int64_t>(end - begin, 0)) / 1000.0}};
  switch (e.kind) {
    case TraceKind::Collective:
      j["cat"] = "collective";
      j["name"] = std::string(e.name) + (e.index == ~uint64_t(0) ? "" : " #" + std::to_string(e.index));
      j["args"] = {{"count", e.amount}, {"algorithm", e.detail}, {"failed", e.failed}};
      break;
    case TraceKind::Step:
      j["cat"] = "step";
      j["name"] = "step " + std::to_string(e.index);
      j["args"] = {{"elements", e.amount}, {"recvFrom", e.peer}, {"sendTo", e.peer2}};
      break;
    case TraceKind::Send:
    case TraceKind::Recv:
      j["cat"] = "transfer";
      j["name"] = (e.kind == TraceKind::Send ? "send to " : "recv from ") + std::to_string(e.peer);
      j["args"] = {{"bytes", e.amount}, {"slice", e.index}};
      break;
  }
  return j;
}

json metadata(const char* what, int64_t pid, int64_t tid, const std::string& name) {
  json j = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid >= 0) j["tid"] = tid;
  return j;
}

// Every communicator's events per path, rewritten as one file each time a
// communicator ends.
struct TraceFiles {
  std::mutex mutex;
  std::map<std::string, json> events;

  void append(const std::string& path, json added) {
    std::lock_guard<std::mutex> lock(mutex);
    json& all = events[path];
    if (all.is_null()) all = json::array();
    for (json& e : added) all.push_back(std::move(e));
    std::ofstream out(path);
    out << json{{"traceEvents", all}, {"displayTimeUnit", "ns"}}.dump() << "\n";
    if (!out) TRNCCL_WARN("TRNCCL_TRACE: cannot write %s", path.c_str());
  }
};

TraceFiles& traceFiles() {
  static TraceFiles* files = new TraceFiles;  // outlives every communicator
  return *files;
}

}  // namespace

std::string tracePathFor(const std::string& pattern, int rank) {
  std::string path;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      path += pattern[i];
      continue;
    }
    const char c = i + 1 < pattern.size() ? pattern[++i] : '\0';
    if (c == 'r')
      path += std::to_string(rank);
    else if (c == 'p')
      path += std::to_string(getpid());
    else if (c == '%')
      path += '%';
    else
      throwInvalidArgument("TRNCCL_TRACE", "is '" + pattern + "': only %r (rank), %p (process id) and %% may follow %");
  }
  // Found out now, not when the trace is written at the end of the run.
  if (!std::ofstream(path, std::ios::app))
    throwInvalidArgument("TRNCCL_TRACE", "is '" + pattern + "': cannot create the file " + path);
  return path;
}

TraceBuffer::TraceBuffer(std::string path, std::string processName, int64_t processId, size_t limit)
    : path_(std::move(path)), processName_(std::move(processName)), processId_(processId), limit_(limit) {
  events_.reserve(std::min<size_t>(limit_, 4096));
}

TraceBuffer::~TraceBuffer() {
  try {
    const TickClock::Scale scale = clock_.scale();
    json out = json::array();
    out.push_back(metadata("process_name", processId_, -1, processName_));
    std::set<int64_t> tracks;
    for (const TraceEvent& e : events_) {
      if (tracks.insert(trackOf(e)).second)
        out.push_back(metadata("thread_name", processId_, trackOf(e), trackName(e)));
      out.push_back(eventJson(e, processId_, scale));
    }
    if (dropped_ > 0)
      TRNCCL_WARN("TRNCCL_TRACE: %s: %llu events over the limit of %zu were dropped", path_.c_str(),
                  static_cast<unsigned long long>(dropped_), limit_);
    traceFiles().append(path_, std::move(out));
  } catch (const std::exception& e) {
    TRNCCL_WARN("TRNCCL_TRACE: cannot write %s: %s", path_.c_str(), e.what());
  }
}

}  // namespace trnccl::runtime
