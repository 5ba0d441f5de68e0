#include "text_view.h"

#include <cstdio>

namespace trnccl::top {
namespace {

using nlohmann::json;

std::string text(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string rankList(const json& ranks) {
  std::string out;
  for (const json& r : ranks) out += (out.empty() ? "" : ",") + r.dump();
  return out.empty() ? "-" : out;
}

std::string bytes(const json& value) {
  if (!value.is_number()) return "-";
  double b = value.get<double>();
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (b >= 1000 && unit < 4) b /= 1000, ++unit;
  char out[32];
  std::snprintf(out, sizeof out, unit == 0 ? "%.0f %s" : "%.1f %s", b, units[unit]);
  return out;
}

// "allreduce #57 waiting (recv from rank 3, step 2)"
std::string op(const json& o) {
  if (!o.is_object()) return "-";
  std::string out = text(o["collective"]) + (o["seq"].is_number() ? " #" + o["seq"].dump() : "");
  const std::string state = text(o["state"]);
  if (state != "done") out += " " + state;
  if (o.contains("waitingFor")) {
    const json& w = o["waitingFor"];
    out += " (" + text(w["direction"]) + (text(w["direction"]) == "recv" ? " from" : " to") + " rank " +
           w["peer"].dump() + ", step " + w["step"].dump() + ")";
  }
  return out;
}

std::string line(const char* format, const std::string& a, const std::string& b, const std::string& c,
                 const std::string& d, const std::string& e, const std::string& f) {
  char out[512];
  std::snprintf(out, sizeof out, format, a.c_str(), b.c_str(), c.c_str(), d.c_str(), e.c_str(), f.c_str());
  return out;
}

}  // namespace

std::string textView(const json& view) {
  std::string out = "trnccl-top: job of " + view["nranks"].dump() + " ranks, root " + text(view["root"]) + "\n";
  for (const json& silent : view["notAnswering"])
    out += "  rank " + silent["rank"].dump() + " (" + text(silent["address"]) +
           ") NOT ANSWERING: " + text(silent["reason"]) + "\n";
  for (const json& c : view["comms"]) {
    const std::string name = c["name"].get<std::string>().empty() ? "" : " \"" + text(c["name"]) + "\"";
    out += "\ncomm " + text(c["comm"]) + name + ", " + c["nranks"].dump() + " ranks\n";
    const json& open = c["oldestOpen"];
    if (open.is_null()) {
      out += "  no collective open\n";
    } else {
      std::string hosts;
      for (size_t i = 0; i < open["missing"].size(); ++i)
        hosts += (hosts.empty() ? "" : ", ") + open["missing"][i].dump() + " on " +
                 (open["missingHosts"][i].is_null() ? "?" : text(open["missingHosts"][i]));
      out += "  oldest open: " + text(open["collective"]) + " #" + open["seq"].dump() +
             "; missing: " + (hosts.empty() ? "-" : "rank " + hosts) + "; in it: " + rankList(open["inIt"]) + "\n";
    }
    if (!c["notHeardFrom"].empty()) out += "  not heard from: ranks " + rankList(c["notHeardFrom"]) + "\n";
    const char* row = "  %-5s %-16s %-8s %-7s %-44s %s\n";
    out += line(row, "rank", "host", "pid", "state", "last started", "last finished");
    for (const json& r : c["ranks"])
      out += line(row, r["rank"].dump(), text(r["address"]), r["pid"].dump(), text(r["state"]), op(r["lastStarted"]),
                  op(r["lastFinished"]));
    for (const json& t : c["transports"]) {
      out += "  transport " + text(t["name"]) + " (" + t["ranks"].dump() + " ranks): sent " + bytes(t["bytesSent"]) +
             ", received " + bytes(t["bytesReceived"]) + (t["rails"].empty() ? ", no per-rail figures" : "") + "\n";
      for (const json& rail : t["rails"])
        out += "    rail " + text(rail["name"]) + ": up on " + rail["up"].dump() + ", down on " + rail["down"].dump() +
               ", sent " + bytes(rail["bytesSent"]) + ", received " + bytes(rail["bytesReceived"]) + ", failovers " +
               rail["failovers"].dump() + "\n";
    }
    for (const json& e : c["errors"]) out += "  error on rank " + e["rank"].dump() + ": " + text(e["error"]) + "\n";
  }
  return out;
}

}  // namespace trnccl::top
