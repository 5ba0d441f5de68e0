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

// Switches the calling thread into a network namespace and back.
class InNamespace {
 public:
  explicit InNamespace(const std::string& name) : home_(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) {
    const int target = open(("/var/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    const bool ok = home_ >= 0 && target >= 0 && setns(target, CLONE_NEWNET) == 0;
    if (target >= 0) close(target);
    if (!ok) throw std::runtime_error("cannot enter network namespace " + name);
  }
  ~InNamespace() {
    setns(home_, CLONE_NEWNET);
    close(home_);
  }

 private:
  int home_;
};

}  // namespace

TwoHosts::TwoHosts() {
  const std::string tag = std::to_string(getpid());
  names_ = {"trncclA" + tag, "trncclB" + tag};
  const std::string veth[] = {"vethA" + tag, "vethB" + tag};
  const char* address[] = {"10.77.0.1/24", "10.77.0.2/24"};
  try {
    for (const std::string& n : names_) run("ip netns add " + n);
    run("ip link add " + veth[0] + " type veth peer name " + veth[1]);
    for (int h = 0; h < 2; ++h) {
      run("ip link set " + veth[h] + " netns " + names_[h]);
      run("ip -n " + names_[h] + " addr add " + address[h] + " dev " + veth[h]);
      run("ip -n " + names_[h] + " link set " + veth[h] + " up");
      run("ip -n " + names_[h] + " link set lo up");
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

trncclUniqueId TwoHosts::uniqueIdOnHost0() const {
  InNamespace host0(names_[0]);
  trncclUniqueId id;
  if (trncclGetUniqueId(&id) != trncclSuccess)
    throw std::runtime_error(std::string("trncclGetUniqueId in ") + names_[0] + ": " + trncclGetLastError(nullptr));
  return id;
}

}  // namespace trnccl::test
