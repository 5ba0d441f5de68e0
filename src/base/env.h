// Environment variables. An unset variable gives the default; a value that
// does not parse is an Error naming the variable, never a silent fallback.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace trnccl::env {

std::optional<std::string> get(const char* name);
int64_t getInt(const char* name, int64_t fallback, int64_t min, int64_t max);
bool getBool(const char* name, bool fallback);
// One of `allowed` (case-insensitive); returns the allowed spelling.
std::string getChoice(const char* name, const std::string& fallback, std::initializer_list<const char*> allowed);
// The same, for a list made at run time.
std::string getChoice(const char* name, const std::string& fallback, const std::vector<std::string>& allowed);

}  // namespace trnccl::env
