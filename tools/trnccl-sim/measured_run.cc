#include "measured_run.h"

#include <algorithm>
#include <charconv>
#include <cmath>
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

// `field` as a finite number when all of it reads as one ("58", "1e3", not
// "58us" or "inf"), else 0.
double numberOf(const std::string& field) {
  double value = 0;
  const char* end = field.data() + field.size();
  const auto [at, ec] = std::from_chars(field.data(), end, value);
  return !field.empty() && ec == std::errc() && at == end && std::isfinite(value) ? value : 0;
}

void describeFromName(const std::string& path, MeasuredRun& run) {
  const std::string stem = std::filesystem::path(path).stem().string();
  std::vector<std::string> parts;
  std::stringstream in(stem);
  for (std::string part; std::getline(in, part, '_');) parts.push_back(part);
  const std::string expected = ": its name must read COLL_Nrank_TYPE.tsv or COLL_Nrank_Minst_TYPE.tsv "
                               "(allreduce_2rank_fp32.tsv)";
  if (parts.size() < 3 || parts.size() > 4) refuse(path + expected);
  std::string coll = parts[0];
  if (coll == "allreduce") coll = "all_reduce";
  if (coll == "allgather") coll = "all_gather";
  if (coll == "reducescatter") coll = "reduce_scatter";
  try {
    run.collective = perf::parse_collective(coll);
    // parse_types takes "all" for every type: a measurement is of one.
    const std::vector<trncclDataType_t> types = perf::parse_types(parts.back());
    if (types.size() != 1) refuse(path + ": '" + parts.back() + "' is no single datatype" + expected);
    run.type = types[0];
  } catch (const perf::UsageError& e) {
    refuse(path + ": " + e.what() + expected);
  }
  if (run.collective == perf::Collective::sendrecv)
    refuse(path + ": the simulator models collectives only, not sendrecv");
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
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file with Windows line ends
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream row(line);
    std::string bytesField, usField;
    row >> bytesField >> usField;
    const double bytes = numberOf(bytesField), us = numberOf(usField);
    if (!(bytes >= 1) || !(bytes < 0x1p63) || bytes != static_cast<double>(static_cast<size_t>(bytes)) || !(us > 0))
      refuse(path + ":" + std::to_string(lineNo) + ": expected 'size_bytes time_us [busbw]', got '" + line + "'");
    run.points.push_back({static_cast<size_t>(bytes), us});
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
