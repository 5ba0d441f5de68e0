// The reduction operators trncclRedOpCreatePreMulSum made for one
// communicator handle, numbered from trncclNumOps as NCCL numbers its own (the
// lowest free number first, so a destroyed operator's number is reused).
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "core/communicator.h"
#include "trnccl/trnccl.h"

namespace trnccl::api {

struct PreMulSumOp {
  trncclDataType_t datatype;
  core::PreMulScalar scalar;
};

class UserRedOps {
 public:
  trncclRedOp_t create(const PreMulSumOp& op);
  // Throws InvalidArgument naming `op` if it is not a live operator here.
  void destroy(trncclRedOp_t op);
  std::optional<PreMulSumOp> find(trncclRedOp_t op) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::optional<PreMulSumOp>> ops_;  // [op - trncclNumOps]
};

}  // namespace trnccl::api
