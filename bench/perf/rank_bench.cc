#include "rank_bench.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "issue_collective.h"
#include "logic/buffer_check.h"
#include "logic/expected_output.h"
#include "mpi_peer.h"
#include "nccl_tests/datatypes.h"
#include "nccl_tests/sizes.h"
#include "trnccl_error.h"
#include "trnccl_handles.h"

namespace trnccl::perf {

namespace {

class RankBench {
 public:
  explicit RankBench(const RankSetup& setup)
      : s_(setup),
        // Every size's input and output fit in max_bytes (counts round down).
        send_(std::max<size_t>(setup.options.max_bytes, 1)),
        recv_(std::max<size_t>(setup.options.max_bytes, 1)),
        send_registration_(setup.comm, send_.data(), std::max<size_t>(setup.options.max_bytes, 1),
                           setup.options.register_buffers),
        recv_registration_(setup.comm, recv_.data(), std::max<size_t>(setup.options.max_bytes, 1),
                           setup.options.register_buffers),
        stream_(setup.options.blocking) {}

  uint64_t run() {
    const std::vector<size_t> sizes =
        size_sweep(s_.options.min_bytes, s_.options.max_bytes, s_.options.step_factor, s_.options.step_bytes);
    std::vector<std::optional<trncclRedOp_t>> ops{std::nullopt};
    if (reduces(s_.options.collective)) ops.assign(s_.options.ops.begin(), s_.options.ops.end());
    uint64_t wrong = 0;
    for (trncclDataType_t type : s_.options.types) {
      for (const std::optional<trncclRedOp_t>& op : ops) {
        for (size_t bytes : sizes) wrong += run_size(type, op, bytes);
      }
    }
    return wrong;
  }

 private:
  uint64_t run_size(trncclDataType_t type, std::optional<trncclRedOp_t> op, size_t bytes) {
    const Collective collective = s_.options.collective;
    const size_t element_size = type_size(type);
    const CallSpec call{collective,
                        layout_for(collective, bytes, element_size, s_.nranks),
                        type,
                        op.value_or(trncclSum),
                        s_.options.root,
                        s_.rank,
                        s_.nranks,
                        s_.comm,
                        stream_.handle()};
    const PatternSpec spec{type, op, s_.nranks};
    Row row{row_bytes(call.layout, element_size),
            call.layout.count,
            std::string(type_name(type)),
            op ? std::string(op_name(*op)) : "none",
            has_root(collective) ? std::optional<int>(s_.options.root) : std::nullopt,
            measure(call, spec, false),
            s_.options.in_place && has_in_place(collective) ? measure(call, spec, true)
                                                            : Measurement{0, 0, 0, std::nullopt},
            std::nullopt,
            "-",
            std::nullopt};
    describe_algorithm(call, row);
    if (s_.options.mpi_peer) {
      const std::optional<double> seconds = mpi_peer_seconds(call, send_.data(), recv_.data(), s_.options.warmup_iters,
                                                             s_.options.iters, s_.options.per_call_median);
      if (seconds) {
        const double time_us = *seconds * 1e6;
        const double busbw = bandwidth(collective, call.layout, element_size, s_.nranks, *seconds).busbw;
        // trnccl busbw / MPI busbw, taken from the times: the same size and
        // factor cancel, and a factor of 0 (all_reduce on 1 rank) makes no NaN.
        row.mpi = PeerMeasurement{time_us, busbw, time_us / row.out_of_place.time_us};
      }
    }
    if (s_.reporter != nullptr) s_.reporter->add(row);
    return row.out_of_place.wrong.value_or(0) + row.in_place.wrong.value_or(0);
  }

  // What the tuner chose for this call, and what its cost model predicted.
  void describe_algorithm(const CallSpec& call, Row& row) const {
    // trncclCommGetAlgorithm takes the collectives described by a count alone.
    switch (call.collective) {
      case Collective::SendRecv:
      case Collective::Permute:
      case Collective::AllToAllV:
      case Collective::AllGatherV:
      case Collective::ReduceScatterV:
        return;
      default:
        break;
    }
    const char* name = collectiveFacts(call.collective).name;  // the API's spelling: "allreduce"
    char algorithm[TRNCCL_ALGO_NAME_MAX];
    double predicted_us = 0;
    check_trnccl(trncclCommGetAlgorithm(s_.comm, name, call.layout.count, call.type, algorithm, &predicted_us),
                 "trncclCommGetAlgorithm", s_.comm);
    row.algorithm = algorithm;
    row.predicted_us = predicted_us;
  }

  Measurement measure(const CallSpec& call, const PatternSpec& spec, bool in_place) {
    const size_t element_size = type_size(call.type);
    const auto rank = static_cast<size_t>(s_.rank);
    // nccl-tests' placement: in place, the input is the rank's slice of the
    // output buffer (all_gather) or the whole of it (the others).
    std::byte* input = in_place ? recv_.data() + call.layout.send_inplace_offset * rank * element_size : send_.data();
    std::byte* output = in_place ? recv_.data() + call.layout.recv_inplace_offset * rank * element_size : recv_.data();

    fill_input(spec, s_.rank, input, call.layout.send_count);
    for (int i = 0; i < s_.options.warmup_iters; ++i) issue_collective(call, input, output);
    stream_.synchronize();
    s_.sync.barrier();
    // An untimed call on each side of the timed ones keeps the launcher's
    // MPI away from them: its barrier may let the ranks go apart, and a rank
    // that finished first would wait in its MPI_Allreduce of the times,
    // which under MPICH busy-polls and takes the cores from the others' last
    // calls (8 ranks on 2 cores: about 20 ms per section). trnccl's waits
    // yield, so its calls line the ranks up instead.
    const auto untimedCall = [&] {
      issue_collective(call, input, output);
      stream_.synchronize();
    };
    untimedCall();
    const double mine =
        s_.options.per_call_median ? median_call_seconds(call, input, output) : mean_call_seconds(call, input, output);
    untimedCall();
    const double slowest = s_.sync.max(mine);
    const Bandwidth bw = bandwidth(call.collective, call.layout, element_size, s_.nranks, slowest);

    Measurement m{slowest * 1e6, bw.algbw, bw.busbw, std::nullopt};
    if (s_.options.check) {
      // Timed iterations ran on their own results; check a fresh call, as nccl-tests does.
      fill_input(spec, s_.rank, input, call.layout.send_count);
      issue_collective(call, input, output);
      stream_.synchronize();
      const ExpectedOutput expected(call.collective, spec, call.layout, s_.rank, call.root);
      m.wrong = s_.sync.sum(count_wrong(expected, call.type, output));
    }
    return m;
  }

  // nccl-tests' time: a batch of calls, synchronised once, over their number.
  double mean_call_seconds(const CallSpec& call, const std::byte* input, std::byte* output) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < s_.options.iters; ++i) issue_collective(call, input, output);
    stream_.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / s_.options.iters;
  }

  // nccom-test's time: each call timed to its completion, the median (P50).
  double median_call_seconds(const CallSpec& call, const std::byte* input, std::byte* output) {
    std::vector<double> seconds(static_cast<size_t>(s_.options.iters));
    for (double& s : seconds) {
      const auto start = std::chrono::steady_clock::now();
      issue_collective(call, input, output);
      stream_.synchronize();
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const auto middle = seconds.begin() + static_cast<std::ptrdiff_t>(seconds.size() / 2);
    std::nth_element(seconds.begin(), middle, seconds.end());
    return *middle;
  }

  const RankSetup& s_;
  DeviceBuffer send_;
  DeviceBuffer recv_;
  Registration send_registration_, recv_registration_;
  Stream stream_;
};

}  // namespace

uint64_t run_rank(const RankSetup& setup) { return RankBench(setup).run(); }

}  // namespace trnccl::perf
