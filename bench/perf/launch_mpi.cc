#include <mpi.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "launch.h"
#include "logic/launch_env.h"
#include "logic/usage_error.h"
#include "mpi_sync.h"
#include "rank_bench.h"
#include "trnccl_error.h"

namespace trnccl::perf {

namespace {

// MPI is here only to start the ranks, share the unique id and gather
// results; trnccl does the communication being measured.
uint64_t run_mpi_rank(const Options& options, int rank, int nranks) {
  trncclUniqueId id{};
  if (rank == 0) check_trnccl(trncclGetUniqueId(&id), "trncclGetUniqueId", nullptr);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  trncclComm_t comm = nullptr;
  check_trnccl(trncclCommInitRank(&comm, nranks, id, rank), "trncclCommInitRank", nullptr);

  std::optional<Reporter> reporter;
  if (rank == 0) {
    // Which MPI launched the ranks and is timed in the peer columns.
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    const std::string launch = "mpirun, " + mpi_library_name(std::string_view(version, static_cast<size_t>(length)));
    reporter.emplace(options, make_run_info(nranks, launch, comm));
  }
  if (reporter) reporter->begin();
  MpiSync sync;
  const uint64_t wrong = run_rank({rank, nranks, comm, sync, options, reporter ? &*reporter : nullptr});
  if (reporter) reporter->finish();
  check_trnccl(trncclCommDestroy(comm), "trncclCommDestroy", nullptr);
  return wrong;
}

}  // namespace

int run_under_mpirun(const Options& options) {
  MPI_Init(nullptr, nullptr);
  int rank = 0;
  int nranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int status = 0;
  try {
    check_launch(options, nranks, true);
    status = run_mpi_rank(options, rank, nranks) == 0 ? 0 : 1;
  } catch (const UsageError& error) {
    status = rank == 0 ? usage_failure(error.what()) : 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "trnccl-perf: rank %d: %s\n", rank, error.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);  // the other ranks may be blocked in a collective
  }
  MPI_Finalize();
  return status;
}

}  // namespace trnccl::perf
