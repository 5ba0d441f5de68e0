// The benchmark's buffers: kMaxSources sources and one destination of the
// largest size, allocated and filled once. Every source byte is one of
// 0x38..0x3B, 0xB8..0xBB, which makes every element of every type a normal
// number of moderate size (|x| in [2^-15, 2] for the 8-, 16- and 32-bit
// floats), so no op overflows or meets denormals, even in products of 8.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <vector>

namespace trnccl::bench {

inline constexpr int kMaxSources = 8;
inline constexpr size_t kLargestBuffer = size_t{64} << 20;

class BenchBuffers {
 public:
  static BenchBuffers& instance();
  // Where every buffer starts: a multiple of `bytes` (a power of two, at
  // least 64, the default). Set before the first instance(). The buffers'
  // placement relative to each other moved 8-source sums up to 3x while one
  // load instruction served every source (docs/kernels.md); this and
  // setSpacing measure it.
  static void setAlignment(size_t bytes);
  // Instead, all buffers in one 2 MiB-aligned allocation, buffer j (the
  // sources, then the destination) at j x (kLargestBuffer + bytes) from its
  // start: TRNCCL_KERNEL_BENCH_SPACING, which fixes every buffer's
  // distance from the others (`bytes` a multiple of 64).
  static void setSpacing(size_t bytes);
  // Instead, each buffer in its own 2 MiB-aligned allocation, buffer j at
  // j x `bytes` past its start: TRNCCL_KERNEL_BENCH_OFFSET, the placement a
  // framework's tensors have (64-byte or 4 KiB aligned, each at its own
  // offset within a page or a 64 KiB block; `bytes` a multiple of 64).
  static void setOffset(size_t bytes);

  const void* const* sources() const { return sources_.data(); }
  void* destination() { return destination_; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  using Allocation = std::unique_ptr<std::byte, Free>;

  BenchBuffers();
  // Where buffer j of kMaxSources + 1 starts, in storage_ (see setSpacing).
  std::byte* place(int j);

  std::vector<Allocation> storage_;
  std::vector<const void*> sources_;
  std::byte* destination_;
};

}  // namespace trnccl::bench
