#include "tests/support/scoped_env.h"

#include <cstdlib>

namespace trnccl::test {

ScopedEnv::ScopedEnv(const char* name, const char* value)
    : ScopedEnv(name, value ? std::optional<std::string>(value) : std::nullopt) {}

ScopedEnv::ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
  if (const char* old = std::getenv(name)) previous_ = old;
  if (value)
    setenv(name, value->c_str(), 1);
  else
    unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (previous_)
    setenv(name_.c_str(), previous_->c_str(), 1);
  else
    unsetenv(name_.c_str());
}

}  // namespace trnccl::test
