// The full matrix on 8 ranks. Threads and processes run in one test case so
// that no two 8-rank jobs share the (2-core) machine.
#include <catch2/catch.hpp>

#include "checks.h"

using namespace trnccl::test;

TEST_CASE("matrix: 8 ranks as threads, then as processes", "[matrix][8ranks]") {
  SECTION("threads") { checkThreadMatrix(8, MatrixOptions{}); }
  SECTION("processes") { checkProcessMatrix(8, {}); }
}
