// Declared settings (NCCL_PARAM's idea): every TRNCCL_* environment variable
// trnccl reads is declared once, in the .cc file that reads it, with what it
// takes, its default and a line of meaning, and is read through that
// declaration:
//
//   TRNCCL_SETTING(kWindow, TRNCCL_WINDOW, settings::integer(4, 1, 64), "slices in flight per step");
//   ... settings::readInt(kWindow) ...
//
// A build step (cmake/DeclaredSettings.cmake) collects the declarations of
// the library's sources into one table (core/declared_settings.h), which
// trnccl-doctor --settings prints, README's table is checked against, and
// the misspelling warning at init compares the environment with. The table
// names each declaration's object, so whoever links the table links every
// declaring object too, even from the static libtrnccl.a; the objects are
// constants, so no static initialiser runs and order does not matter.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace trnccl::settings {

enum class Type { Integer, Boolean, Choice, Text };

// What a setting takes and what unset means.
struct Form {
  Type type;
  const char* values = "";    // Choice: the choices, ", "-separated; Text: what it takes; Integer: its unit
  const char* fallback = "";  // Choice, Text: what unset means
  int64_t defaultValue = 0;   // Integer, Boolean
  int64_t min = 0;            // Integer
  int64_t max = 0;
};

constexpr Form integer(int64_t fallback, int64_t min, int64_t max, const char* unit = "") {
  return {Type::Integer, unit, "", fallback, min, max};
}
constexpr Form boolean(bool fallback) { return {Type::Boolean, "", "", fallback ? 1 : 0}; }
// `choices` are the spellings readChoice accepts (or, for a list made at run
// time, a description of it); `fallback` is what unset means.
constexpr Form choice(const char* choices, const char* fallback) { return {Type::Choice, choices, fallback}; }
constexpr Form text(const char* values, const char* fallback) { return {Type::Text, values, fallback}; }

// Job: every rank must agree (the doctor compares them). Rank: shapes only
// this rank's diagnostics (logs, traces), so ranks may differ.
enum class Scope { Job, Rank };

struct Setting {
  const char* name;
  Form form;
  const char* meaning;  // one line
  Scope scope = Scope::Job;
};

// Reads `setting` from the environment as its form says: unset gives the
// default, a value that does not parse is an Error naming the variable.
int64_t readInt(const Setting& setting);
bool readBool(const Setting& setting);
std::string readChoice(const Setting& setting);  // the choice as declared
// The same, where the default is known only at run time.
std::string readChoice(const Setting& setting, const std::string& fallback);
std::optional<std::string> readText(const Setting& setting);

// The declared setting closest to `name` by edit distance, if a typo or two
// away; empty otherwise.
std::string nearest(const std::string& name, std::span<const Setting* const> declared);

// One line per TRNCCL_* name of `names` that is not declared: "NAME is not
// a trnccl setting", with "; did you mean X?" when one is near. `nearOnly`
// keeps only those with a near one.
std::vector<std::string> undeclared(const std::vector<std::string>& names, std::span<const Setting* const> declared,
                                    bool nearOnly);

// The table as Markdown: a row per setting with its values, default and
// meaning (README's table of environment variables is this text).
std::string markdownTable(std::span<const Setting* const> declared);

}  // namespace trnccl::settings

// The object a declaration defines: C linkage, so that the collected table
// can name it whatever namespace the declaration sits in.
#define TRNCCL_SETTING_OBJECT(NAME) TrncclSetting_##NAME

// Declares the setting NAME (a bare TRNCCL_* token) and names it `local` in
// this file. Write it on one line up to NAME: the collecting step reads it so.
#define TRNCCL_SETTING(local, NAME, ...)                                                                  \
  extern "C" const ::trnccl::settings::Setting TRNCCL_SETTING_OBJECT(NAME);                               \
  extern "C" constinit const ::trnccl::settings::Setting TRNCCL_SETTING_OBJECT(NAME){#NAME, __VA_ARGS__}; \
  constexpr const ::trnccl::settings::Setting& local = TRNCCL_SETTING_OBJECT(NAME)
