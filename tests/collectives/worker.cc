// One rank of a multi-process test, started by launcher.cc. Uses the public
// C API only. Exit status: 0 passed, 1 a check failed (the first failures are
// printed on stderr), 2 bad usage or setup, 3 the rank that dies on purpose.
//
//   worker --id HEX --nranks N --rank R --mode matrix [--large-types few] [--stream] [--register]
//          [--colls allreduce,broadcast,...] [--counts 1,37] [--large-types float,int8]
//   worker ... --mode die --victim V --die-before K --timeout-ms T [--kill-during | --stop-during]
//   worker ... --mode random
//   worker ... --mode deterministic --algorithms ring,mesh,... [--count N]
//   worker ... --mode shrink --victims V1,V2 --die-before K --timeout-ms T [--unlisted-death R]
//   worker ... --mode soak --seconds S [--ready-dir D] [--timeout-ms T]
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "deterministic_sweep.h"
#include "encoding.h"
#include "matrix.h"
#include "random_reduce.h"
#include "soak_mode.h"
#include "trnccl/trnccl.h"
#include "unique_id_hex.h"

using namespace trnccl::test;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  std::map<std::string, std::string> values;
  std::string get(const std::string& key, const std::string& fallback = "") const {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
  int getInt(const std::string& key, int fallback) const {
    auto it = values.find(key);
    return it == values.end() ? fallback : std::atoi(it->second.c_str());
  }
  bool has(const std::string& key) const { return values.count(key) != 0; }
};

Args parse(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    if (key.rfind("--", 0) != 0) continue;
    key.erase(0, 2);
    const bool flag = i + 1 >= argc || std::string(argv[i + 1]).rfind("--", 0) == 0;
    args.values[key] = flag ? "1" : argv[++i];
  }
  return args;
}

long long msSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// "a,b,c" -> {"a", "b", "c"}.
std::vector<std::string> splitList(const std::string& list) {
  std::vector<std::string> items;
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    items.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return items;
}

// Names -> the values whose name(value) matches; false if a name is unknown.
template <class T, class Name>
bool parseNames(const std::string& list, const std::vector<T>& all, Name name, std::vector<T>* out) {
  out->clear();
  for (const std::string& item : splitList(list)) {
    auto it = std::find_if(all.begin(), all.end(), [&](T value) { return item == name(value); });
    if (it == all.end()) return false;
    out->push_back(*it);
  }
  return true;
}

int runMatrixMode(trncclComm_t comm, const Args& args) {
  MatrixOptions options;
  if (args.has("colls") && !parseNames(args.get("colls"), allColls(), collName, &options.collectives)) {
    std::fprintf(stderr, "worker: bad --colls '%s'\n", args.get("colls").c_str());
    return 2;
  }
  if (args.get("large-types") == "few") {
    options.largeTypes = fewLargeTypes();
  } else if (args.has("large-types") && !parseNames(
                                            args.get("large-types"), allTypes(),
                                            [](trncclDataType_t t) { return dataTypeName(t); }, &options.largeTypes)) {
    std::fprintf(stderr, "worker: bad --large-types '%s'\n", args.get("large-types").c_str());
    return 2;
  }
  if (args.has("counts")) {
    options.counts.clear();
    for (const std::string& count : splitList(args.get("counts"))) options.counts.push_back(std::stoul(count));
  }
  options.useStream = args.has("stream");
  options.registerBuffers = args.has("register");
  options.salt = static_cast<uint64_t>(args.getInt("salt", 7));
  return runMatrix(comm, options) == 0 ? 0 : 1;
}

int runRandomMode(trncclComm_t comm, int rank, int nranks) {
  int failures = 0;
  for (const RandomCase& c : randomCases()) {
    std::vector<char> result;
    const std::string error = randomAllReduce(comm, c, 99, &result);
    if (!error.empty()) {
      std::fprintf(stderr, "MISMATCH %s\n", error.c_str());
      return 1;  // a failed call leaves the ranks out of step
    }
    // Every rank's result bytes, gathered (in pieces of 16 KiB), must equal
    // this rank's.
    const size_t piece = 16 * 1024;
    std::vector<char> all(piece * static_cast<size_t>(nranks));
    for (size_t at = 0; at < result.size(); at += piece) {
      const size_t bytes = std::min(piece, result.size() - at);
      if (trncclAllGather(result.data() + at, all.data(), bytes, trncclUint8, comm, nullptr) != trncclSuccess) {
        std::fprintf(stderr, "MISMATCH rank %d: trncclAllGather failed: %s\n", rank, trncclGetLastError(comm));
        return 1;
      }
      for (int q = 0; q < nranks; ++q) {
        const char* theirs = all.data() + static_cast<size_t>(q) * bytes;
        for (size_t b = 0; b < bytes; ++b) {
          if (theirs[b] == result[at + b]) continue;
          std::fprintf(stderr, "MISMATCH rank %d: %s: rank %d's result differs from rank %d's at byte %zu\n", rank,
                       describeCase(c).c_str(), q, rank, at + b);
          ++failures;
          break;
        }
      }
    }
  }
  return failures == 0 ? 0 : 1;
}

// All ranks all-reduce in a loop; the victim _exits before its call number
// `dieBefore` (1-based), or with --kill-during is killed (SIGKILL) 100 ms into
// that call, which cannot have completed: the next rank after the victim
// joins it only after 300 ms. The others must get an error from that call
// within the timeout (plus slack), with a message naming the victim, and
// then abort promptly. With --stop-during the victim is stopped (SIGSTOP)
// instead: it stops reading, and the others must time out (trncclTimeout)
// naming it; a child it forked first kills it once they have.
// Every named algorithm that can run the call, in deterministic mode, gives
// the rank-order FP32 sum's bits (deterministic_sweep.h).
int runDeterministicMode(trncclComm_t comm, int rank, int nranks, const Args& args) {
  const uint64_t salt = 5;
  const SweepResult sweep =
      sweepAlgorithms(comm, splitList(args.get("algorithms")), std::stoul(args.get("count", "4099")), true, salt);
  std::string error = sweep.error.empty() ? deterministicMismatch(sweep, nranks, salt) : sweep.error;
  if (!error.empty()) {
    std::fprintf(stderr, "MISMATCH rank %d: %s\n", rank, error.c_str());
    return 1;
  }
  std::string ran;
  for (const std::string& a : sweep.ran) ran += " " + a;
  if (rank == 0) std::fprintf(stderr, "deterministic on %d ranks, ran:%s\n", nranks, ran.c_str());
  return sweep.ran.empty() ? 1 : 0;
}

int runDieMode(trncclComm_t comm, int rank, const Args& args, int timeoutMs) {
  const int victim = args.getInt("victim", 1), dieBefore = args.getInt("die-before", 3);
  const size_t count = 1 << 17;  // 512 KiB of float: many slices
  std::vector<float> send(count, 1.0f), recv(count);
  int nranks = 0;
  trncclCommCount(comm, &nranks);
  const bool stopDuring = args.has("stop-during");
  const bool killDuring = args.has("kill-during") || stopDuring;
  std::thread killer;
  for (int call = 1; call <= dieBefore; ++call) {
    if (rank == victim && call == dieBefore) {
      if (!killDuring) _exit(3);
      if (stopDuring && fork() == 0) {  // the reaper: the stopped victim cannot end itself
        std::this_thread::sleep_for(std::chrono::milliseconds(timeoutMs + 3000));
        kill(getppid(), SIGKILL);
        _exit(0);
      }
      killer = std::thread([stopDuring] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        raise(stopDuring ? SIGSTOP : SIGKILL);
      });
    }
    if (killDuring && rank == (victim + 1) % nranks && call == dieBefore)
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto start = Clock::now();
    const trncclResult_t rc = trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum, comm, nullptr);
    const long long ms = msSince(start);
    if (call < dieBefore) {
      if (rc != trncclSuccess || recv[0] != static_cast<float>(nranks) ||
          recv[count - 1] != static_cast<float>(nranks)) {
        std::fprintf(stderr, "FAIL rank %d: all-reduce %d before the death returned %d (%s), recv[0]=%g\n", rank, call,
                     rc, trncclGetLastError(comm), static_cast<double>(recv[0]));
        return 1;
      }
      continue;
    }
    const std::string message = trncclGetLastError(comm);
    std::fprintf(stderr, "rank %d: all-reduce %d after rank %d died returned %d (%s) after %lld ms: %s\n", rank, call,
                 victim, rc, trncclGetErrorString(rc), ms, message.c_str());
    int failures = 0;
    if (rc == trncclSuccess || rc == trncclInProgress) {
      std::fprintf(stderr, "FAIL rank %d: the all-reduce did not fail\n", rank);
      ++failures;
    }
    if (stopDuring && rc != trncclTimeout) {
      std::fprintf(stderr, "FAIL rank %d: waiting for a stopped rank returned %d, not trncclTimeout\n", rank, rc);
      ++failures;
    }
    if (ms > timeoutMs + 5000) {
      std::fprintf(stderr, "FAIL rank %d: the error took %lld ms, timeout is %d ms\n", rank, ms, timeoutMs);
      ++failures;
    }
    if (!std::regex_search(message, std::regex("rank " + std::to_string(victim) + "[^0-9]"))) {
      std::fprintf(stderr, "FAIL rank %d: trncclGetLastError does not name rank %d: '%s'\n", rank, victim,
                   message.c_str());
      ++failures;
    }
    trncclResult_t async = trncclSuccess;
    if (trncclCommGetAsyncError(comm, &async) != trncclSuccess || async == trncclSuccess) {
      std::fprintf(stderr, "FAIL rank %d: trncclCommGetAsyncError reports %d after the failure\n", rank, async);
      ++failures;
    }
    const auto abortStart = Clock::now();
    const trncclResult_t aborted = trncclCommAbort(comm);
    const long long abortMs = msSince(abortStart);
    if (aborted != trncclSuccess || abortMs > 5000) {
      std::fprintf(stderr, "FAIL rank %d: trncclCommAbort returned %d after %lld ms: %s\n", rank, aborted, abortMs,
                   trncclGetLastError(nullptr));
      ++failures;
    }
    return failures == 0 ? 0 : 1;
  }
  std::fprintf(stderr, "FAIL rank %d: the victim rank %d did not die\n", rank, victim);
  return 1;
}

// All ranks all-reduce in a loop; the victims are killed (SIGKILL) 100 ms
// into call `dieBefore`, which cannot complete (the rank after the first
// victim joins it only after 300 ms). The survivors must get an error from
// that call, revoke the communicator, shrink it without the victims, and run
// 100 all-reduces on the new one with exact results: rank i of the new
// communicator is the i-th survivor and contributes i + 1. With
// --unlisted-death R, rank R (not a victim) exits (status 4) instead of
// shrinking: the shrink must then fail on every other survivor, naming R.
int runShrinkMode(trncclComm_t comm, int rank, const Args& args) {
  std::vector<int> victims;
  for (const std::string& victim : splitList(args.get("victims", "1"))) victims.push_back(std::atoi(victim.c_str()));
  const int dieBefore = args.getInt("die-before", 3);
  int nranks = 0;
  trncclCommCount(comm, &nranks);
  const bool victim = std::find(victims.begin(), victims.end(), rank) != victims.end();
  const size_t count = 1 << 15;
  std::vector<float> send(count, 1.0f), recv(count);
  std::thread killer;
  for (int call = 1; call <= dieBefore; ++call) {
    if (victim && call == dieBefore)
      killer = std::thread([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        raise(SIGKILL);
      });
    if (rank == (victims[0] + 1) % nranks && call == dieBefore)
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const trncclResult_t rc = trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum, comm, nullptr);
    if (call < dieBefore && (rc != trncclSuccess || recv[0] != static_cast<float>(nranks))) {
      std::fprintf(stderr, "FAIL rank %d: all-reduce %d before the deaths returned %d (%s)\n", rank, call, rc,
                   trncclGetLastError(comm));
      return 1;
    }
    if (call == dieBefore && rc == trncclSuccess) {
      std::fprintf(stderr, "FAIL rank %d: the all-reduce the victims died in succeeded\n", rank);
      return 1;
    }
  }
  std::fprintf(stderr, "rank %d: the all-reduce failed as expected: %s\n", rank, trncclGetLastError(comm));
  const int unlisted = args.getInt("unlisted-death", -1);
  if (rank == unlisted) _exit(4);
  if (trncclCommRevoke(comm, TRNCCL_REVOKE_DEFAULT) != trncclSuccess) {
    std::fprintf(stderr, "FAIL rank %d: trncclCommRevoke: %s\n", rank, trncclGetLastError(comm));
    return 1;
  }
  trncclComm_t shrunk = nullptr;
  const trncclResult_t shrink =
      trncclCommShrink(comm, victims.data(), static_cast<int>(victims.size()), &shrunk, nullptr, TRNCCL_SHRINK_DEFAULT);
  if (unlisted >= 0) {
    const std::string message = trncclGetLastError(comm);
    std::fprintf(stderr, "rank %d: the shrink with rank %d dead but not excluded returned %d: %s\n", rank, unlisted,
                 shrink, message.c_str());
    const bool named = std::regex_search(message, std::regex("rank " + std::to_string(unlisted) + "[^0-9]"));
    const bool failed = shrink != trncclSuccess && named && shrunk == nullptr;
    trncclCommDestroy(comm);
    return failed ? 0 : 1;
  }
  if (shrink != trncclSuccess) {
    std::fprintf(stderr, "FAIL rank %d: trncclCommShrink: %s\n", rank, trncclGetLastError(comm));
    return 1;
  }
  int survivors = 0, newRank = -1, expectedRank = 0;
  trncclCommCount(shrunk, &survivors);
  trncclCommUserRank(shrunk, &newRank);
  for (int r = 0; r < rank; ++r) expectedRank += std::find(victims.begin(), victims.end(), r) == victims.end();
  int failures = 0;
  if (survivors != nranks - static_cast<int>(victims.size()) || newRank != expectedRank) {
    std::fprintf(stderr, "FAIL rank %d: the shrunk communicator has %d ranks and this is rank %d; expected %d and %d\n",
                 rank, survivors, newRank, nranks - static_cast<int>(victims.size()), expectedRank);
    ++failures;
  }
  const float expected = static_cast<float>(survivors * (survivors + 1) / 2);
  for (int i = 0; i < 100 && failures == 0; ++i) {
    std::fill(send.begin(), send.end(), static_cast<float>(newRank + 1));
    std::fill(recv.begin(), recv.end(), -1.0f);
    const trncclResult_t rc =
        trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum, shrunk, nullptr);
    const bool exact = std::all_of(recv.begin(), recv.end(), [&](float x) { return x == expected; });
    if (rc != trncclSuccess || !exact) {
      std::fprintf(stderr, "FAIL rank %d: all-reduce %d on the shrunk communicator returned %d (%s), recv[0]=%g\n",
                   rank, i, rc, trncclGetLastError(shrunk), static_cast<double>(recv[0]));
      ++failures;
    }
  }
  if (trncclCommDestroy(shrunk) != trncclSuccess || trncclCommDestroy(comm) != trncclSuccess) {
    std::fprintf(stderr, "FAIL rank %d: destroying: %s\n", rank, trncclGetLastError(nullptr));
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  trncclUniqueId id;
  const int nranks = args.getInt("nranks", 0), rank = args.getInt("rank", -1);
  if (!uniqueIdFromHex(args.get("id"), &id) || nranks < 1 || rank < 0 || rank >= nranks) {
    std::fprintf(stderr, "worker: usage: --id HEX --nranks N --rank R --mode matrix|die|random|shrink|soak\n");
    return 2;
  }
  const std::string mode = args.get("mode", "matrix");
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  const int timeoutMs = args.getInt("timeout-ms", 0);
  if (timeoutMs > 0) config.timeoutMs = timeoutMs;
  trncclComm_t comm = nullptr;
  if (trncclCommInitRankConfig(&comm, nranks, id, rank, &config) != trncclSuccess) {
    std::fprintf(stderr, "FAIL rank %d/%d: trncclCommInitRankConfig: %s\n", rank, nranks, trncclGetLastError(nullptr));
    return 2;
  }
  int status = 2;
  if (mode == "matrix")
    status = runMatrixMode(comm, args);
  else if (mode == "random")
    status = runRandomMode(comm, rank, nranks);
  else if (mode == "deterministic")
    status = runDeterministicMode(comm, rank, nranks, args);
  else if (mode == "die")
    return runDieMode(comm, rank, args, timeoutMs);  // the comm is aborted there
  else if (mode == "shrink")
    return runShrinkMode(comm, rank, args);  // both communicators are destroyed there
  else if (mode == "soak")                   // the communicator is destroyed or aborted there
    return runSoakMode(comm, rank, nranks, args.getInt("seconds", 3), timeoutMs, args.get("ready-dir", ""));
  if (status == 0 && trncclCommFinalize(comm) != trncclSuccess) {
    std::fprintf(stderr, "FAIL rank %d: trncclCommFinalize: %s\n", rank, trncclGetLastError(comm));
    status = 1;
  }
  if (trncclCommDestroy(comm) != trncclSuccess) {
    std::fprintf(stderr, "FAIL rank %d: trncclCommDestroy: %s\n", rank, trncclGetLastError(nullptr));
    status = 1;
  }
  return status;
}
