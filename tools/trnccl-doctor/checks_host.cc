// Checks of this host: /dev/shm and cross-memory attach.
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "base/error.h"
#include "base/peer_process.h"
#include "tools/trnccl-doctor/checks.h"
#include "transports/shm/config.h"
#include "transports/shm/layout.h"
#include "transports/shm/segment.h"

namespace trnccl::doctor {
namespace {

std::string bytesText(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  for (; value >= 1024 && unit + 1 < std::size(units); ++unit) value /= 1024;
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

// The segment each of `localRanks` ranks makes, with every FIFO committed
// (the most it can hold): the shm transport's own layout.
uint64_t segmentBytes(int localRanks, int nranks, const transport::shm::Config& config) {
  using namespace transport::shm;
  const FifoGeometry fifo{config.fifoBytes / kSlotBytes, kSlotBytes};
  const SegmentLayout layout{nranks, static_cast<uint32_t>(localRanks - 1), fifo};
  return layout.bytes().value_or(UINT64_MAX);
}

// Makes and removes a small segment the way the shm transport does.
std::string segmentProblem() {
  using namespace transport::shm;
  const std::string name = segmentName("doctor-" + std::to_string(getpid()), "probe");
  try {
    Segment probe = Segment::create(name, 4096, "trnccl-doctor's probe");
    Segment::unlink(name);
  } catch (const Error& e) {
    Segment::unlink(name);
    return e.what();
  }
  return {};
}

}  // namespace

std::optional<uint64_t> freeBytesInDevShm() {
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) != 0) return std::nullopt;
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

CheckResult checkSharedMemory(std::optional<uint64_t> freeBytes, int localRanks, int nranks) {
  const std::string fixSize =
      "enlarge /dev/shm (mount -o remount,size=<bytes> /dev/shm; in docker: --shm-size=<bytes>), or lower "
      "TRNCCL_SHM_FIFO_BYTES";
  transport::shm::Config config;
  try {
    config = transport::shm::readConfig();
  } catch (const Error& e) {
    return problem("shm", e.what(), "correct or unset the variable");
  }
  if (std::string failure = segmentProblem(); !failure.empty())
    return problem("shm", "cannot make a segment: " + failure,
                   "/dev/shm must be a writable tmpfs (mount -t tmpfs -o size=<bytes> tmpfs /dev/shm; in docker: "
                   "--shm-size=<bytes>)");
  if (!freeBytes) return problem("shm", "statvfs(/dev/shm) fails", fixSize);
  const uint64_t free = *freeBytes;
  const uint64_t perRank = segmentBytes(localRanks, nranks, config);
  const uint64_t needed = perRank > UINT64_MAX / static_cast<uint64_t>(localRanks)
                              ? UINT64_MAX
                              : perRank * static_cast<uint64_t>(localRanks);
  const std::string figures = "/dev/shm has " + bytesText(free) + " free; the " + std::to_string(localRanks) +
                              (localRanks == 1 ? " rank on this host needs" : " ranks on this host need") + " up to " +
                              bytesText(needed) + " (" + bytesText(perRank) +
                              " each with TRNCCL_SHM_FIFO_BYTES=" + std::to_string(config.fifoBytes) + ")";
  if (free < needed) return problem("shm", figures, fixSize);
  return ok("shm", figures + "; segments can be made");
}

CheckResult checkCrossMemoryAttach(const std::string& scopeFile) {
  bool fifoOnly = false;
  try {
    fifoOnly = transport::shm::readConfig().copy == transport::shm::CopyPath::Fifo;
  } catch (const Error&) {
    // The settings check names the variable; attach is checked as by default.
  }
  if (fifoOnly) return ok("cma", "not used (TRNCCL_SHM_COPY=fifo copies through /dev/shm)");
  const std::string fix =
      "allow it (sysctl -w kernel.yama.ptrace_scope=1; in docker: --cap-add SYS_PTRACE), or set "
      "TRNCCL_SHM_COPY=fifo (two copies through /dev/shm, slower for large messages)";
  std::string scopeText = "no Yama ptrace scope";
  if (std::ifstream file(scopeFile); file) {
    int scope = -1;
    file >> scope;
    scopeText = "ptrace scope " + std::to_string(scope);
    // 0 and 1 suit trnccl: each rank lets its peers attach (PR_SET_PTRACER).
    // 2 needs CAP_SYS_PTRACE (the probe below tells), 3 forbids it.
    if (scope == 3 || scope < 0)
      return problem("cma", scopeFile + " says " + std::to_string(scope) + ": no process may read another's memory",
                     fix);
  }
  allowPeerMemoryReads();
  static volatile const uint64_t pattern = 0x5452444f43544f52;  // read by the child below
  const pid_t child = fork();
  if (child < 0) return problem("cma", std::string("fork: ") + std::strerror(errno), fix);
  if (child == 0) {
    uint64_t copy = 0;
    const int rc = PeerProcess(getppid(), true).copyFrom(&copy, reinterpret_cast<uint64_t>(&pattern), sizeof copy);
    _exit(rc != 0 ? rc : copy == pattern ? 0 : 255);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (rc != 0)
    return problem("cma",
                   scopeText + "; process_vm_readv from a peer failed: " +
                       (rc > 0 && rc < 255 ? std::strerror(rc) : "wrong bytes or crashed"),
                   fix);
  return ok("cma", scopeText + "; process_vm_readv from a peer works");
}

}  // namespace trnccl::doctor
