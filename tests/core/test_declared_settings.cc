// The declared settings at init: a misspelled TRNCCL_* variable is warned
// about once per process, whatever TRNCCL_DEBUG says; a name that is near no
// setting is left alone (tools and tests have variables of their own).
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "core/config.h"
#include "tests/command_run.h"

namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

// Run by the test below in a process of its own: two communicators' worth of
// configuration.
TEST_CASE("settings: two configurations resolved", "[.settings-child]") {
  trnccl::core::resolveConfig(nullptr);
  trnccl::core::resolveConfig(nullptr);
}

TEST_CASE("settings: a misspelled variable is warned about once, at the first configuration", "[settings]") {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const trnccl::test::Run r = trnccl::test::runCommand(
      "env -u TRNCCL_DEBUG TRNCCL_ALOG=ring TRNCCL_UNRELATED_THING=1 '" + self + "' '[.settings-child]'");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(occurrences(r.output, " TRNCCL WARN TRNCCL_ALOG is not a trnccl setting; did you mean TRNCCL_ALGO?\n") == 1);
  CHECK(r.output.find("TRNCCL_UNRELATED_THING") == std::string::npos);
}
