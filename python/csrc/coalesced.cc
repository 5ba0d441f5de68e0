// The coalesced collectives: several tensors, each its own trnccl call, fused
// into one group on one stream, so they complete as one Work.
#include "group_call.h"
#include "process_group_trnccl.h"
#include "reduce_op.h"
#include "tensor_args.h"

namespace trnccl_torch {

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                       const c10d::AllreduceCoalescedOptions& opts) {
  TORCH_CHECK(!tensors.empty(), "trnccl: tensors is empty");
  std::vector<Staged> staged;
  std::vector<trncclDataType_t> types;
  for (const at::Tensor& t : tensors) {
    checkTensor(t, "a tensor of tensors");
    staged.emplace_back(t);
    types.push_back(dataTypeOf(t, "a tensor of tensors"));
  }
  ReduceOpFor op(opts.reduceOp, comm_);
  std::vector<at::Tensor> buffers;
  for (const Staged& s : staged) buffers.push_back(s.buffer);
  return launch(
      c10d::OpType::ALLREDUCE_COALESCED, "trncclAllReduce (coalesced)",
      [&](trncclStream_t s) {
        return inGroup([&] {
          trncclResult_t first = trncclSuccess;
          for (size_t i = 0; i < staged.size() && first == trncclSuccess; ++i) {
            void* buf = staged[i].buffer.data_ptr();
            first = trncclAllReduce(buf, buf, count(staged[i].buffer), types[i], op(staged[i].buffer), comm_, s);
          }
          return first;
        });
      },
      tensors, buffers,
      [staged] {
        for (const Staged& s : staged) s.copyBack();
      });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::allgather_coalesced(
    std::vector<std::vector<at::Tensor>>& outputLists, std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions&) {
  TORCH_CHECK(!inputs.empty(), "trnccl: input_tensors is empty");
  TORCH_CHECK(static_cast<int>(outputLists.size()) == size_, "trnccl: output_tensor_lists holds ", outputLists.size(),
              " lists, expected one per rank (", size_, ")");
  std::vector<at::Tensor> in, gathered, keepAlive;
  for (const at::Tensor& input : inputs) {
    checkTensor(input, "a tensor of input_tensors");
    in.push_back(input.contiguous());
    gathered.push_back(at::empty({size_ * input.numel()}, input.options()));
  }
  std::vector<at::Tensor> results;
  for (const std::vector<at::Tensor>& list : outputLists) {
    TORCH_CHECK(list.size() == inputs.size(), "trnccl: a list of output_tensor_lists holds ", list.size(),
                " tensors, expected one per input tensor (", inputs.size(), ")");
    for (size_t i = 0; i < list.size(); ++i) {
      checkPair(list[i], "a tensor of output_tensor_lists", inputs[i], "the input tensor at its place");
      checkNumel(list[i], "a tensor of output_tensor_lists", inputs[i].numel(), "as many as its input tensor");
      results.push_back(list[i]);
    }
  }
  keepAlive = in;
  keepAlive.insert(keepAlive.end(), gathered.begin(), gathered.end());
  return launch(
      c10d::OpType::ALLGATHER_COALESCED, "trncclAllGather (coalesced)",
      [&](trncclStream_t s) {
        return inGroup([&] {
          trncclResult_t first = trncclSuccess;
          for (size_t i = 0; i < in.size() && first == trncclSuccess; ++i)
            first = trncclAllGather(in[i].data_ptr(), gathered[i].data_ptr(), count(in[i]),
                                    dataTypeOf(in[i], "input_tensors"), comm_, s);
          return first;
        });
      },
      results, keepAlive,
      [outputLists, gathered] {
        for (size_t r = 0; r < outputLists.size(); ++r)
          for (size_t i = 0; i < gathered.size(); ++i) {
            at::Tensor out = outputLists[r][i];
            out.copy_(gathered[i].narrow(0, static_cast<int64_t>(r) * out.numel(), out.numel()).view(out.sizes()));
          }
      });
}

}  // namespace trnccl_torch
