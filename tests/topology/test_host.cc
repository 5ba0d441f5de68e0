// hwloc host discovery and placement (src/topology/host.h), which the
// shared-memory transport uses to place each rank's segment near its cores.
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "topology/host.h"

using trnccl::topo::HostShape;

namespace {

cpu_set_t ownCores() {
  cpu_set_t cores;
  REQUIRE(sched_getaffinity(0, sizeof cores, &cores) == 0);
  return cores;
}

}  // namespace

TEST_CASE("host: describe() writes counts and cache sizes in one line", "[host]") {
  const HostShape shape{1, 1, 2, 2, {{"L1d", 32 << 10}, {"L2", 512 << 10}, {"L3", 32 << 20}}};
  CHECK(shape.describe() == "host: 1 package, 1 NUMA node, 2 cores, 2 PUs, L1d 32 KiB, L2 512 KiB, L3 32 MiB");
  const HostShape odd{2, 4, 1, 1, {{"L2", 1280 << 10}, {"L3", 1000}}};
  CHECK(odd.describe() == "host: 2 packages, 4 NUMA nodes, 1 core, 1 PU, L2 1280 KiB, L3 1000 B");
}

TEST_CASE("host: discoverHost() sees every online PU and at least one of everything", "[host]") {
  const HostShape shape = trnccl::topo::discoverHost();
  INFO(shape.describe());
  CHECK(shape.pus == sysconf(_SC_NPROCESSORS_ONLN));
  CHECK(shape.packages >= 1);
  CHECK(shape.numaNodes >= 1);
  CHECK(shape.cores >= 1);
  CHECK(shape.cores <= shape.pus);
  CHECK(shape.packages <= shape.cores);
  for (const auto& [name, bytes] : shape.caches) {
    CHECK(name.starts_with("L"));
    CHECK(bytes > 0);
  }
  const std::string line = shape.describe();
  CHECK(line.starts_with("host: "));
  CHECK(line.find(std::to_string(shape.pus) + (shape.pus == 1 ? " PU" : " PUs")) != std::string::npos);
  CHECK(line.find(std::to_string(shape.cores) + (shape.cores == 1 ? " core" : " cores")) != std::string::npos);
  for (const auto& [name, bytes] : shape.caches) CHECK(line.find(name + " ") != std::string::npos);
}

TEST_CASE("host: discoverHost() gives every thread the same answer", "[host]") {
  std::vector<std::string> lines(4);
  std::vector<std::thread> threads;
  for (std::string& line : lines) threads.emplace_back([&line] { line = trnccl::topo::discoverHost().describe(); });
  for (std::thread& t : threads) t.join();
  for (const std::string& line : lines) CHECK(line == lines[0]);
}

TEST_CASE("host: binding a thread near its cores keeps it on some of them", "[host]") {
  const cpu_set_t near = ownCores();
  cpu_set_t after;
  CPU_ZERO(&after);
  // On a thread of its own: the test's thread keeps its affinity.
  std::thread([&] {
    trnccl::topo::bindThreadNear(near);
    sched_getaffinity(0, sizeof after, &after);
  }).join();
  cpu_set_t shared;
  CPU_AND(&shared, &after, &near);
  CHECK(CPU_COUNT(&shared) > 0);
  if (trnccl::topo::discoverHost().numaNodes == 1) CHECK(CPU_EQUAL(&after, &near));
}

TEST_CASE("host: memory placed near a rank's cores stays usable", "[host]") {
  constexpr size_t kBytes = 1 << 20;
  void* memory = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(memory != MAP_FAILED);
  trnccl::topo::placeMemoryNear(memory, kBytes, ownCores());
  trnccl::topo::placeMemoryNear(nullptr, 0, ownCores());
  std::memset(memory, 0x5a, kBytes);
  const auto* bytes = static_cast<const unsigned char*>(memory);
  CHECK(bytes[0] == 0x5a);
  CHECK(bytes[kBytes - 1] == 0x5a);
  munmap(memory, kBytes);
}
