#include "api/user_red_ops.h"

#include <string>

#include "base/error.h"

namespace trnccl::api {
namespace {

constexpr size_t kMaxOps = static_cast<size_t>(trncclMaxRedOp) - trncclNumOps;

}  // namespace

trncclRedOp_t UserRedOps::create(const PreMulSumOp& op) {
  const std::lock_guard<std::mutex> lock(mutex_);
  size_t index = 0;
  while (index < ops_.size() && ops_[index]) ++index;
  if (index == ops_.size()) {
    if (index == kMaxOps) throwError(trncclInvalidUsage, "the communicator has no operator number left");
    ops_.emplace_back();
  }
  ops_[index] = op;
  return static_cast<trncclRedOp_t>(trncclNumOps + index);
}

void UserRedOps::destroy(trncclRedOp_t op) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (op >= 0 && op < trncclNumOps)
    throwInvalidArgument("op", "is " + std::to_string(op) + ", a built-in operator, which cannot be destroyed");
  const auto index = static_cast<size_t>(op) - trncclNumOps;
  if (op < 0 || index >= ops_.size() || !ops_[index])
    throwInvalidArgument("op", "is " + std::to_string(op) +
                                   ", not an operator trncclRedOpCreatePreMulSum made for this communicator "
                                   "(or one destroyed already)");
  ops_[index].reset();
  while (!ops_.empty() && !ops_.back()) ops_.pop_back();
}

std::optional<PreMulSumOp> UserRedOps::find(trncclRedOp_t op) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto index = static_cast<size_t>(op) - trncclNumOps;
  if (op < trncclNumOps || index >= ops_.size()) return std::nullopt;
  return ops_[index];
}

}  // namespace trnccl::api
