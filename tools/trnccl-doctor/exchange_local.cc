// -n N: the parent forks N ranks and relays their exchanges. Each rank writes
// its text to the parent ([8-byte length][bytes]); once all N have, the
// parent writes every text back to every rank in rank order.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>

#include "base/error.h"
#include "tools/trnccl-doctor/exchange.h"

namespace trnccl::doctor {
namespace {

// false at end of file before the first byte; throws on a partial read.
bool readAll(int fd, void* data, size_t bytes) {
  auto* out = static_cast<char*>(data);
  for (size_t done = 0; done < bytes;) {
    const ssize_t got = read(fd, out + done, bytes - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throwSystemError("read from a doctor rank's pipe", errno);
    if (got == 0) {
      if (done == 0) return false;
      throwError(trncclRemoteError, "a doctor rank's pipe closed mid-message");
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

void writeAll(int fd, const void* data, size_t bytes) {
  const auto* in = static_cast<const char*>(data);
  for (size_t done = 0; done < bytes;) {
    const ssize_t put = write(fd, in + done, bytes - done);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) throwSystemError("write to a doctor rank's pipe", errno);
    done += static_cast<size_t>(put);
  }
}

void writeText(int fd, const std::string& text) {
  const uint64_t length = text.size();
  writeAll(fd, &length, sizeof length);
  writeAll(fd, text.data(), text.size());
}

bool readText(int fd, std::string& text) {
  uint64_t length = 0;
  if (!readAll(fd, &length, sizeof length)) return false;
  text.assign(length, '\0');
  readAll(fd, text.data(), text.size());
  return true;
}

class PipeExchange final : public Exchange {
 public:
  PipeExchange(int rank, int size, int toParent, int fromParent)
      : rank_(rank), size_(size), toParent_(toParent), fromParent_(fromParent) {}
  ~PipeExchange() override {
    close(toParent_);
    close(fromParent_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> allGather(const std::string& mine) override {
    writeText(toParent_, mine);
    std::vector<std::string> all(static_cast<size_t>(size_));
    for (std::string& text : all)
      if (!readText(fromParent_, text)) throwError(trncclRemoteError, "the doctor's parent went away");
    return all;
  }

 private:
  int rank_, size_, toParent_, fromParent_;
};

struct RankPipes {
  pid_t pid = -1;
  int fromRank = -1;  // parent reads
  int toRank = -1;    // parent writes
};

// Relays rounds until every rank has closed its pipe (a rank that fails ends
// the relay for all: the others then learn their parent went away).
void relay(std::vector<RankPipes>& ranks) {
  while (true) {
    std::vector<std::string> texts(ranks.size());
    for (size_t r = 0; r < ranks.size(); ++r)
      if (!readText(ranks[r].fromRank, texts[r])) return;
    for (const RankPipes& rank : ranks)
      for (const std::string& text : texts) writeText(rank.toRank, text);
  }
}

}  // namespace

std::unique_ptr<Exchange> forkLocalRanks(int nranks, int* status) {
  std::vector<RankPipes> ranks(static_cast<size_t>(nranks));
  std::signal(SIGPIPE, SIG_IGN);  // a rank that died: EPIPE ends the relay
  for (int r = 0; r < nranks; ++r) {
    int up[2], down[2];
    if (pipe(up) != 0 || pipe(down) != 0) throwSystemError("pipe", errno);
    const pid_t pid = fork();
    if (pid < 0) throwSystemError("fork", errno);
    if (pid == 0) {
      close(up[0]);
      close(down[1]);
      for (int earlier = 0; earlier < r; ++earlier) {  // siblings' pipes are the parent's
        close(ranks[static_cast<size_t>(earlier)].fromRank);
        close(ranks[static_cast<size_t>(earlier)].toRank);
      }
      return std::make_unique<PipeExchange>(r, nranks, up[1], down[0]);
    }
    close(up[1]);
    close(down[0]);
    ranks[static_cast<size_t>(r)] = {pid, up[0], down[1]};
  }
  try {
    relay(ranks);
  } catch (const Error&) {
    // A rank died mid-message: its own exit status tells.
  }
  *status = 0;
  for (RankPipes& rank : ranks) {
    close(rank.fromRank);
    close(rank.toRank);
    int rankStatus = 0;
    while (waitpid(rank.pid, &rankStatus, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(rankStatus) ? WEXITSTATUS(rankStatus) : 128 + WTERMSIG(rankStatus);
    *status = std::max(*status, code);
  }
  return nullptr;
}

}  // namespace trnccl::doctor
