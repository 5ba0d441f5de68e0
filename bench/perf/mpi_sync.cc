#include "mpi_sync.h"

#include <mpi.h>

namespace trnccl::perf {

void MpiSync::barrier() { MPI_Barrier(MPI_COMM_WORLD); }

double MpiSync::max(double value) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

uint64_t MpiSync::sum(uint64_t value) {
  uint64_t result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return result;
}

}  // namespace trnccl::perf
