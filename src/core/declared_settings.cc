#include "core/declared_settings.h"

#include <unistd.h>

#include <mutex>

#include "base/log.h"

// Naming each declaration's object links every declaring object in.
#define TRNCCL_DECLARED(NAME) extern "C" const ::trnccl::settings::Setting TRNCCL_SETTING_OBJECT(NAME);
#include "declared_settings.inc"
#undef TRNCCL_DECLARED

namespace trnccl::core {
namespace {

#define TRNCCL_DECLARED(NAME) &TRNCCL_SETTING_OBJECT(NAME),
constexpr const settings::Setting* kDeclared[] = {
#include "declared_settings.inc"
};
#undef TRNCCL_DECLARED

}  // namespace

std::span<const settings::Setting* const> declaredSettings() { return kDeclared; }

void warnMisspelledSettingsOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> names;
    for (char** entry = environ; *entry != nullptr; ++entry) {
      const std::string_view text = *entry;
      names.emplace_back(text.substr(0, text.find('=')));
    }
    for (const std::string& line : settings::undeclared(names, kDeclared, true))
      log::write(log::Level::Warn, "%s", line.c_str());
  });
}

}  // namespace trnccl::core
