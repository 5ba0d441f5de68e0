// Simulated device (HBM) memory. Each allocation is its own memfd, mapped
// shared and page-aligned, so another process on this host can map the same
// pages (given the fd) and a NeuronLink-model transport can write straight
// into a peer's device memory.
#pragma once

#include <cstddef>
#include <optional>

namespace trnccl::device {

struct Allocation {
  void* base = nullptr;
  size_t size = 0;  // bytes mapped (the request rounded up to whole pages)
  int fd = -1;      // memfd backing the allocation
};

void* allocate(size_t size);  // throws Error (InvalidArgument for size 0, SystemError)
void release(void* ptr);      // throws Error(InvalidArgument) unless ptr came from allocate
// The allocation containing [ptr, ptr + bytes), if the whole range is device memory.
std::optional<Allocation> find(const void* ptr, size_t bytes = 1);

}  // namespace trnccl::device
