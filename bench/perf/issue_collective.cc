#include "issue_collective.h"

#include <vector>

#include "trnccl_error.h"

namespace trnccl::perf {

namespace {

void send_recv(const CallSpec& c, const void* send, void* recv) {
  const size_t count = c.layout.count;
  check_trnccl(trncclGroupStart(), "trncclGroupStart", c.comm);
  check_trnccl(trncclSend(send, count, c.type, (c.rank + 1) % c.nranks, c.comm, c.stream), "trncclSend", c.comm);
  check_trnccl(trncclRecv(recv, count, c.type, (c.rank + c.nranks - 1) % c.nranks, c.comm, c.stream), "trncclRecv",
               c.comm);
  check_trnccl(trncclGroupEnd(), "trncclGroupEnd", c.comm);
}

// The v-collectives' even blocks: every rank's `share` elements, packed in rank order.
struct EvenBlocks {
  std::vector<size_t> counts, displs;
  EvenBlocks(size_t share, int nranks) : counts(nranks, share), displs(nranks) {
    for (int q = 0; q < nranks; ++q) displs[q] = share * q;
  }
};

}  // namespace

void issue_collective(const CallSpec& c, const void* send, void* recv) {
  const size_t count = c.layout.count;
  switch (c.collective) {
    case Collective::AllReduce:
      return check_trnccl(trncclAllReduce(send, recv, count, c.type, c.op, c.comm, c.stream), "trncclAllReduce",
                          c.comm);
    case Collective::AllGather:
      return check_trnccl(trncclAllGather(send, recv, count, c.type, c.comm, c.stream), "trncclAllGather", c.comm);
    case Collective::ReduceScatter:
      return check_trnccl(trncclReduceScatter(send, recv, count, c.type, c.op, c.comm, c.stream), "trncclReduceScatter",
                          c.comm);
    case Collective::Broadcast:
      return check_trnccl(trncclBroadcast(send, recv, count, c.type, c.root, c.comm, c.stream), "trncclBroadcast",
                          c.comm);
    case Collective::Reduce:
      return check_trnccl(trncclReduce(send, recv, count, c.type, c.op, c.root, c.comm, c.stream), "trncclReduce",
                          c.comm);
    case Collective::AllToAll:
      return check_trnccl(trncclAlltoAll(send, recv, count, c.type, c.comm, c.stream), "trncclAlltoAll", c.comm);
    case Collective::SendRecv:
      return send_recv(c, send, recv);
    case Collective::Gather:
      return check_trnccl(trncclGather(send, recv, count, c.type, c.root, c.comm, c.stream), "trncclGather", c.comm);
    case Collective::Scatter:
      return check_trnccl(trncclScatter(send, recv, count, c.type, c.root, c.comm, c.stream), "trncclScatter", c.comm);
    case Collective::AllToAllV: {
      const EvenBlocks b(count, c.nranks);
      return check_trnccl(trncclAlltoAllv(send, b.counts.data(), b.displs.data(), recv, b.counts.data(),
                                          b.displs.data(), c.type, c.comm, c.stream),
                          "trncclAlltoAllv", c.comm);
    }
    case Collective::AllGatherV: {
      const EvenBlocks b(count, c.nranks);
      return check_trnccl(
          trncclAllGatherV(send, count, recv, b.counts.data(), b.displs.data(), c.type, c.comm, c.stream),
          "trncclAllGatherV", c.comm);
    }
    case Collective::ReduceScatterV: {
      const EvenBlocks b(count, c.nranks);
      return check_trnccl(
          trncclReduceScatterV(send, b.counts.data(), b.displs.data(), recv, count, c.type, c.op, c.comm, c.stream),
          "trncclReduceScatterV", c.comm);
    }
    case Collective::Permute:
      return check_trnccl(trncclPermute(send, recv, count, c.type, (c.rank + 1) % c.nranks,
                                        (c.rank + c.nranks - 1) % c.nranks, c.comm, c.stream),
                          "trncclPermute", c.comm);
  }
}

}  // namespace trnccl::perf
