// How the doctor's ranks learn about each other: every rank contributes a
// text and receives every rank's, in rank order. Under mpirun through MPI;
// with -n N through pipes to the process that started the N ranks; with
// --rendezvous through files in a shared directory; alone, trivially. Only the exchange differs: every rank runs the
// same checks.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace trnccl::doctor {

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::vector<std::string> allGather(const std::string& mine) = 0;
};

// This process alone: rank 0 of 1.
class SoloExchange final : public Exchange {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> allGather(const std::string& mine) override { return {mine}; }
};

// Under mpirun (Open MPI, MPICH or any PMI launcher): true when the
// environment says so. MPI is initialised only then, so a doctor run alone
// never depends on MPI's singleton start.
bool launchedByMpi();
std::unique_ptr<Exchange> mpiExchange(int* argc, char*** argv);
void finalizeMpi();

// Rank `rank` of `nranks` started by hand or any launcher, exchanging through
// files in `directory` (empty at the start, seen by every rank); a round
// waits at most `wait` for the other ranks.
std::unique_ptr<Exchange> fileExchange(const std::string& directory, int rank, int nranks,
                                       std::chrono::milliseconds wait);

// Forks `nranks` ranks of this host. Returns the exchange in each rank (its
// caller runs the checks and returns its exit status); in the parent it
// serves the ranks' exchanges, waits for them, and returns nullptr with
// `*status` the highest exit status of the ranks.
std::unique_ptr<Exchange> forkLocalRanks(int nranks, int* status);

}  // namespace trnccl::doctor
