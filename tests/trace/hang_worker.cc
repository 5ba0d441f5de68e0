// One rank of a job that hangs and stays hung until it is killed, started by
// test_hang_processes.cc through the collective tests' launcher:
//
//   trnccl_trace_hang_worker --id HEX --nranks N --rank R --calls K --skip-rank S --pid-dir DIR
//
// Every rank makes K blocking all-reduces, except rank S, which makes K-1
// and then waits forever; the others block in their K-th. Each rank writes
// its pid to DIR/pid-R once it is about to hang, so the test can signal it.
// Exit status: 2 bad usage or setup (a rank that hangs does not exit).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "trnccl/trnccl.h"
#include "unique_id_hex.h"

namespace {

const char* argument(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return nullptr;
}

int intArgument(int argc, char** argv, const char* name, int fallback) {
  const char* value = argument(argc, argv, name);
  return value ? std::atoi(value) : fallback;
}

bool writePid(const std::string& dir, int rank) {
  const std::string path = dir + "/pid-" + std::to_string(rank), temporary = path + ".tmp";
  FILE* f = std::fopen(temporary.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "%d\n", static_cast<int>(getpid()));
  return std::fclose(f) == 0 && std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* id = argument(argc, argv, "--id");
  const char* dir = argument(argc, argv, "--pid-dir");
  const int nranks = intArgument(argc, argv, "--nranks", 0), rank = intArgument(argc, argv, "--rank", -1);
  const int calls = intArgument(argc, argv, "--calls", 0), skipRank = intArgument(argc, argv, "--skip-rank", -1);
  trncclUniqueId uid;
  if (id == nullptr || dir == nullptr || !trnccl::test::uniqueIdFromHex(id, &uid) || calls < 1 || rank < 0 ||
      rank >= nranks) {
    std::fprintf(stderr, "usage: %s --id HEX --nranks N --rank R --calls K --skip-rank S --pid-dir DIR\n", argv[0]);
    return 2;
  }
  trncclComm_t comm = nullptr;
  if (trncclCommInitRank(&comm, nranks, uid, rank) != trncclSuccess) {
    std::fprintf(stderr, "rank %d: trncclCommInitRank: %s\n", rank, trncclGetLastError(nullptr));
    return 2;
  }
  std::vector<float> data(4096, 1.0f);
  for (int call = 1; call <= calls; ++call) {
    if (call == calls) {
      if (!writePid(dir, rank)) return 2;
      if (rank == skipRank)
        for (;;) pause();  // until killed; SIGUSR1's dump runs on trnccl's watcher thread
    }
    if (trncclAllReduce(data.data(), data.data(), data.size(), trncclFloat32, trncclSum, comm, nullptr) !=
        trncclSuccess) {
      std::fprintf(stderr, "rank %d: all-reduce %d: %s\n", rank, call, trncclGetLastError(comm));
      return 2;
    }
  }
  std::fprintf(stderr, "rank %d: the hanging call returned\n", rank);
  return 2;
}
