// Declared settings (base/settings.h), on toy declarations of this file's
// own: reading through a declaration, the lines for undeclared names, and
// the Markdown table README's is checked against.
#include <catch2/catch.hpp>

#include "base/error.h"
#include "base/settings.h"
#include "tests/support/scoped_env.h"

namespace settings = trnccl::settings;
using trnccl::test::ScopedEnv;

namespace {

TRNCCL_SETTING(kWidgets, TRNCCL_TEST_WIDGETS, settings::integer(8, 1, 64, "widgets"), "widgets per frobnication");
TRNCCL_SETTING(kMode, TRNCCL_TEST_MODE, settings::choice("fast, safe", "safe"), "how to frobnicate",
               settings::Scope::Rank);
TRNCCL_SETTING(kLoud, TRNCCL_TEST_LOUD, settings::boolean(true), "frobnicate loudly");
TRNCCL_SETTING(kPath, TRNCCL_TEST_PATH, settings::text("file", "unset"), "where frobnications go");
TRNCCL_SETTING(kHuge, TRNCCL_TEST_HUGE, settings::integer(0, 0, INT64_MAX), "a count with no bound worth naming");
constexpr const settings::Setting* kToys[] = {&kWidgets, &kMode, &kLoud, &kPath, &kHuge};

}  // namespace

TEST_CASE("settings: unset, a setting reads as its declaration's default", "[settings]") {
  const ScopedEnv widgets("TRNCCL_TEST_WIDGETS", nullptr), mode("TRNCCL_TEST_MODE", nullptr),
      loud("TRNCCL_TEST_LOUD", nullptr), path("TRNCCL_TEST_PATH", nullptr);
  CHECK(settings::readInt(kWidgets) == 8);
  CHECK(settings::readChoice(kMode) == "safe");
  CHECK(settings::readChoice(kMode, "fast") == "fast");
  CHECK(settings::readBool(kLoud));
  CHECK_FALSE(settings::readText(kPath).has_value());
}

TEST_CASE("settings: a set value parses by its form, and one out of its range names the variable", "[settings]") {
  const ScopedEnv widgets("TRNCCL_TEST_WIDGETS", "64"), mode("TRNCCL_TEST_MODE", "FAST"),
      loud("TRNCCL_TEST_LOUD", "off"), path("TRNCCL_TEST_PATH", "/tmp/x");
  CHECK(settings::readInt(kWidgets) == 64);
  CHECK(settings::readChoice(kMode) == "fast");
  CHECK_FALSE(settings::readBool(kLoud));
  CHECK(settings::readText(kPath) == "/tmp/x");
  const ScopedEnv tooMany("TRNCCL_TEST_WIDGETS", "65"), unknown("TRNCCL_TEST_MODE", "reckless");
  CHECK_THROWS_WITH(settings::readInt(kWidgets),
                    Catch::Contains("TRNCCL_TEST_WIDGETS='65' is not an integer in [1, 64]"));
  CHECK_THROWS_WITH(settings::readChoice(kMode),
                    Catch::Contains("TRNCCL_TEST_MODE='reckless' is not one of: fast, safe"));
}

TEST_CASE("settings: an undeclared TRNCCL_* name is named, with the declared one a typo or two away", "[settings]") {
  const std::vector<std::string> names = {"TRNCCL_TEST_WIDGTES", "TRNCCL_TEST_MODE", "PATH", "TRNCCL_SOMETHING_ELSE",
                                          "TRNCCL_TEST_LOD"};
  CHECK(settings::undeclared(names, kToys, false) ==
        std::vector<std::string>{
            "TRNCCL_TEST_WIDGTES is not a trnccl setting; did you mean TRNCCL_TEST_WIDGETS?",
            "TRNCCL_SOMETHING_ELSE is not a trnccl setting",
            "TRNCCL_TEST_LOD is not a trnccl setting; did you mean TRNCCL_TEST_LOUD?",
        });
  CHECK(settings::undeclared(names, kToys, true).size() == 2);
  CHECK(settings::nearest("TRNCCL_TEST_MOOD", kToys) == "TRNCCL_TEST_MODE");
  CHECK(settings::nearest("TRNCCL_TEST_MOODIER", kToys).empty());  // three edits away
}

TEST_CASE("settings: the table has a row per setting, by name, with values, default and meaning", "[settings]") {
  CHECK(settings::markdownTable(kToys) ==
        "| variable | values | default | what |\n"
        "|---|---|---|---|\n"
        "| `TRNCCL_TEST_HUGE` | integer >= 0 | 0 | a count with no bound worth naming |\n"
        "| `TRNCCL_TEST_LOUD` | `0`/`1` | 1 | frobnicate loudly |\n"
        "| `TRNCCL_TEST_MODE` | `fast`, `safe` | safe | how to frobnicate; ranks may differ |\n"
        "| `TRNCCL_TEST_PATH` | file | unset | where frobnications go |\n"
        "| `TRNCCL_TEST_WIDGETS` | widgets, 1-64 | 8 | widgets per frobnication |\n");
}
