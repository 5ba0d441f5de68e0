#include "reduce_op.h"

#include "call_errors.h"
#include "tensor_args.h"

namespace trnccl_torch {

namespace {

double preMulFactor(const c10d::ReduceOp& op) {
  const auto* supplement = dynamic_cast<const c10d::NCCLPreMulSumSupplement*>(op.supplement_.get());
  TORCH_CHECK(supplement != nullptr, "trnccl: a PREMUL_SUM reduce op without its factor");
  if (supplement->tensor_factors.empty()) return supplement->double_factor;
  const at::Tensor& factor = supplement->tensor_factors.front();
  TORCH_CHECK(factor.numel() == 1, "trnccl: the PREMUL_SUM factor tensor has ", factor.numel(),
              " elements; it must have one");
  return factor.item<double>();
}

}  // namespace

ReduceOpFor::ReduceOpFor(const c10d::ReduceOp& op, trncclComm_t comm) : comm_(comm) {
  switch (op.op_) {
    case c10d::ReduceOp::SUM:
      builtIn_ = trncclSum;
      break;
    case c10d::ReduceOp::PRODUCT:
      builtIn_ = trncclProd;
      break;
    case c10d::ReduceOp::MIN:
      builtIn_ = trncclMin;
      break;
    case c10d::ReduceOp::MAX:
      builtIn_ = trncclMax;
      break;
    case c10d::ReduceOp::AVG:
      builtIn_ = trncclAvg;
      break;
    case c10d::ReduceOp::PREMUL_SUM:
      preMulSum_ = true;
      factor_ = preMulFactor(op);
      break;
    default:
      TORCH_CHECK(false, "trnccl: reduce op ", static_cast<int>(op.op_),
                  " is not supported (SUM, PRODUCT, MIN, MAX, AVG, PREMUL_SUM are)");
  }
}

ReduceOpFor::~ReduceOpFor() {
  for (const auto& [dtype, op] : made_) trncclRedOpDestroy(op, comm_);
}

trncclRedOp_t ReduceOpFor::operator()(const at::Tensor& t) {
  if (!preMulSum_) return builtIn_;
  for (const auto& [dtype, op] : made_)
    if (dtype == t.scalar_type()) return op;
  at::Tensor factor = at::scalar_tensor(factor_, at::TensorOptions().dtype(t.scalar_type()));
  trncclRedOp_t op;
  check("trncclRedOpCreatePreMulSum",
        trncclRedOpCreatePreMulSum(&op, factor.data_ptr(), dataTypeOf(t, "tensor"), trncclScalarHostImmediate, comm_),
        comm_);
  made_.emplace_back(t.scalar_type(), op);
  return op;
}

}  // namespace trnccl_torch
