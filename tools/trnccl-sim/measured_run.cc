#include "measured_run.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "logic/datatypes.h"
#include "logic/usage_error.h"

namespace trnccl::simtool {
namespace {

[[noreturn]] void refuse(const std::string& what) { throwError(trncclInvalidArgument, what); }

// "2rank" -> 2, "4inst" -> 4; 0 when `part` is not NUMBER+suffix.
int countBefore(const std::string& part, const std::string& suffix) {
  if (!part.ends_with(suffix)) return 0;
  int value = 0;
  const char* end = part.data() + part.size() - suffix.size();
  const auto [at, ec] = std::from_chars(part.data(), end, value);
  return ec == std::errc() && at == end && value > 0 ? value : 0;
}

void describeFromName(const std::string& path, MeasuredRun& run) {
  const std::string stem = std::filesystem::path(path).stem().string();
  std::vector<std::string> parts;
  std::stringstream in(stem);
  for (std::string part; std::getline(in, part, '_');) parts.push_back(part);
  const std::string expected = ": its name must read COLL_NrankTYPE.tsv or COLL_Nrank_Minst_TYPE.tsv "
                               "(allreduce_2rank_fp32.tsv)";
  if (parts.size() < 3 || parts.size() > 4) refuse(path + expected);
  std::string coll = parts[0];
  if (coll == "allreduce") coll = "all_reduce";
  if (coll == "allgather") coll = "all_gather";
  if (coll == "reducescatter") coll = "reduce_scatter";
  try {
    run.collective = perf::parse_collective(coll);
    run.type = perf::parse_types(parts.back()).at(0);
  } catch (const perf::UsageError& e) {
    refuse(path + ": " + e.what() + expected);
  }
  run.ranks = countBefore(parts[1], "rank");
  if (parts.size() == 4) run.instances = countBefore(parts[2], "inst");
  if (run.ranks == 0 || run.instances == 0) refuse(path + expected);
}

}  // namespace

MeasuredRun readMeasuredRun(const std::string& path) {
  std::ifstream in(path);
  if (!in) refuse("cannot read '" + path + "'");
  MeasuredRun run;
  run.file = path;
  describeFromName(path, run);
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    Measurement m;
    double bytes = 0;
    if (!(row >> bytes >> m.us) || !(bytes >= 1) || bytes != static_cast<double>(static_cast<size_t>(bytes)) ||
        !(m.us > 0))
      refuse(path + ":" + std::to_string(lineNo) + ": expected 'size_bytes time_us [busbw]', got '" + line + "'");
    m.bytes = static_cast<size_t>(bytes);
    run.points.push_back(m);
  }
  if (run.points.empty()) refuse(path + ": no measurements");
  return run;
}

std::vector<MeasuredRun> readMeasuredRuns(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".tsv") files.push_back(entry.path().string());
  if (ec) refuse("--calibrate '" + dir + "': " + ec.message());
  if (files.empty()) refuse("--calibrate '" + dir + "': no .tsv files");
  std::sort(files.begin(), files.end());
  std::vector<MeasuredRun> runs;
  for (const std::string& f : files) runs.push_back(readMeasuredRun(f));
  return runs;
}

}  // namespace trnccl::simtool
