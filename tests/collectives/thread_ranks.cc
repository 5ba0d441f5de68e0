#include "thread_ranks.h"

#include <thread>

namespace trnccl::test {

std::vector<int> inThreads(int nranks, const std::function<int(int rank)>& body) {
  std::vector<int> results(static_cast<size_t>(nranks), -1);
  std::vector<std::thread> threads;
  for (int r = 0; r < nranks; ++r) threads.emplace_back([&, r] { results[static_cast<size_t>(r)] = body(r); });
  for (auto& t : threads) t.join();
  return results;
}

ThreadJob runOnThreads(int nranks, const std::function<int(trncclComm_t comm, int rank)>& body) {
  ThreadJob job;
  std::vector<trncclComm_t> comms(static_cast<size_t>(nranks), nullptr);
  job.init = trncclCommInitAll(comms.data(), nranks, nullptr);
  if (job.init != trncclSuccess) {
    job.initError = trncclGetLastError(nullptr);
    return job;
  }
  job.results = inThreads(nranks, [&](int r) { return body(comms[static_cast<size_t>(r)], r); });
  for (trncclComm_t c : comms) {
    const trncclResult_t rc = trncclCommDestroy(c);
    if (job.destroy == trncclSuccess) job.destroy = rc;
  }
  return job;
}

ThreadJob runOnThreadsWithConfig(int nranks, const trncclConfig_t& config,
                                 const std::function<int(trncclComm_t comm, int rank)>& body) {
  ThreadJob job;
  trncclUniqueId id;
  job.init = trncclGetUniqueId(&id);
  if (job.init != trncclSuccess) {
    job.initError = std::string("trncclGetUniqueId: ") + trncclGetLastError(nullptr);
    return job;
  }
  std::vector<trncclComm_t> comms(static_cast<size_t>(nranks), nullptr);
  std::vector<trncclResult_t> inits(static_cast<size_t>(nranks), trncclSuccess);
  std::vector<std::string> errors(static_cast<size_t>(nranks));
  inThreads(nranks, [&](int r) {
    trncclConfig_t mine = config;
    const auto i = static_cast<size_t>(r);
    inits[i] = trncclCommInitRankConfig(&comms[i], nranks, id, r, &mine);
    if (inits[i] != trncclSuccess) errors[i] = trncclGetLastError(nullptr);
    return 0;
  });
  for (size_t i = 0; i < inits.size(); ++i) {
    if (inits[i] == trncclSuccess) continue;
    job.init = inits[i];
    job.initError = "rank " + std::to_string(i) + ": " + errors[i];
  }
  if (job.init == trncclSuccess)
    job.results = inThreads(nranks, [&](int r) { return body(comms[static_cast<size_t>(r)], r); });
  for (trncclComm_t c : comms) {
    if (c == nullptr) continue;
    const trncclResult_t rc = trncclCommDestroy(c);
    if (job.destroy == trncclSuccess) job.destroy = rc;
  }
  return job;
}

bool FailureLog::fail(int rank, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  lines_.push_back("rank " + std::to_string(rank) + ": " + what);
  return false;
}

bool FailureLog::expect(int rank, const char* call, trncclResult_t rc, trncclResult_t want, trncclComm_t comm) {
  if (rc == want) return true;
  return fail(rank, std::string(call) + " returned " + std::to_string(rc) + " (" + trncclGetErrorString(rc) +
                        "), expected " + std::to_string(want) + ": " + trncclGetLastError(comm));
}

std::string FailureLog::text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const std::string& line : lines_) out += line + "\n";
  return out;
}

size_t FailureLog::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_.size();
}

std::string describeResults(const std::vector<int>& results) {
  std::string out;
  for (size_t r = 0; r < results.size(); ++r)
    out += (r ? ", rank " : "rank ") + std::to_string(r) + ": " + std::to_string(results[r]);
  return out;
}

}  // namespace trnccl::test
