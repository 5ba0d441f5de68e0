// loadTopology: finds a topology file by name or path, reads it and applies
// the ":N" instance count.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "base/error.h"
#include "base/settings.h"
#include "topology/data_files.h"
#include "topology/runtime_era.h"
#include "topology/topology.h"

namespace trnccl::topo {

namespace {

namespace fs = std::filesystem;

TRNCCL_SETTING(kTopoDir, TRNCCL_TOPO_DIR, settings::text("directory", "unset"), "searched first for topology names",
               settings::Scope::Rank);
TRNCCL_SETTING(kRuntimeEra, TRNCCL_RUNTIME_ERA, settings::text("`2023`, `2025`, `2026`", "the newest"),
               "the Neuron runtime era whose launch, per-message and EFA proxy costs the machine model takes (tuner, "
               "emulation, trnccl-sim without `--runtime`)");

// Where shipped files are looked for, in order; directories that do not
// exist are skipped.
std::vector<fs::path> searchDirs() {
  std::vector<fs::path> dirs;
  if (auto dir = settings::readText(kTopoDir)) dirs.emplace_back(*dir);
  // Beside the library as installed, wherever the installed tree was put (a
  // Debian package under /usr, a prefix moved elsewhere): this code is in
  // libtrnccl.so in the library folder, or linked statically into a program
  // in the program folder.
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&searchDirs), &self) != 0 && self.dli_fname != nullptr) {
    const fs::path folder = fs::path(self.dli_fname).parent_path();
    dirs.push_back(folder / TRNCCL_TOPO_FROM_LIBDIR);
    dirs.push_back(folder / TRNCCL_TOPO_FROM_BINDIR);
  }
  dirs.emplace_back(TRNCCL_TOPO_INSTALL_DIR);
  dirs.emplace_back(TRNCCL_TOPO_SOURCE_DIR);
  return dirs;
}

// Topology files are a few KiB; anything past this is not one (/dev/zero,
// a log file named by mistake) and is refused instead of read forever.
constexpr size_t kMaxTopologyFileBytes = 16 << 20;

std::string readFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  std::string text;
  int err = fd < 0 ? errno : 0;
  struct stat st;
  if (err == 0 && ::fstat(fd, &st) != 0) err = errno;
  if (err == 0 && !S_ISREG(st.st_mode)) {
    ::close(fd);
    throwError(trncclInvalidArgument, "topology file '" + path + "' is not a regular file");
  }
  for (char buf[65536]; err == 0 && text.size() <= kMaxTopologyFileBytes;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  if (fd >= 0) ::close(fd);
  if (err != 0) {
    throwError(trncclInvalidArgument, "cannot read topology file '" + path + "': " + std::strerror(err));
  }
  if (text.size() > kMaxTopologyFileBytes)
    throwError(trncclInvalidArgument, "topology file '" + path + "' is larger than " +
                                          std::to_string(kMaxTopologyFileBytes >> 20) + " MiB: not a topology file");
  return text;
}

bool isPath(const std::string& target) { return target.find('/') != std::string::npos || target.ends_with(".json"); }

std::string findShipped(const std::string& name) {
  for (const fs::path& dir : searchDirs()) {
    std::error_code ec;
    const fs::path file = dir / (name + ".json");
    if (fs::is_regular_file(file, ec)) return file.string();
  }
  std::string names;
  for (const std::string& n : shippedTopologyNames()) names += (names.empty() ? "" : ", ") + n;
  throwError(trncclInvalidArgument, "unknown topology '" + name + "' (shipped: " +
                                        (names.empty() ? "none found" : names) + "; or give a path to a .json file)");
}

}  // namespace

Topology loadTopology(const std::string& spec) {
  // "name", "path", "name:N", "path:N"; a ':' inside a directory name is no suffix.
  std::string target = spec;
  std::optional<int> instances;
  const size_t colon = spec.rfind(':');
  if (colon != std::string::npos && spec.find('/', colon) == std::string::npos) {
    target = spec.substr(0, colon);
    const std::string count = spec.substr(colon + 1);
    int n = 0;
    const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (error != std::errc() || end != count.data() + count.size() || n < 1 || n > kMaxNodes) {
      throwError(trncclInvalidArgument, "topology '" + spec + "': ':" + count +
                                            "' is not an instance count (expected ':N' with N from 1 to " +
                                            std::to_string(kMaxNodes) + ")");
    }
    instances = n;
  }
  if (target.empty()) throwError(trncclInvalidArgument, "topology '" + spec + "' names no topology");
  const std::string file = isPath(target) ? target : findShipped(target);
  Topology t = parseTopology(readFile(file), file);
  // A file that models the chips' engines but not the runtime's costs runs
  // under a runtime era (its launch, per-message and proxy costs):
  // $TRNCCL_RUNTIME_ERA's, else the newest.
  if (t.engine.dmaBytesPerSec > 0 && t.engine.sources[0].empty() && t.engine.sources[2].empty())
    applyRuntimeEra(loadRuntimeEra(settings::readText(kRuntimeEra).value_or("")), t);
  if (instances) {
    if (*instances > 1 && t.nics.empty()) {
      throwError(trncclInvalidArgument, "topology '" + spec + "': " + file + " has no EFA NICs to join " +
                                            std::to_string(*instances) + " instances");
    }
    t.nodes = *instances;
  }
  return t;
}

std::vector<std::string> shippedTopologyNames() {
  std::set<std::string> names;
  for (const fs::path& dir : searchDirs()) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".json") names.insert(it->path().stem().string());
    }
  }
  return {names.begin(), names.end()};
}

std::string shippedDataPath(const std::string& relative) {
  for (const fs::path& dir : searchDirs()) {
    std::error_code ec;
    const fs::path file = dir / relative;
    if (fs::is_regular_file(file, ec)) return file.string();
  }
  return {};
}

std::string readDataFile(const std::string& path) { return readFile(path); }

}  // namespace trnccl::topo
