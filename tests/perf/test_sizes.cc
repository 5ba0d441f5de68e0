#include <catch2/catch.hpp>

#include "logic/usage_error.h"
#include "nccl_tests/sizes.h"

using trnccl::perf::parse_size;
using trnccl::perf::size_sweep;
using trnccl::perf::UsageError;

TEST_CASE("parse_size reads bytes with binary K, M and G suffixes in either case", "[perf][sizes]") {
  CHECK(parse_size("8") == 8);
  CHECK(parse_size("0") == 0);
  CHECK(parse_size("1K") == 1024);
  CHECK(parse_size("3k") == 3 * 1024);
  CHECK(parse_size("64M") == 64ull * 1024 * 1024);
  CHECK(parse_size("2g") == 2ull * 1024 * 1024 * 1024);
}

TEST_CASE("parse_size rejects anything but digits and one suffix", "[perf][sizes]") {
  for (const char* bad : {"", "K", "abc", "1X", "1KB", "-1", "+4", " 4", "4 ", "1.5M", "0x10"}) {
    INFO("input '" << bad << "'");
    CHECK_THROWS_AS(parse_size(bad), UsageError);
  }
}

TEST_CASE("parse_size rejects sizes that overflow", "[perf][sizes]") {
  CHECK_THROWS_WITH(parse_size("99999999999999999999"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_size("17179869184G"), Catch::Contains("too large"));  // 2^34 G = 2^64
}

TEST_CASE("size_sweep multiplies by the step factor up to maxbytes", "[perf][sizes]") {
  CHECK(size_sweep(8, 64 << 20, 8, 1 << 20) == std::vector<size_t>{8, 64, 512, 4096, 32768, 262144, 2097152, 16777216});
  CHECK(size_sweep(1024, 4096, 2, 0) == std::vector<size_t>{1024, 2048, 4096});
}

TEST_CASE("size_sweep adds stepbytes when the factor is 1", "[perf][sizes]") {
  CHECK(size_sweep(1024, 4096, 1, 1024) == std::vector<size_t>{1024, 2048, 3072, 4096});
  CHECK(size_sweep(0, 10, 1, 4) == std::vector<size_t>{0, 4, 8});
  CHECK(size_sweep(32 << 20, 32 << 20, 1, 1 << 20) == std::vector<size_t>{32 << 20});
}

TEST_CASE("size_sweep stops before overflowing", "[perf][sizes]") {
  const size_t max = std::numeric_limits<size_t>::max();
  CHECK(size_sweep(max - 1, max, 1, 4) == std::vector<size_t>{max - 1});
  CHECK(size_sweep(size_t{1} << 63, max, 2, 0) == std::vector<size_t>{size_t{1} << 63});
}

TEST_CASE("size_sweep refuses sweeps that are empty or never end", "[perf][sizes]") {
  CHECK_THROWS_WITH(size_sweep(2048, 1024, 2, 0), Catch::Contains("larger than maxbytes"));
  CHECK_THROWS_WITH(size_sweep(0, 1024, 2, 0), Catch::Contains("never grows"));
  CHECK_THROWS_WITH(size_sweep(8, 1024, 1, 0), Catch::Contains("stepbytes"));
  CHECK_THROWS_WITH(size_sweep(8, 1024, 0, 8), Catch::Contains("stepfactor"));
}
