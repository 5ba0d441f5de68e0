// Checks of the tensors PyTorch hands a process group, and their translation
// to trnccl's types. Every failure names the argument.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl_torch {

inline size_t count(const at::Tensor& t) { return static_cast<size_t>(t.numel()); }

inline trncclDataType_t dataTypeOf(const at::Tensor& t, const char* what) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return trncclFloat32;
    case at::kDouble:
      return trncclFloat64;
    case at::kHalf:
      return trncclFloat16;
    case at::kBFloat16:
      return trncclBfloat16;
    case at::kChar:
      return trncclInt8;
    case at::kByte:
      return trncclUint8;
    case at::kInt:
      return trncclInt32;
    case at::kLong:
      return trncclInt64;
    default:
      TORCH_CHECK(false, "trnccl: ", what, " has dtype ", t.scalar_type(),
                  "; supported: float32, float64, float16, bfloat16, int8, uint8, int32, int64");
  }
}

// A dense CPU tensor of a supported dtype.
inline void checkTensor(const at::Tensor& t, const char* what) {
  TORCH_CHECK(t.defined(), "trnccl: ", what, " is undefined");
  TORCH_CHECK(t.device().is_cpu(), "trnccl: ", what, " is on ", t.device(), "; trnccl takes CPU tensors");
  TORCH_CHECK(t.layout() == at::kStrided, "trnccl: ", what, " is not a dense (strided) tensor");
  dataTypeOf(t, what);
}

// The one tensor of a list that must hold exactly one.
inline at::Tensor& single(std::vector<at::Tensor>& tensors, const char* what) {
  TORCH_CHECK(tensors.size() == 1, "trnccl: ", what, " holds ", tensors.size(),
              " tensors; trnccl takes one tensor per process");
  checkTensor(tensors[0], what);
  return tensors[0];
}

// Two tensors of one operation: each valid, and of the same dtype.
inline void checkPair(const at::Tensor& a, const char* aWhat, const at::Tensor& b, const char* bWhat) {
  checkTensor(a, aWhat);
  checkTensor(b, bWhat);
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "trnccl: ", aWhat, " has dtype ", a.scalar_type(), " but ", bWhat,
              " has ", b.scalar_type());
}

inline void checkNumel(const at::Tensor& t, const char* what, int64_t expected, const std::string& why) {
  TORCH_CHECK(t.numel() == expected, "trnccl: ", what, " has ", t.numel(), " elements, expected ", expected, " (", why,
              ")");
}

// A contiguous buffer for `t`: `t` itself when it is contiguous, otherwise a
// contiguous copy whose result copyBack() writes into `t`.
struct Staged {
  explicit Staged(const at::Tensor& user) : user(user), buffer(user.contiguous()) {}
  void copyBack() const {
    if (!buffer.is_same(user)) user.copy_(buffer);
  }
  at::Tensor user;
  at::Tensor buffer;
};

}  // namespace trnccl_torch
