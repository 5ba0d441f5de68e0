// Large messages at the library's default slice size (TRNCCL_SLICE_BYTES
// unset): every collective with ~1 MiB per rank and per block, above the
// transport's eager limit, on threads and on processes.
#include <catch2/catch.hpp>

#include "checks.h"

using namespace trnccl::test;

namespace {

constexpr size_t kHugeCount = 300007;  // float32: 1.2 MB; int8: 300 KB

MatrixOptions hugeOptions() {
  MatrixOptions options;
  options.counts = {kHugeCount};
  options.largeTypes = {trncclFloat32, trncclInt8};
  options.salt = 21;
  options.maxReports = 4;
  return options;
}

}  // namespace

TEST_CASE("large messages at the default slice size: 2 ranks as threads", "[large]") {
  checkThreadMatrix(2, hugeOptions(), nullptr, "");
}

TEST_CASE("large messages at the default slice size: 3 ranks as threads", "[large]") {
  checkThreadMatrix(3, hugeOptions(), nullptr, "");
}

TEST_CASE("large messages at the default slice size: 3 ranks as processes", "[large][processes]") {
  checkProcessMatrix(3, {"--counts", std::to_string(kHugeCount), "--large-types", "float,int8", "--salt", "21"}, "");
}

// Registered trncclMemAlloc inputs are read in place by the peer processes
// (the matrix alternates device and host memory between cases and ranks).
TEST_CASE("large messages at the default slice size: 3 ranks as processes with registered buffers",
          "[large][processes][register]") {
  checkProcessMatrix(
      3, {"--counts", std::to_string(kHugeCount), "--large-types", "float,int8", "--salt", "22", "--register"}, "");
}
