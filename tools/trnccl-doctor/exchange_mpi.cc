#include <mpi.h>

#include <cstdlib>

#include "base/error.h"
#include "tools/trnccl-doctor/exchange.h"

namespace trnccl::doctor {
namespace {

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throwError(trncclSystemError, std::string(call) + " failed");
}

class MpiExchange final : public Exchange {
 public:
  MpiExchange() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> allGather(const std::string& mine) override {
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<size_t>(size_));
    check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    check(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                         MPI_COMM_WORLD),
          "MPI_Allgatherv");
    std::vector<std::string> texts;
    for (size_t r = 0; r < lengths.size(); ++r)
      texts.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(lengths[r])));
    return texts;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

bool launchedByMpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

std::unique_ptr<Exchange> mpiExchange(int* argc, char*** argv) {
  check(MPI_Init(argc, argv), "MPI_Init");
  return std::make_unique<MpiExchange>();
}

void finalizeMpi() { MPI_Finalize(); }

}  // namespace trnccl::doctor
