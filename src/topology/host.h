// The host under the ranks, as hwloc sees it: its shape (for logs and
// tuning), and placement of threads and memory near a rank's cores on hosts
// with several NUMA nodes. Placement is advice: it never fails the caller.
#pragma once

#include <sched.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace trnccl::topo {

struct HostShape {
  int packages = 0;
  int numaNodes = 0;
  int cores = 0;
  int pus = 0;  // processing units (hardware threads), online ones, allowed to us or not
  // Per cache level, the size of its first instance: {"L1d", 32768}, {"L2", ...}.
  std::vector<std::pair<std::string, size_t>> caches;
  // "host: 1 package, 1 NUMA node, 2 cores, 2 PUs, L1d 32 KiB, L2 512 KiB, L3 32 MiB"
  std::string describe() const;
};

// Loads hwloc's topology once per process (thread-safe) and summarises it.
// Throws Error(trncclSystemError) if hwloc cannot read the host.
HostShape discoverHost();

// Binds the calling thread to the cores of the NUMA node nearest `near` (a
// rank's allowed cores). No-op on a single-NUMA host or where hwloc cannot.
void bindThreadNear(const cpu_set_t& near);

// Asks that the pages of [addr, addr + bytes) be placed on the NUMA node
// nearest `near`. Pages allocated afterwards follow the request (for a
// shared-memory mapping, every process's); call it before touching them.
// No-op on a single-NUMA host or where the system does not support it.
void placeMemoryNear(void* addr, size_t bytes, const cpu_set_t& near);

}  // namespace trnccl::topo
