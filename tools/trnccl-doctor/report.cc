#include "tools/trnccl-doctor/report.h"

#include <algorithm>
#include <numeric>

#include "base/rank_list.h"

namespace trnccl::doctor {

nlohmann::json toJson(const std::vector<CheckResult>& results) {
  nlohmann::json list = nlohmann::json::array();
  for (const CheckResult& r : results)
    list.push_back({{"check", r.check}, {"ok", r.ok}, {"detail", r.detail}, {"fix", r.fix}});
  return list;
}

std::vector<CheckResult> resultsFromJson(const nlohmann::json& json) {
  std::vector<CheckResult> results;
  for (const auto& r : json)
    results.push_back({r.at("check").get<std::string>(), r.at("ok").get<bool>(), r.at("detail").get<std::string>(),
                       r.at("fix").get<std::string>()});
  return results;
}

std::vector<MergedCheck> mergeResults(const std::vector<std::vector<CheckResult>>& perRank,
                                      const std::vector<CheckResult>& jobWide) {
  std::vector<MergedCheck> merged;
  for (size_t c = 0; c < perRank.front().size(); ++c) {
    MergedCheck check{perRank.front()[c].check, true, {}};
    for (size_t rank = 0; rank < perRank.size(); ++rank) {
      const CheckResult& r = perRank[rank][c];
      check.ok = check.ok && r.ok;
      auto same = std::find_if(check.findings.begin(), check.findings.end(), [&](const MergedCheck::Finding& f) {
        return f.ok == r.ok && f.detail == r.detail && f.fix == r.fix;
      });
      if (same == check.findings.end()) same = check.findings.insert(check.findings.end(), {{}, r.ok, r.detail, r.fix});
      same->ranks.push_back(static_cast<int>(rank));
    }
    // All well: rank 0's figures stand for the job. Else the problems only.
    if (check.ok) {
      check.findings.resize(1);
      check.findings.front().ranks.resize(perRank.size());
      std::iota(check.findings.front().ranks.begin(), check.findings.front().ranks.end(), 0);
    } else {
      std::erase_if(check.findings, [](const MergedCheck::Finding& f) { return f.ok; });
    }
    merged.push_back(std::move(check));
  }
  for (const CheckResult& r : jobWide) merged.push_back({r.check, r.ok, {{{}, r.ok, r.detail, r.fix}}});
  return merged;
}

bool allOk(const std::vector<MergedCheck>& merged) {
  return std::all_of(merged.begin(), merged.end(), [](const MergedCheck& c) { return c.ok; });
}

void printText(std::ostream& out, const std::vector<MergedCheck>& merged, int nranks, int hosts) {
  out << "trnccl-doctor: " << nranks << (nranks == 1 ? " rank" : " ranks") << " on " << hosts
      << (hosts == 1 ? " host" : " hosts") << "\n";
  for (const MergedCheck& check : merged) {
    for (const MergedCheck::Finding& f : check.findings) {
      std::string name = check.check + ":";
      name.resize(std::max<size_t>(name.size(), 13), ' ');
      out << name << (f.ok ? "ok: " : "problem: ");
      if (!f.ok && !f.ranks.empty() && nranks > 1) out << describeRanks(f.ranks) << ": ";
      out << f.detail;
      if (!f.ok) out << " fix: " << f.fix;
      out << "\n";
    }
  }
}

void printJson(std::ostream& out, const std::vector<MergedCheck>& merged, int nranks, int hosts) {
  nlohmann::json checks = nlohmann::json::array();
  for (const MergedCheck& check : merged) {
    nlohmann::json findings = nlohmann::json::array();
    for (const MergedCheck::Finding& f : check.findings) {
      nlohmann::json finding = {{"ok", f.ok}, {"detail", f.detail}, {"ranks", f.ranks}};
      if (!f.ok) finding["fix"] = f.fix;
      findings.push_back(finding);
    }
    checks.push_back({{"check", check.check}, {"ok", check.ok}, {"findings", findings}});
  }
  out << nlohmann::json{{"ok", allOk(merged)}, {"ranks", nranks}, {"hosts", hosts}, {"checks", checks}}.dump(2) << "\n";
}

}  // namespace trnccl::doctor
