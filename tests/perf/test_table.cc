#include <catch2/catch.hpp>

#include "logic/table.h"

using namespace trnccl::perf;

namespace {

Row sample_row() {
  return Row{1024,
             256,
             "float",
             "sum",
             std::nullopt,
             Measurement{12.34, 0.08, 0.16, 0},
             Measurement{123.456, 0.01, 0.02, 3},
             std::nullopt,
             "torus2d",
             45.6};
}

}  // namespace

TEST_CASE("format_time_us drops decimals as nccl-tests does", "[perf][table]") {
  CHECK(format_time_us(12.34) == "  12.34");
  CHECK(format_time_us(123.456) == "  123.5");
  CHECK(format_time_us(12345.6) == "  12346");
  CHECK(format_time_us(1234567.0) == "1234567");
}

TEST_CASE("table_row lays out nccl-tests' columns", "[perf][table]") {
  CHECK(table_row(sample_row(), false) ==
        "        1024           256     float     sum    none"
        "    12.34    0.08    0.16      0"
        "    123.5    0.01    0.02      3"
        "     torus2d    45.60\n");
}

TEST_CASE("table_row shows a root, unchecked results and the MPI peer", "[perf][table]") {
  Row row = sample_row();
  row.redop = "none";
  row.root = 3;
  row.out_of_place.wrong.reset();
  row.in_place.wrong.reset();
  row.mpi = PeerMeasurement{24.68, 0.08, 2.0};
  CHECK(table_row(row, true) ==
        "        1024           256     float    none       3"
        "    12.34    0.08    0.16    N/A"
        "    123.5    0.01    0.02    N/A"
        "     torus2d    45.60"
        "     24.68       0.08    2.00\n");
  row.mpi.reset();
  CHECK_THAT(table_row(row, true), Catch::EndsWith("       n/a        n/a     n/a\n"));
  row.algorithm = "-";
  row.predicted_us.reset();
  CHECK_THAT(table_row(row, false), Catch::EndsWith("    N/A           -      n/a\n"));
}

TEST_CASE("table_header names nccl-tests' columns, and the peer's when asked", "[perf][table]") {
  const std::string plain = table_header(false);
  CHECK_THAT(plain, Catch::Contains("out-of-place") && Catch::Contains("in-place"));
  CHECK_THAT(plain, Catch::Contains("#       size         count      type   redop    root"
                                    "     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
                                    "        algo    model\n"));
  CHECK_THAT(plain, !Catch::Contains("mpi"));
  CHECK_THAT(table_header(true), Catch::Contains("  mpi time  mpi busbw   ratio\n"));
}

TEST_CASE("table_footer reports wrong values and the average bus bandwidth", "[perf][table]") {
  CHECK(table_footer(0, 1.5) == "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.5\n#\n");
  CHECK_THAT(table_footer(7, 0.25), Catch::StartsWith("# Out of bounds values : 7 FAILED\n"));
}

TEST_CASE("table_preamble says how the sizes step", "[perf][table]") {
  Options options;
  options.min_bytes = 8;
  options.max_bytes = 64;
  options.step_factor = 2;
  CHECK_THAT(
      table_preamble(options, 2, "threads", "0.1.0"),
      Catch::Contains("trnccl 0.1.0, 2 ranks (threads)") && Catch::Contains("minBytes 8 maxBytes 64 step: 2(factor)"));
  options.step_factor = 1;
  options.step_bytes = 4;
  CHECK_THAT(table_preamble(options, 2, "mpirun", "0.1.0"), Catch::Contains("step: 4(bytes)"));
}
