// trnccl-doctor --settings prints the declared settings (base/settings.h):
// they are every "TRNCCL_*" name the library and the tools read or declare,
// so a variable read without a declaration, or a declaration the build step
// missed, fails here; README's table is that output.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/doctor/doctor_run.h"

using namespace trnccl::test;

namespace {

std::string fileText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A name the sources read ("TRNCCL_X" alone in a string literal) or declare
// (TRNCCL_SETTING(local, TRNCCL_X, ...), however the line is wrapped).
std::set<std::string> namesInSources() {
  namespace fs = std::filesystem;
  const std::regex named(R"re("(TRNCCL_[A-Z0-9_]+)"|TRNCCL_SETTING\(\s*\w+,\s*(TRNCCL_[A-Z0-9_]+))re");
  std::set<std::string> names;
  for (const char* dir : {"src", "transports", "tools"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(TRNCCL_SOURCE_DIR) / dir)) {
      const std::string extension = entry.path().extension().string();
      if (extension != ".cc" && extension != ".h") continue;
      const std::string source = fileText(entry.path());
      for (std::sregex_iterator it(source.begin(), source.end(), named), end; it != end; ++it)
        names.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
    }
  }
  return names;
}

std::set<std::string> namesListed(const std::string& table) {
  const std::regex row(R"(\n\| `(TRNCCL_[A-Z0-9_]+)` \|)");
  std::set<std::string> names;
  for (std::sregex_iterator it(table.begin(), table.end(), row), end; it != end; ++it) names.insert((*it)[1].str());
  return names;
}

// README's table: the lines between its two markers.
std::string readmeTable() {
  const std::string readme = fileText(std::filesystem::path(TRNCCL_SOURCE_DIR) / "README.md");
  const std::string begin = "<!-- settings: trnccl-doctor --settings -->\n", end = "<!-- end of settings -->";
  const size_t from = readme.find(begin), to = readme.find(end);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  return readme.substr(from + begin.size(), to - from - begin.size());
}

}  // namespace

TEST_CASE("doctor: --settings lists every TRNCCL_* variable the sources read", "[doctor]") {
  const Run r = run("'" TRNCCL_DOCTOR_PATH "' --settings");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::set<std::string> listed = namesListed(r.output);
  CHECK(listed.size() > 25);
  CHECK(listed == namesInSources());
}

TEST_CASE("doctor: README's table of settings is what --settings prints", "[doctor]") {
  const Run r = run("'" TRNCCL_DOCTOR_PATH "' --settings");
  REQUIRE(r.status == 0);
  INFO("replace README's table with trnccl-doctor --settings:\n" << r.output);
  CHECK(readmeTable() == r.output);
}

TEST_CASE("doctor: a TRNCCL_* variable trnccl does not read is named, with the likely one", "[doctor]") {
  checkProblem(doctor("TRNCCL_ALOG=ring TRNCCL_TIMEOUT_M=5", ""), "settings",
               "TRNCCL_ALOG is not a trnccl setting; did you mean TRNCCL_ALGO?; TRNCCL_TIMEOUT_M is not a trnccl "
               "setting; did you mean TRNCCL_TIMEOUT_MS?",
               "correct the name or unset it");
}

TEST_CASE("doctor: ranks may differ in the variables that shape only their own diagnostics", "[doctor][mpi]") {
  const Run r = run(kMpirun + " -np 1 -x TRNCCL_DEBUG=INFO -x TRNCCL_DEBUG_FILE=/dev/null '" TRNCCL_DOCTOR_PATH
                              "' : -np 1 '" TRNCCL_DOCTOR_PATH "'");
  checkAllOk(r, 2);
}
