#include "runtime/recorder_dump.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "base/datatype.h"
#include "base/error.h"

namespace trnccl::runtime {

nlohmann::json opJson(const OpSnapshot& o, const TickClock::Scale& scale) {
  nlohmann::json j;
  j["seq"] = o.info.sequence == kNoSequence ? nlohmann::json(nullptr) : nlohmann::json(o.info.sequence);
  j["collective"] = o.info.collective;
  j["count"] = o.info.count;
  j["type"] = validType(o.info.type) ? typeName(static_cast<trncclDataType_t>(o.info.type)) : nlohmann::json(nullptr);
  j["op"] = validOp(o.info.op) ? opName(static_cast<trncclRedOp_t>(o.info.op)) : nlohmann::json(nullptr);
  j["root"] = o.info.root >= 0 ? nlohmann::json(o.info.root) : nlohmann::json(nullptr);
  j["algorithm"] = o.algorithm;
  j["state"] = opStateName(o.state);
  if (o.waitPeer >= 0)
    j["waitingFor"] = {{"peer", o.waitPeer}, {"step", o.waitStep}, {"direction", o.waitReceiving ? "recv" : "send"}};
  const auto time = [&](uint64_t ticks) {
    return ticks == 0 ? nlohmann::json(nullptr) : nlohmann::json(scale.toNs(ticks));
  };
  j["issued_ns"] = time(o.issuedTicks);
  j["waiting_ns"] = time(o.waitingTicks);
  j["ended_ns"] = time(o.endedTicks);
  return j;
}

namespace {

std::string hostName() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

}  // namespace

nlohmann::json dumpJson(const FlightRecorder& recorder, const DumpHeader& header) {
  const std::vector<OpSnapshot> ops = recorder.snapshot();
  const TickClock::Scale scale = recorder.clock().scale();
  nlohmann::json j;
  j["format"] = kDumpFormat;
  j["version"] = kDumpVersion;
  j["comm"] = header.comm;
  j["commName"] = header.commName;
  j["rank"] = header.rank;
  j["nranks"] = header.nranks;
  j["pid"] = static_cast<int64_t>(getpid());
  j["host"] = hostName();
  j["reason"] = header.reason;
  j["capacity"] = recorder.capacity();
  j["dumped_ns"] = scale.toNs(readTicks());
  j["ops"] = nlohmann::json::array();
  for (const OpSnapshot& o : ops) j["ops"].push_back(opJson(o, scale));
  return j;
}

std::string dumpPath(const std::string& dir, const DumpHeader& header) {
  return dir + "/trnccl-" + header.comm + "-rank" + std::to_string(header.rank) + ".json";
}

std::string writeDump(const FlightRecorder& recorder, const DumpHeader& header, const std::string& dir) {
  const std::string path = dumpPath(dir, header);
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary);
    out << dumpJson(recorder, header).dump(1) << "\n";
    if (!out) throwError(trncclSystemError, "cannot write the flight recorder's dump " + temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throwError(trncclSystemError, "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno));
  return path;
}

}  // namespace trnccl::runtime
