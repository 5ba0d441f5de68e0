// c10d's ReduceOp as a trnccl operator: a built-in one, or for PREMUL_SUM
// (FSDP scales gradients with it) a trnccl PreMulSum operator per datatype.
#pragma once

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <utility>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl_torch {

// Lives for one call of the backend: PreMulSum operators are made on first
// use, with the factor copied as a host-immediate value of the tensor's
// dtype, and destroyed with this object (trnccl allows that once the calls
// using them have returned, queued or not).
class ReduceOpFor {
 public:
  ReduceOpFor(const c10d::ReduceOp& op, trncclComm_t comm);
  ~ReduceOpFor();
  ReduceOpFor(const ReduceOpFor&) = delete;
  ReduceOpFor& operator=(const ReduceOpFor&) = delete;

  // The operator to reduce `t` with.
  trncclRedOp_t operator()(const at::Tensor& t);

 private:
  trncclComm_t comm_;
  trncclRedOp_t builtIn_ = trncclSum;
  bool preMulSum_ = false;
  double factor_ = 0;
  std::vector<std::pair<at::ScalarType, trncclRedOp_t>> made_;
};

}  // namespace trnccl_torch
