#include "base/env.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>

#include "base/error.h"

namespace trnccl::env {

std::optional<std::string> get(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

int64_t getInt(const char* name, int64_t fallback, int64_t min, int64_t max) {
  auto text = get(name);
  if (!text) return fallback;
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(text->c_str(), &end, 0);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < min || value > max) {
    throwError(trncclInvalidArgument, std::string("environment variable ") + name + "='" + *text +
                                          "' is not an integer in [" + std::to_string(min) + ", " +
                                          std::to_string(max) + "]");
  }
  return value;
}

bool getBool(const char* name, bool fallback) {
  auto text = get(name);
  if (!text) return fallback;
  for (const char* yes : {"1", "true", "yes", "on"})
    if (strcasecmp(text->c_str(), yes) == 0) return true;
  for (const char* no : {"0", "false", "no", "off"})
    if (strcasecmp(text->c_str(), no) == 0) return false;
  throwError(trncclInvalidArgument, std::string("environment variable ") + name + "='" + *text +
                                        "' is not a boolean (1/0, true/false, yes/no, on/off)");
}

std::string getChoice(const char* name, const std::string& fallback, std::initializer_list<const char*> allowed) {
  return getChoice(name, fallback, std::vector<std::string>(allowed.begin(), allowed.end()));
}

std::string getChoice(const char* name, const std::string& fallback, const std::vector<std::string>& allowed) {
  auto text = get(name);
  if (!text) return fallback;
  std::string list;
  for (const std::string& choice : allowed) {
    if (strcasecmp(text->c_str(), choice.c_str()) == 0) return choice;
    list += list.empty() ? choice : ", " + choice;
  }
  throwError(trncclInvalidArgument,
             std::string("environment variable ") + name + "='" + *text + "' is not one of: " + list);
}

}  // namespace trnccl::env
