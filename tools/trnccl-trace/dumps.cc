#include "dumps.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

namespace trnccl::trace {
namespace {

using nlohmann::json;

std::string stringOr(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// An integer field that fits T. nlohmann's get<T>() converts a float like
// 3e99 with a cast whose result is undefined, so a number that is not a
// whole one in range is refused here.
template <class T>
T integer(const json& j, const char* key) {
  const json& value = j.at(key);
  const bool fits = value.is_number_unsigned() ? std::in_range<T>(value.get<uint64_t>())
                                               : value.is_number_integer() && std::in_range<T>(value.get<int64_t>());
  if (!fits)
    throw json::out_of_range::create(
        406, std::string("\"") + key + "\" is " + value.dump() + ", not an integer that fits", &value);
  return value.get<T>();
}

RecordedOp parseOp(const json& j) {
  RecordedOp o;
  if (j.at("seq").is_number()) o.seq = integer<uint64_t>(j, "seq");
  o.collective = j.at("collective").get<std::string>();
  o.count = integer<uint64_t>(j, "count");
  o.type = stringOr(j, "type");
  o.op = stringOr(j, "op");
  if (j.at("root").is_number()) o.root = integer<int>(j, "root");
  o.algorithm = stringOr(j, "algorithm");
  o.state = j.at("state").get<std::string>();
  if (const auto w = j.find("waitingFor"); w != j.end() && w->is_object()) {
    o.waitPeer = integer<int>(*w, "peer");
    o.waitStep = integer<int64_t>(*w, "step");
    o.waitReceiving = w->at("direction").get<std::string>() == "recv";
  }
  return o;
}

}  // namespace

std::string RecordedOp::signature() const {
  std::string s = collective + " of " + std::to_string(count);
  if (!type.empty()) s += " x " + type;
  if (!op.empty()) s += " " + op;
  if (root) s += " root " + std::to_string(*root);
  return s;
}

std::string RecordedOp::describe() const {
  std::string head = collective + (seq ? " #" + std::to_string(*seq) : std::string());
  std::string what = std::to_string(count) + (type.empty() ? "" : " x " + type) + (op.empty() ? "" : " " + op);
  if (root) what += ", root " + std::to_string(*root);
  if (!algorithm.empty()) what += ", " + algorithm;
  return head + " (" + what + ")";
}

RankDump parseDump(const std::string& text, const std::string& file) {
  try {
    const json j = json::parse(text);
    if (stringOr(j, "format") != "trnccl-flight-recorder")
      throw DumpError(file + ": not a trnccl flight-recorder dump (no \"format\": \"trnccl-flight-recorder\")");
    if (integer<int>(j, "version") != 1)
      throw DumpError(file + ": dump version " + j.at("version").dump() + ", this tool reads version 1");
    RankDump d;
    d.file = file;
    d.comm = j.at("comm").get<std::string>();
    d.commName = stringOr(j, "commName");
    d.reason = stringOr(j, "reason");
    d.rank = integer<int>(j, "rank");
    d.nranks = integer<int>(j, "nranks");
    d.pid = integer<int64_t>(j, "pid");
    if (d.nranks < 1 || d.rank < 0 || d.rank >= d.nranks)
      throw DumpError(file + ": rank " + std::to_string(d.rank) + " of " + std::to_string(d.nranks) + " is impossible");
    for (const json& op : j.at("ops")) d.ops.push_back(parseOp(op));
    return d;
  } catch (const json::exception& e) {
    throw DumpError(file + ": " + e.what());
  }
}

std::vector<RankDump> readDumps(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw DumpError(dir + ": not a directory");
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("trnccl-", 0) == 0 && e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw DumpError(dir + ": no flight-recorder dumps (trnccl-*.json) in it");
  std::vector<RankDump> dumps;
  for (const std::string& f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw DumpError(f + ": cannot be read");
    dumps.push_back(parseDump(text.str(), f));
  }
  return dumps;
}

}  // namespace trnccl::trace
