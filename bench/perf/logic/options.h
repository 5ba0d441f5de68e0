#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "nccl_tests/collective.h"
#include "trnccl/trnccl.h"

namespace trnccl::perf {

// How the results are printed: nccl-tests' table (trnccl-perf) or Neuron's
// nccom-test table (trnccl-nccom-test).
enum class TableStyle { nccl_tests, nccom };

// The command line of trnccl-perf, with nccl-tests' flags and defaults
// (trnccl-nccom-test fills the same from nccom-test's flags).
struct Options {
  Collective collective = Collective::AllReduce;
  size_t min_bytes = size_t{32} << 20;
  size_t max_bytes = size_t{32} << 20;
  size_t step_factor = 1;  // 1: add step_bytes instead of multiplying
  size_t step_bytes = size_t{1} << 20;
  int iters = 20;
  int warmup_iters = 5;
  bool check = true;
  std::vector<trncclRedOp_t> ops{trncclSum};
  std::vector<trncclDataType_t> types{trncclFloat32};
  int root = 0;
  bool blocking = false;  // true: NULL stream; false: a trnccl stream, synchronised per batch
  int threads = 1;        // ranks as threads of this process, without mpirun
  std::string json_path;  // empty: no JSON file
  std::string algorithm;  // empty: TRNCCL_ALGO as the environment has it
  bool mpi_peer = false;
  bool register_buffers = false;  // -R 1: trncclCommRegister the send and receive buffers
  bool help = false;
  TableStyle style = TableStyle::nccl_tests;
  // nccom-test's measurement: out of place only, each call timed on its own
  // and the median (P50) reported, instead of the mean of a batch.
  bool per_call_median = false;
  bool in_place = true;
  bool show_algorithm = false;  // nccom-test --show-algorithm
  // nccom-test's bandwidth unit: decimal GB/s (1e9 bytes) since about
  // mid-2025, GiB/s (2^30 bytes) before; --bandwidth-unit gib for the older.
  bool gib_bandwidth = false;
  int instances = 1;  // nccom-test -N: emulated instances the ranks spread over
};

// Parses the arguments after the program name. Throws UsageError naming the
// flag on anything it cannot use, including a size sweep that is empty or
// never ends.
Options parse_args(const std::vector<std::string>& args);

// Checks what only the launch can tell: the number of ranks and whether
// mpirun started the run. Throws UsageError.
void check_launch(const Options& options, int nranks, bool under_mpirun);

std::string usage_text();

}  // namespace trnccl::perf
