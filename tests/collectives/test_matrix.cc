// The full matrix (every collective x type x op x count x root x layout) on
// 1, 2, 3 and 4 ranks, as threads and as processes; and once on streams.
#include <catch2/catch.hpp>

#include "checks.h"

using namespace trnccl::test;

TEST_CASE("matrix: 1 rank as a thread", "[matrix][threads]") { checkThreadMatrix(1, MatrixOptions{}); }
TEST_CASE("matrix: 2 ranks as threads", "[matrix][threads]") { checkThreadMatrix(2, MatrixOptions{}); }
TEST_CASE("matrix: 3 ranks as threads", "[matrix][threads]") { checkThreadMatrix(3, MatrixOptions{}); }
TEST_CASE("matrix: 4 ranks as threads", "[matrix][threads]") { checkThreadMatrix(4, MatrixOptions{}); }

TEST_CASE("matrix: 1 rank as a process", "[matrix][processes]") { checkProcessMatrix(1, {}); }
TEST_CASE("matrix: 2 ranks as processes", "[matrix][processes]") { checkProcessMatrix(2, {}); }
TEST_CASE("matrix: 3 ranks as processes", "[matrix][processes]") { checkProcessMatrix(3, {}); }
TEST_CASE("matrix: 4 ranks as processes", "[matrix][processes]") { checkProcessMatrix(4, {}); }

TEST_CASE("matrix on streams: 3 ranks as threads, each call then trncclStreamSynchronize", "[matrix][streams]") {
  MatrixOptions options;
  options.useStream = true;
  options.salt = 3;
  checkThreadMatrix(3, options);
}
