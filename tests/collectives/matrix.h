// The collective test matrix, shared by the thread and the process variants:
// every collective x data type x reduction op x count x root x in-place /
// out-of-place, each result checked element by element against a reference
// computed in the test (values.h). Every rank of a communicator runs the same
// cases in the same order, so the calls match up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/collective_table.h"
#include "trnccl/trnccl.h"

namespace trnccl::test {

// The collectives by base/collective_table.h's enum and names ("allreduce").
// SendRecv runs two patterns: a ring, and every pair of ranks.
using trnccl::Collective;
const char* collName(Collective coll);
const std::vector<Collective>& allColls();

// ~5000 elements: with TRNCCL_SLICE_BYTES=4096 this spans many slices. Odd,
// so it never divides evenly among ranks.
constexpr size_t kLargeCount = 4999;

struct MatrixOptions {
  std::vector<Collective> collectives = allColls();
  std::vector<size_t> counts = {0, 1, 37, kLargeCount};
  // Data types that run the counts above 37; empty: every type.
  std::vector<trncclDataType_t> largeTypes;
  // The data types and reduction ops to run; empty: every one.
  std::vector<trncclDataType_t> types;
  std::vector<trncclRedOp_t> ops;
  bool useStream = false;  // each call on a stream, then trncclStreamSynchronize
  // Each call's buffers registered (trncclCommRegister) for that call: peer
  // processes then read trncclMemAlloc inputs in place.
  bool registerBuffers = false;
  uint64_t salt = 1;    // varies the inputs between runs
  int maxReports = 12;  // mismatch lines printed per rank at most
};

// A few types (an 8-bit and a 64-bit integer, fp32, bf16, fp8) for the
// large count on 8 ranks, where every type x op still runs the small counts.
std::vector<trncclDataType_t> fewLargeTypes();

// Runs the matrix on this rank of `comm` (its rank and size come from
// trncclCommUserRank / trncclCommCount). Returns the number of failed cases,
// printing the first ones (rank, collective, type, op, count, root, layout,
// element, got, expected) on stderr. A call that returns an error stops the
// run: the ranks would no longer match up.
int runMatrix(trncclComm_t comm, const MatrixOptions& options);

// The environment the matrix is meant to run under: TRNCCL_SLICE_BYTES
// (4096, so the large count pipelines; empty: unset, the library's default)
// and a TRNCCL_TIMEOUT_MS short enough that a broken case fails the test
// instead of hanging it. Sets (overwrites) both.
void setMatrixEnvironment(const std::string& sliceBytes = "4096");

}  // namespace trnccl::test
