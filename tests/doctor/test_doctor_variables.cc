// The doctor's list of trnccl's environment variables (variables.h) is the
// set of "TRNCCL_*" names the library's sources read: a variable added
// without the list, or a stale name in it, fails here.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/doctor/doctor_run.h"
#include "tools/trnccl-doctor/variables.h"

using namespace trnccl::test;

namespace {

std::set<std::string> namesInSources() {
  namespace fs = std::filesystem;
  const std::regex quoted("\"(TRNCCL_[A-Z0-9_]+)\"");
  std::set<std::string> names;
  for (const char* dir : {"src", "transports"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(TRNCCL_SOURCE_DIR) / dir)) {
      const std::string extension = entry.path().extension().string();
      if (extension != ".cc" && extension != ".h") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string source = text.str();
      for (std::sregex_iterator it(source.begin(), source.end(), quoted), end; it != end; ++it)
        names.insert((*it)[1].str());
    }
  }
  return names;
}

}  // namespace

TEST_CASE("doctor: its list of variables is the one the sources read", "[doctor]") {
  std::set<std::string> listed;
  for (const trnccl::doctor::Variable& v : trnccl::doctor::kVariables) listed.insert(std::string(v.name));
  const std::set<std::string> read = namesInSources();
  CHECK(read.size() > 20);
  CHECK(listed == read);
}

TEST_CASE("doctor: a TRNCCL_* variable trnccl does not read is named, with the likely one", "[doctor]") {
  checkProblem(doctor("TRNCCL_ALOG=ring TRNCCL_TIMEOUT_M=5", ""), "settings",
               "TRNCCL_ALOG is not a variable trnccl reads (did you mean TRNCCL_ALGO?); TRNCCL_TIMEOUT_M is not a "
               "variable trnccl reads (did you mean TRNCCL_TIMEOUT_MS?)",
               "correct the name or unset it");
}

TEST_CASE("doctor: ranks may differ in the variables that shape only their own diagnostics", "[doctor][mpi]") {
  const Run r = run(kMpirun + " -np 1 -x TRNCCL_DEBUG=INFO -x TRNCCL_DEBUG_FILE=/dev/null '" TRNCCL_DOCTOR_PATH
                              "' : -np 1 '" TRNCCL_DOCTOR_PATH "'");
  checkAllOk(r, 2);
}
