#include <catch2/catch.hpp>
#include <vector>

#include "device/device.h"

using trnccl::device::Device;

TEST_CASE("DMA engine copies and accounts the modelled time", "[device][engines]") {
  Device dev(trnccl::device::trainium());
  std::vector<char> src(1 << 20, 7), dst(1 << 20, 0);
  dev.dma().copy(dst.data(), src.data(), src.size());
  CHECK(dst == src);
  auto s = dev.dma().stats();
  CHECK(s.calls == 1);
  CHECK(s.bytes == 2u << 20);
  // 1 MiB read + written through 820 GiB/s HBM bounds it (DMA alone: 1 TB/s).
  const double hbm = 2.0 * (1 << 20) / (820.0 * 1024 * 1024 * 1024);
  CHECK(s.modelledSeconds == Approx(hbm).epsilon(1e-6));
  dev.dma().reset();
  CHECK(dev.dma().stats().calls == 0);
}

TEST_CASE("vector engine reduces and accounts the modelled time", "[device][engines]") {
  Device dev(trnccl::device::trainium2());
  const size_t n = 4096;
  std::vector<float> a(n, 1.5f), b(n, 2.0f), out(n, 0);
  const void* srcs[] = {a.data(), b.data()};
  trnccl::device::kernels::ReduceArgs args;
  args.dst = out.data();
  args.srcs = srcs;
  args.nsrcs = 2;
  args.count = n;
  args.type = trncclFloat32;
  args.op = trncclSum;
  dev.vector().reduce(args);
  for (float v : out) REQUIRE(v == 3.5f);
  auto s = dev.vector().stats();
  CHECK(s.bytes == 3 * n * sizeof(float));
  const double traffic = 3.0 * n * sizeof(float) / 2.9e12;    // HBM-bound on Trainium2
  CHECK(s.modelledSeconds == Approx(traffic).epsilon(1e-4));  // accounted in whole picoseconds
}

TEST_CASE("device models are looked up by generation", "[device][model]") {
  CHECK(trnccl::device::deviceModel("trainium").hbmBytes == 32.0 * (1ull << 30));
  CHECK(trnccl::device::deviceModel("trainium2").dmaBytesPerSec == 3.5e12);
  CHECK_THROWS_WITH(trnccl::device::deviceModel("tpu"), Catch::Contains("'tpu'"));
}
