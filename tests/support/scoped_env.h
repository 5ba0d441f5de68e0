// Sets an environment variable for a scope and restores the previous state
// (value or absence) when the scope ends. Communicators and transports read
// the environment when they are created, so set it before creating them.
#pragma once

#include <optional>
#include <string>

namespace trnccl::test {

class ScopedEnv {
 public:
  // A null value unsets the variable.
  ScopedEnv(const char* name, const char* value);
  ScopedEnv(const char* name, const std::optional<std::string>& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

}  // namespace trnccl::test
