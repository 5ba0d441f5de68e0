#include "two_hosts.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace trnccl::test {
namespace {

void run(const std::string& command) {
  if (std::system((command + " 2>&1").c_str()) != 0) throw std::runtime_error("failed: " + command);
}

// Moves the calling thread into the named network namespace.
void join(const std::string& name) {
  const int target = open(("/var/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC);
  const bool ok = target >= 0 && setns(target, CLONE_NEWNET) == 0;
  if (target >= 0) close(target);
  if (!ok) throw std::runtime_error("cannot enter network namespace " + name);
}

// Switches the calling thread into a network namespace and back.
class InNamespace {
 public:
  explicit InNamespace(const std::string& name) : home_(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) {
    if (home_ < 0) throw std::runtime_error("cannot open this thread's network namespace");
    try {
      join(name);
    } catch (...) {
      close(home_);
      throw;
    }
  }
  ~InNamespace() {
    setns(home_, CLONE_NEWNET);
    close(home_);
  }

 private:
  int home_;
};

}  // namespace

TwoHosts::TwoHosts(int links) {
  const std::string tag = std::to_string(getpid());
  names_ = {"trncclA" + tag, "trncclB" + tag};
  for (int l = 0; l < links; ++l) {
    const std::string suffix = l == 0 ? "" : "r" + std::to_string(l);  // 15 characters at most
    links_.push_back({"vethA" + tag + suffix, "vethB" + tag + suffix});
  }
  try {
    for (const std::string& n : names_) run("ip netns add " + n);
    for (int h = 0; h < 2; ++h) run("ip -n " + names_[h] + " link set lo up");
    for (int l = 0; l < links; ++l) {
      const auto& veth = links_[static_cast<size_t>(l)];
      run("ip link add " + veth[0] + " type veth peer name " + veth[1]);
      for (int h = 0; h < 2; ++h) {
        const std::string address = "10.77." + std::to_string(l) + "." + std::to_string(h + 1) + "/24";
        run("ip link set " + veth[h] + " netns " + names_[h]);
        run("ip -n " + names_[h] + " addr add " + address + " dev " + veth[h]);
        run("ip -n " + names_[h] + " link set " + veth[h] + " up");
      }
    }
  } catch (...) {
    remove();
    throw;
  }
}

TwoHosts::~TwoHosts() { remove(); }

void TwoHosts::remove() {
  // Deleting a namespace deletes the veth end in it, and with it the pair.
  for (const std::string& n : names_) std::system(("ip netns delete " + n + " 2>/dev/null").c_str());
}

void TwoHosts::enter(int h) const { join(names_[h]); }

trncclUniqueId TwoHosts::uniqueIdOnHost0() const {
  InNamespace host0(names_[0]);
  trncclUniqueId id;
  if (trncclGetUniqueId(&id) != trncclSuccess)
    throw std::runtime_error(std::string("trncclGetUniqueId in ") + names_[0] + ": " + trncclGetLastError(nullptr));
  return id;
}

}  // namespace trnccl::test
