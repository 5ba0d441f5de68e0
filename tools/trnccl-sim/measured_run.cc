#include "measured_run.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string_view>
#include <utility>

#include "base/error.h"
#include "cli/usage_error.h"
#include "nccl_tests/datatypes.h"
#include "run_header.h"

namespace trnccl::simtool {
namespace {

[[noreturn]] void refuse(const std::string& what) { throwError(trncclInvalidArgument, what); }

// "2rank" -> 2 for suffix "rank"; 0 when `word` is not NUMBER+suffix.
int countBefore(const std::string& word, const std::string& suffix) {
  if (!word.ends_with(suffix)) return 0;
  int value = 0;
  const char* end = word.data() + word.size() - suffix.size();
  const auto [at, ec] = std::from_chars(word.data(), end, value);
  return ec == std::errc() && at == end && value > 0 ? value : 0;
}

int countOf(const std::string& word, std::initializer_list<const char*> suffixes) {
  for (const char* suffix : suffixes)
    if (const int n = countBefore(word, suffix)) return n;
  return 0;
}

// `field` as a finite number when all of it reads as one ("58", "1e3", not
// "58us" or "inf"), else 0.
double numberOf(const std::string& field) {
  double value = 0;
  const char* end = field.data() + field.size();
  const auto [at, ec] = std::from_chars(field.data(), end, value);
  return !field.empty() && ec == std::errc() && at == end && std::isfinite(value) ? value : 0;
}

// A collective as file names spell it: by the library's name or nccom-test's
// short one (kCollectiveFacts).
std::optional<perf::Collective> collectiveOf(const std::string& word) {
  for (const CollectiveFacts& facts : kCollectiveFacts)
    if (word == facts.name || (facts.nccomName != nullptr && word == facts.nccomName)) return facts.collective;
  return std::nullopt;
}

// One type, or none ("all" names every type, and a word may be no type).
std::optional<trncclDataType_t> typeOf(const std::string& word) {
  try {
    const std::vector<trncclDataType_t> types = perf::parse_types(word);
    if (types.size() == 1) return types[0];
  } catch (const cli::UsageError&) {
  }
  return std::nullopt;
}

template <class T>
void setOnce(std::optional<T>& field, T value, const std::string& path, const char* what) {
  if (field && *field != value) refuse(path + ": its name gives two " + what);
  field = value;
}

void describeFromName(const std::string& path, MeasuredRun& run) {
  std::string stem = std::filesystem::path(path).stem().string();
  // nccl-tests' and nccom-test's names may hold the separator (all_reduce,
  // all_to_all): each becomes the library's one word.
  for (const CollectiveFacts& facts : kCollectiveFacts)
    for (const char* spelt : {facts.benchName, facts.nccomName})
      for (size_t at; spelt != nullptr && std::string_view(spelt).find('_') != std::string_view::npos &&
                      (at = stem.find(spelt)) != std::string::npos;)
        stem.replace(at, std::strlen(spelt), facts.name);
  std::stringstream in(stem);
  std::optional<int> ranks, instances;
  for (std::string word; std::getline(in, word, '_');) {
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word == "sendrecv") refuse(path + ": the simulator models collectives only, not sendrecv");
    if (const auto collective = collectiveOf(word))
      setOnce(run.collective, *collective, path, "collectives");
    else if (const int n = countOf(word, {"ranks", "rank"}))
      setOnce(ranks, n, path, "rank counts");
    else if (const int m = countOf(word, {"instances", "inst", "nodes", "node"}))
      setOnce(instances, m, path, "instance counts");
    else if (const auto type = typeOf(word))
      setOnce(run.type, *type, path, "datatypes");
  }
  run.ranks = ranks.value_or(0);
  run.instances = instances.value_or(0);
}
}  // namespace

MeasuredRun readMeasuredRun(const std::string& path) {
  std::ifstream in(path);
  if (!in) refuse("cannot read '" + path + "'");
  MeasuredRun run;
  run.file = path;
  describeFromName(path, run);
  int lineNo = 0;
  std::string header;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file with Windows line ends
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '#') header += line + "\n";
    if (first == std::string::npos || line[first] == '#') continue;
    std::string fields = line;
    std::replace(fields.begin(), fields.end(), ',', ' ');  // a CSV row reads as well
    std::istringstream row(fields);
    std::string bytesField, usField, busbwField;
    row >> bytesField >> usField >> busbwField;
    const double bytes = numberOf(bytesField), us = numberOf(usField);
    if (!(bytes >= 1) || !(bytes < 0x1p63) || bytes != static_cast<double>(static_cast<size_t>(bytes)) || !(us > 0))
      refuse(path + ":" + std::to_string(lineNo) + ": expected 'size_bytes time_us [busbw]', got '" + line + "'");
    run.points.push_back({static_cast<size_t>(bytes), us, numberOf(busbwField)});
  }
  if (run.points.empty()) refuse(path + ": no measurements");
  describeFromHeader(header, std::filesystem::path(path).parent_path().filename().string(), run);
  // busbw in decimal GB/s whichever unit the file printed.
  if (run.unit == BusbwUnit::GiB)
    for (Measurement& m : run.points) m.busbw *= 1.073741824;
  return run;
}

std::vector<MeasuredRun> readMeasuredRuns(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec))
    if (entry.path().extension() == ".tsv") files.push_back(entry.path().string());
  if (ec) refuse("--calibrate '" + dir + "': " + ec.message());
  if (files.empty()) refuse("--calibrate '" + dir + "': no .tsv files");
  std::sort(files.begin(), files.end());
  std::vector<MeasuredRun> runs;
  for (const std::string& f : files) {
    runs.push_back(readMeasuredRun(f));
    if (!runs.back().collective || runs.back().ranks == 0)
      refuse(f +
             ": its name must give the collective and the rank count (allreduce_2rank_fp32.tsv): "
             "--calibrate takes them from no flag");
  }
  return runs;
}

}  // namespace trnccl::simtool
