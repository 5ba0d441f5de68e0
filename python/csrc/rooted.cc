// Gather and scatter: trncclGather / trncclScatter through one contiguous
// buffer of every rank's block on the root.
#include "process_group_trnccl.h"
#include "tensor_args.h"

namespace trnccl_torch {

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                          std::vector<at::Tensor>& inputs,
                                                          const c10d::GatherOptions& opts) {
  const at::Tensor input = single(inputs, "tensor").contiguous();
  const int root = static_cast<int>(opts.rootRank);
  TORCH_CHECK(root >= 0 && root < size_, "trnccl: dst is ", root, "; the group has ", size_, " ranks");
  std::vector<at::Tensor> list;
  if (rank_ == root) {
    TORCH_CHECK(outputs.size() == 1, "trnccl: on the destination, output_tensors holds ", outputs.size(),
                " lists, expected 1");
    list = outputs[0];
    TORCH_CHECK(static_cast<int>(list.size()) == size_, "trnccl: gather_list holds ", list.size(),
                " tensors, expected one per rank (", size_, ")");
    for (const at::Tensor& o : list) {
      checkPair(o, "gather_list", input, "tensor");
      checkNumel(o, "a tensor of gather_list", input.numel(), "as many as the input");
    }
  } else {
    TORCH_CHECK(outputs.empty(), "trnccl: gather_list is given on rank ", rank_, ", which is not the destination");
  }
  const at::Tensor gathered = rank_ == root ? at::empty({size_ * input.numel()}, input.options()) : at::Tensor();
  const trncclDataType_t type = dataTypeOf(input, "tensor");
  return launch(
      c10d::OpType::GATHER, "trncclGather",
      [&](trncclStream_t s) {
        return trncclGather(input.data_ptr(), gathered.defined() ? gathered.data_ptr() : nullptr, count(input), type,
                            root, comm_, s);
      },
      list, {input, gathered.defined() ? gathered : input},
      [list, gathered] {
        for (size_t i = 0; i < list.size(); ++i) {
          at::Tensor out = list[i];
          out.copy_(gathered.narrow(0, static_cast<int64_t>(i) * out.numel(), out.numel()).view(out.sizes()));
        }
      });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::scatter(std::vector<at::Tensor>& outputs,
                                                           std::vector<std::vector<at::Tensor>>& inputs,
                                                           const c10d::ScatterOptions& opts) {
  Staged out(single(outputs, "tensor"));
  const int root = static_cast<int>(opts.rootRank);
  TORCH_CHECK(root >= 0 && root < size_, "trnccl: src is ", root, "; the group has ", size_, " ranks");
  at::Tensor blocks;
  if (rank_ == root) {
    TORCH_CHECK(inputs.size() == 1, "trnccl: on the source, input_tensors holds ", inputs.size(), " lists, expected 1");
    TORCH_CHECK(static_cast<int>(inputs[0].size()) == size_, "trnccl: scatter_list holds ", inputs[0].size(),
                " tensors, expected one per rank (", size_, ")");
    std::vector<at::Tensor> flat;
    for (const at::Tensor& in : inputs[0]) {
      checkPair(in, "scatter_list", out.user, "tensor");
      checkNumel(in, "a tensor of scatter_list", out.user.numel(), "as many as the output");
      flat.push_back(in.reshape({-1}));
    }
    blocks = at::cat(flat);
  } else {
    TORCH_CHECK(inputs.empty(), "trnccl: scatter_list is given on rank ", rank_, ", which is not the source");
  }
  const trncclDataType_t type = dataTypeOf(out.user, "tensor");
  return launch(
      c10d::OpType::SCATTER, "trncclScatter",
      [&](trncclStream_t s) {
        return trncclScatter(blocks.defined() ? blocks.data_ptr() : nullptr, out.buffer.data_ptr(), count(out.buffer),
                             type, root, comm_, s);
      },
      outputs, {out.buffer, blocks.defined() ? blocks : out.buffer}, [out] { out.copyBack(); });
}

}  // namespace trnccl_torch
