#include "topology/host.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <memory>

#include "base/error.h"
#include "base/log.h"

namespace trnccl::topo {
namespace {

struct BitmapFree {
  void operator()(hwloc_bitmap_s* bitmap) const { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

Bitmap newBitmap() {
  Bitmap bitmap(hwloc_bitmap_alloc());
  if (!bitmap) throwError(trncclSystemError, "hwloc: out of memory for a bitmap");
  return bitmap;
}

// hwloc's view of this host, loaded once per process. It is only read
// afterwards, which hwloc allows from any number of threads at once.
class HostTopology {
 public:
  static hwloc_topology_t get() {
    static const HostTopology host;  // a constructor that throws is retried by the next call
    return host.topology_;
  }

 private:
  HostTopology() {
    if (hwloc_topology_init(&topology_) != 0) throwSystemError("hwloc_topology_init", errno);
    // The whole host, also the cores a cgroup keeps from us: the shape is the
    // machine's. Binding intersects with the allowed cores itself.
    hwloc_topology_set_flags(topology_, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    if (hwloc_topology_load(topology_) != 0) {
      const int err = errno;
      hwloc_topology_destroy(topology_);
      throwSystemError("hwloc could not read this host's topology (hwloc_topology_load)", err);
    }
  }
  ~HostTopology() { hwloc_topology_destroy(topology_); }

  hwloc_topology_t topology_ = nullptr;
};

int countOf(hwloc_topology_t topology, hwloc_obj_type_t type) { return hwloc_get_nbobjs_by_type(topology, type); }

std::string cacheName(hwloc_obj_t cacheObject) {
  const auto& cache = cacheObject->attr->cache;
  const char* kind = cache.type == HWLOC_OBJ_CACHE_DATA ? "d" : cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "i" : "";
  return "L" + std::to_string(cache.depth) + kind;
}

// "32 KiB", "1280 KiB", "32 MiB": the largest unit that divides the size.
std::string sizeText(size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  size_t unit = 0;
  while (unit + 1 < std::size(units) && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + units[unit];
}

std::string counted(int count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// The NUMA node sharing the most cores with `near`; null on a single-NUMA
// host, or when `near` shares no core with any node.
hwloc_obj_t nearestNode(hwloc_topology_t topology, const cpu_set_t& near) {
  if (countOf(topology, HWLOC_OBJ_NUMANODE) < 2) return nullptr;
  Bitmap cores = newBitmap(), shared = newBitmap();
  if (hwloc_cpuset_from_glibc_sched_affinity(topology, cores.get(), &near, sizeof near) != 0) return nullptr;
  hwloc_obj_t nearest = nullptr;
  int mostShared = 0;
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, nullptr); node != nullptr;
       node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node)) {
    hwloc_bitmap_and(shared.get(), node->cpuset, cores.get());
    const int count = hwloc_bitmap_weight(shared.get());
    if (count > mostShared) {
      mostShared = count;
      nearest = node;
    }
  }
  return nearest;
}

}  // namespace

std::string HostShape::describe() const {
  std::string text = "host: " + counted(packages, "package") + ", " + counted(numaNodes, "NUMA node") + ", " +
                     counted(cores, "core") + ", " + counted(pus, "PU");
  for (const auto& [name, bytes] : caches) text += ", " + name + " " + sizeText(bytes);
  return text;
}

HostShape discoverHost() {
  hwloc_topology_t topology = HostTopology::get();
  HostShape shape;
  shape.pus = countOf(topology, HWLOC_OBJ_PU);
  // Some virtual machines expose no package or core information: a host
  // still has one package, and then each PU stands for a core.
  shape.packages = std::max(1, countOf(topology, HWLOC_OBJ_PACKAGE));
  shape.numaNodes = std::max(1, countOf(topology, HWLOC_OBJ_NUMANODE));
  const int cores = countOf(topology, HWLOC_OBJ_CORE);
  shape.cores = cores > 0 ? cores : shape.pus;
  for (hwloc_obj_type_t level :
       {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE}) {
    const hwloc_obj_t cache = hwloc_get_obj_by_type(topology, level, 0);
    if (cache != nullptr && cache->attr != nullptr)
      shape.caches.emplace_back(cacheName(cache), cache->attr->cache.size);
  }
  return shape;
}

void bindThreadNear(const cpu_set_t& near) {
  try {
    hwloc_topology_t topology = HostTopology::get();
    const hwloc_obj_t node = nearestNode(topology, near);
    if (node == nullptr) return;
    Bitmap cores = newBitmap();
    hwloc_bitmap_and(cores.get(), node->cpuset, hwloc_topology_get_allowed_cpuset(topology));
    if (hwloc_bitmap_iszero(cores.get())) return;
    if (hwloc_set_cpubind(topology, cores.get(), HWLOC_CPUBIND_THREAD) != 0)
      TRNCCL_INFO("hwloc: cannot bind a thread to NUMA node %u: %s", node->os_index, std::strerror(errno));
  } catch (const Error& e) {
    TRNCCL_INFO("thread not bound near its rank's cores: %s", e.what());
  }
}

void placeMemoryNear(void* addr, size_t bytes, const cpu_set_t& near) {
  if (addr == nullptr || bytes == 0) return;
  try {
    hwloc_topology_t topology = HostTopology::get();
    const hwloc_obj_t node = nearestNode(topology, near);
    if (node == nullptr) return;
    if (hwloc_set_area_membind(topology, addr, bytes, node->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET) != 0)
      TRNCCL_INFO("hwloc: cannot place %zu bytes on NUMA node %u: %s", bytes, node->os_index, std::strerror(errno));
  } catch (const Error& e) {
    TRNCCL_INFO("memory not placed near its rank's cores: %s", e.what());
  }
}

}  // namespace trnccl::topo
