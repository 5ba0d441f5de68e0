// printf's formatting into a std::string, however long the text.
#pragma once

#include <cstdio>
#include <string>

namespace trnccl::perf {

template <typename... Args>
std::string format_text(const char* pattern, Args... args) {
  std::string text(static_cast<size_t>(std::snprintf(nullptr, 0, pattern, args...)), '\0');
  std::snprintf(text.data(), text.size() + 1, pattern, args...);
  return text;
}

}  // namespace trnccl::perf
