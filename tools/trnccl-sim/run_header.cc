#include "run_header.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "topology/runtime_era.h"
#include "topology/topology.h"

namespace trnccl::simtool {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "two" -> 2; digits as they are; 0 for anything else.
int countWord(const std::string& word) {
  static const char* const kWords[] = {"one", "two", "three", "four", "five", "six", "seven", "eight"};
  for (int i = 0; i < 8; ++i)
    if (word == kWords[i]) return i + 1;
  return !word.empty() && std::all_of(word.begin(), word.end(), ::isdigit) && word.size() < 6 ? std::stoi(word) : 0;
}

// The shipped topology the text names, the longest name first; else the
// instance a generation's word stands for.
std::string topologyNamed(const std::string& text) {
  std::vector<std::string> names = topo::shippedTopologyNames();
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const std::string& name : names)
    if (text.find(name) != std::string::npos) return name;
  if (std::regex_search(text, std::regex(R"(\btrn2\b)"))) return "trn2.48xlarge";
  if (std::regex_search(text, std::regex(R"(\btrn1\b)"))) return "trn1.32xlarge";
  return {};
}

BusbwUnit unitNamed(const std::string& text) {
  if (text.find("busbw_gibps") != std::string::npos) return BusbwUnit::GiB;
  if (text.find("busbw_gbps") != std::string::npos) return BusbwUnit::GB;
  if (text.find("decimal gb/s") != std::string::npos) return BusbwUnit::GB;
  if (text.find("gib/s") != std::string::npos) return BusbwUnit::GiB;
  return BusbwUnit::Unknown;
}

// The latest era not after the latest year 2020-2039 the text names.
std::string eraNamed(const std::string& text) {
  int latest = 0;
  const std::regex year(R"(\b(20[23]\d)\b)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), year); it != std::sregex_iterator(); ++it)
    latest = std::max(latest, std::stoi((*it)[1]));
  std::string era;
  for (const std::string& e : topo::runtimeEraNames())
    if (latest >= std::stoi(e)) era = e;
  return era;
}

}  // namespace

void describeFromHeader(const std::string& header, const std::string& folder, MeasuredRun& run) {
  const std::string text = lower(header), dir = lower(folder);
  run.topology = topologyNamed(text);
  if (run.topology.empty()) run.topology = topologyNamed(std::regex_replace(dir, std::regex("[-_]"), " "));
  if (!run.topology.empty() && run.instances == 0) {
    std::smatch m;
    if (std::regex_search(text, m,
                          std::regex(R"(\b(\w+) )" + std::regex_replace(run.topology, std::regex(R"(\.)"), R"(\.)"))))
      if (const int n = countWord(m[1])) run.instances = n;
  }
  run.onePerInstance = std::regex_search(text, std::regex(R"(one rank (on|per) (each|instance))"));
  run.unit = unitNamed(text);
  run.era = eraNamed(text);
  if (run.era.empty()) run.era = eraNamed(dir);
  if (run.era.empty() && run.unit == BusbwUnit::GiB) run.era = topo::runtimeEraNames().front();
}

}  // namespace trnccl::simtool
