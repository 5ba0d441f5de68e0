#include "job_view.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace trnccl::top {
namespace {

using nlohmann::json;

// The sequence number of a recorded operation; -1: none, or a send/recv group.
int64_t sequenceOf(const json& op) { return op.is_object() && op["seq"].is_number() ? op["seq"].get<int64_t>() : -1; }

// One rank of one communicator, as reported by the process it runs in.
json rankRow(const json& comm, const json& process, const std::string& address) {
  json row{{"rank", comm["rank"]},
           {"host", process["host"]},
           {"address", address},
           {"pid", process["pid"]},
           {"state", comm["state"]},
           {"error", comm["error"]},
           {"lastStarted", comm["lastStarted"]},
           {"lastFinished", comm["lastFinished"]}};
  return row;
}

// Sums a transport's figures over the ranks, rail by rail (by name).
void addTransports(json& totals, const json& transports) {
  for (const json& t : transports) {
    json* total = nullptr;
    for (json& known : totals)
      if (known["name"] == t["name"]) total = &known;
    if (!total) {
      totals.push_back({{"name", t["name"]},
                        {"bytesSent", nullptr},
                        {"bytesReceived", nullptr},
                        {"rails", json::array()},
                        {"ranks", 0}});
      total = &totals.back();
    }
    (*total)["ranks"] = (*total)["ranks"].get<int>() + 1;
    for (const char* field : {"bytesSent", "bytesReceived"})
      if (t[field].is_number())
        (*total)[field] =
            ((*total)[field].is_number() ? (*total)[field].get<uint64_t>() : 0) + t[field].get<uint64_t>();
    for (const json& rail : t["rails"]) {
      json* sum = nullptr;
      for (json& known : (*total)["rails"])
        if (known["name"] == rail["name"]) sum = &known;
      if (!sum) {
        (*total)["rails"].push_back(
            {{"name", rail["name"]}, {"up", 0}, {"down", 0}, {"bytesSent", 0}, {"bytesReceived", 0}, {"failovers", 0}});
        sum = &(*total)["rails"].back();
      }
      (*sum)[rail["up"].get<bool>() ? "up" : "down"] = (*sum)[rail["up"].get<bool>() ? "up" : "down"].get<int>() + 1;
      for (const char* field : {"bytesSent", "bytesReceived", "failovers"})
        (*sum)[field] = (*sum)[field].get<uint64_t>() + rail[field].get<uint64_t>();
    }
  }
}

// The oldest collective some rank has started and some has not finished:
// the ranks that have not started it are missing from it, as are those not
// heard from; null when every rank heard from is idle at the same point.
json oldestOpen(const json& rows, const std::vector<int>& notHeardFrom, const std::map<int, std::string>& hostOf) {
  if (rows.empty()) return nullptr;
  int64_t oldest = INT64_MAX, newestStart = -1;
  for (const json& row : rows) {
    oldest = std::min(oldest, sequenceOf(row["lastFinished"]) + 1);
    newestStart = std::max(newestStart, sequenceOf(row["lastStarted"]));
  }
  if (newestStart < oldest) return nullptr;
  json open{{"seq", oldest}, {"collective", nullptr}, {"missing", json::array()}, {"inIt", json::array()}};
  std::vector<int> missing = notHeardFrom;
  for (const json& row : rows) {
    const json& started = row["lastStarted"];
    if (sequenceOf(started) == oldest) open["collective"] = started["collective"];
    if (std::max(sequenceOf(started), sequenceOf(row["lastFinished"])) < oldest)
      missing.push_back(row["rank"].get<int>());
    else if (sequenceOf(row["lastFinished"]) < oldest)
      open["inIt"].push_back(row["rank"]);
  }
  std::sort(missing.begin(), missing.end());
  json hosts = json::array();
  for (int rank : missing) {
    open["missing"].push_back(rank);
    auto host = hostOf.find(rank);
    hosts.push_back(host == hostOf.end() ? json(nullptr) : json(host->second));
  }
  open["missingHosts"] = std::move(hosts);
  return open;
}

}  // namespace

json jobView(const json& status) {
  json view{{"root", status["root"]},
            {"nranks", status["nranks"]},
            {"notAnswering", json::array()},
            {"comms", json::array()}};
  // Job ranks whose process did not answer, and where they listen.
  std::map<int, std::string> addressOf;
  for (const json& rank : status["ranks"]) {
    addressOf[rank["rank"].get<int>()] = rank["address"].get<std::string>();
    if (!rank["answered"].get<bool>())
      view["notAnswering"].push_back(
          {{"rank", rank["rank"]}, {"address", rank["address"]}, {"reason", rank["reason"]}});
  }
  // Communicators in order of first sight; a process with several ranks of
  // one communicator (threads) reports them all to each of its ranks' asks.
  std::vector<std::string> order;
  std::map<std::string, json> comms;
  std::map<std::string, std::set<int>> seen;
  // Whether each of its ranks was reported by the job's rank of that number:
  // then it is the communicator the root serves, and numbers ranks as it does.
  std::map<std::string, bool> numberedAsJob;
  for (const json& rank : status["ranks"]) {
    if (!rank["answered"].get<bool>()) continue;
    const json& process = rank["status"];
    for (const json& comm : process["comms"]) {
      const std::string key = comm["comm"].get<std::string>();
      if (!comms.count(key)) {
        order.push_back(key);
        comms[key] = {{"comm", key},
                      {"name", comm["name"]},
                      {"nranks", comm["nranks"]},
                      {"ranks", json::array()},
                      {"transports", json::array()},
                      {"errors", json::array()}};
      }
      if (!seen[key].insert(comm["rank"].get<int>()).second) continue;
      if (numberedAsJob.emplace(key, true).first->second) numberedAsJob[key] = comm["rank"] == rank["rank"];
      json& c = comms[key];
      c["ranks"].push_back(rankRow(comm, process, rank["address"].get<std::string>()));
      addTransports(c["transports"], comm["transports"]);
      if (!comm["error"].is_null()) c["errors"].push_back({{"rank", comm["rank"]}, {"error", comm["error"]}});
    }
  }
  for (const std::string& key : order) {
    json& c = comms[key];
    std::sort(c["ranks"].begin(), c["ranks"].end(),
              [](const json& a, const json& b) { return a["rank"].get<int>() < b["rank"].get<int>(); });
    std::vector<int> notHeardFrom;
    std::map<int, std::string> hostOf;
    for (const json& row : c["ranks"]) hostOf[row["rank"].get<int>()] = row["address"].get<std::string>();
    const int nranks = c["nranks"].get<int>();
    // A silent rank's address is known in the root's own communicator.
    const bool jobComm = numberedAsJob[key] && nranks == view["nranks"].get<int>();
    for (int r = 0; r < nranks; ++r) {
      if (hostOf.count(r)) continue;
      notHeardFrom.push_back(r);
      if (jobComm && addressOf.count(r)) hostOf[r] = addressOf[r];
    }
    c["notHeardFrom"] = notHeardFrom;
    c["oldestOpen"] = oldestOpen(c["ranks"], notHeardFrom, hostOf);
    view["comms"].push_back(std::move(c));
  }
  return view;
}

}  // namespace trnccl::top
