// --rendezvous DIR: ranks started by any launcher (or by hand on each host)
// exchange through files in a directory they all see, as PyTorch's FileStore
// does: round k's text of rank r is DIR/round-k-rank-r, written under a
// temporary name and renamed, so a reader never sees half of it.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/error.h"
#include "base/rank_list.h"
#include "tools/trnccl-doctor/exchange.h"

namespace trnccl::doctor {
namespace {

namespace fs = std::filesystem;

class FileExchange final : public Exchange {
 public:
  FileExchange(std::string directory, int rank, int size, std::chrono::milliseconds wait)
      : directory_(std::move(directory)), rank_(rank), size_(size), wait_(wait) {
    if (!fs::is_directory(directory_))
      throwInvalidArgument("--rendezvous", "names '" + directory_ + "', which is not a directory");
    if (fs::exists(fileOf(0, rank_)))
      throwInvalidArgument(
          "--rendezvous", "names '" + directory_ + "', which holds an earlier run's files: give each run an empty one");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> allGather(const std::string& mine) override {
    const std::string file = fileOf(round_, rank_);
    std::ofstream(file + ".tmp", std::ios::binary) << mine;
    fs::rename(file + ".tmp", file);

    const auto giveUp = std::chrono::steady_clock::now() + wait_;
    std::vector<std::string> all(static_cast<size_t>(size_));
    std::vector<bool> arrived(all.size());
    auto pause = std::chrono::milliseconds(1);
    for (int missing = size_; missing > 0;) {
      std::vector<int> absent;
      for (int r = 0; r < size_; ++r) {
        if (arrived[static_cast<size_t>(r)]) continue;
        std::ifstream in(fileOf(round_, r), std::ios::binary);
        if (!in) {
          absent.push_back(r);
          continue;
        }
        std::ostringstream text;
        text << in.rdbuf();
        all[static_cast<size_t>(r)] = text.str();
        arrived[static_cast<size_t>(r)] = true;
        --missing;
      }
      if (missing == 0) break;
      if (std::chrono::steady_clock::now() > giveUp)
        throwError(trncclTimeout, describeRanks(absent) + " never wrote to " + directory_ + " within " +
                                      std::to_string(wait_.count()) + " ms");
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(100));
    }
    ++round_;
    return all;
  }

 private:
  std::string fileOf(int round, int rank) const {
    return directory_ + "/round-" + std::to_string(round) + "-rank-" + std::to_string(rank);
  }

  std::string directory_;
  int rank_, size_;
  std::chrono::milliseconds wait_;
  int round_ = 0;
};

}  // namespace

std::unique_ptr<Exchange> fileExchange(const std::string& directory, int rank, int nranks,
                                       std::chrono::milliseconds wait) {
  return std::make_unique<FileExchange>(directory, rank, nranks, wait);
}

}  // namespace trnccl::doctor
