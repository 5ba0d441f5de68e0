// trnccl-nccom-test: nccom-test's command line read into trnccl-perf's
// options, its table, and the tool's output read by a parser written for
// nccom-test's output.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "logic/nccom_options.h"
#include "logic/nccom_table.h"
#include "logic/usage_error.h"

using namespace trnccl::perf;

namespace {

Options parse(std::vector<std::string> args) { return parse_nccom_args(args); }

}  // namespace

TEST_CASE("nccom options: sizes in kb, mb and gb are binary units", "[perf][nccom]") {
  CHECK(parse_nccom_size("512") == 512);
  CHECK(parse_nccom_size("1kb") == 1024);
  CHECK(parse_nccom_size("64MB") == (size_t{64} << 20));
  CHECK(parse_nccom_size("1gb") == (size_t{1} << 30));
  CHECK(parse_nccom_size("2g") == (size_t{2} << 30));
  CHECK_THROWS_AS(parse_nccom_size("1tb"), UsageError);
  CHECK_THROWS_AS(parse_nccom_size("kb"), UsageError);
}

TEST_CASE("nccom options: nccom-test's flags and operation names", "[perf][nccom]") {
  const Options o = parse({"-r", "32", "--minbytes", "1kb", "--maxbytes", "1gb", "--stepfactor", "4", "--datatype",
                           "fp32", "-n", "7", "-w", "2", "-c", "--show-algorithm", "allr"});
  CHECK(o.threads == 32);
  CHECK(o.min_bytes == 1024);
  CHECK(o.max_bytes == (size_t{1} << 30));
  CHECK(o.step_factor == 4);
  CHECK(o.types == std::vector<trncclDataType_t>{trncclFloat32});
  CHECK(o.iters == 7);
  CHECK(o.warmup_iters == 2);
  CHECK(o.check);
  CHECK(o.show_algorithm);
  CHECK(o.collective == Collective::AllReduce);
  CHECK(o.style == TableStyle::nccom);
  CHECK(o.per_call_median);
  CHECK_FALSE(o.in_place);
  CHECK(parse({"-r", "2", "allg"}).collective == Collective::AllGather);
  CHECK(parse({"-r", "2", "redsct"}).collective == Collective::ReduceScatter);
  CHECK(parse({"-r", "2", "alltoall"}).collective == Collective::AllToAll);
  CHECK(parse({"-r", "2", "sendrecv"}).collective == Collective::SendRecv);
}

TEST_CASE("nccom options: nccom-test's defaults are 32 MB of uint8, unchecked", "[perf][nccom]") {
  const Options o = parse({"-r", "2", "all_reduce"});
  CHECK(o.min_bytes == (size_t{32} << 20));
  CHECK(o.max_bytes == (size_t{32} << 20));
  CHECK(o.types == std::vector<trncclDataType_t>{trncclUint8});
  CHECK_FALSE(o.check);
}

TEST_CASE("nccom options: what it cannot use is refused naming it", "[perf][nccom]") {
  CHECK_THROWS_WITH(parse({"allr"}), Catch::Contains("-r"));
  CHECK_THROWS_WITH(parse({"-r", "2"}), Catch::Contains("no operation"));
  CHECK_THROWS_WITH(parse({"-r", "2", "allreduce2"}), Catch::Contains("unknown operation 'allreduce2'"));
  CHECK(parse({"-r", "4", "-N", "2", "allr"}).instances == 2);
  CHECK_FALSE(parse({"-r", "2", "allr"}).gib_bandwidth);
  CHECK(parse({"-r", "2", "--bandwidth-unit", "gib", "allr"}).gib_bandwidth);
  CHECK_FALSE(parse({"-r", "2", "--bandwidth-unit", "gb", "allr"}).gib_bandwidth);
  CHECK_THROWS_WITH(parse({"-r", "2", "--bandwidth-unit", "GiB/s", "allr"}), Catch::Contains("--bandwidth-unit"));
  CHECK_THROWS_WITH(parse({"-r", "3", "-N", "2", "allr"}), Catch::Contains("-N 2") && Catch::Contains("-r 3"));
  CHECK_THROWS_WITH(parse({"-r", "0", "allr"}), Catch::Contains("-r"));
}

TEST_CASE("nccom table: nccom-test's columns, decimal or GiB-based bandwidths and its average line", "[perf][nccom]") {
  // nccom-test's documented example: 32 MB of uint8 all-reduced on 2 ranks in 768 us.
  Row row{};
  row.size_bytes = 33554432;
  row.count = 33554432;
  row.type = "uint8";
  const double algbw_gb = 33554432 / 768e-6 / 1e9;  // nccl-tests' unit, as trnccl-perf measures it
  row.out_of_place = {768, algbw_gb, algbw_gb, std::nullopt};
  CHECK(nccom_header(false) == "     size(B)    count(elems)        type    time(us)    algbw(GB/s)    busbw(GB/s)\n");
  // Decimal GB/s, as nccom-test prints since about mid-2025: 33554432 / 768 us = 43.69e9 bytes/s.
  CHECK(nccom_row(row, false) ==
        "    33554432        33554432       uint8         768          43.69          43.69\n");
  CHECK(nccom_footer(algbw_gb) == "Avg bus bandwidth:\t43.6907GB/s\n");
  // GiB/s, as it printed before (its documented example's 40.69).
  CHECK(nccom_row(row, false, true) ==
        "    33554432        33554432       uint8         768          40.69          40.69\n");
  CHECK(nccom_footer(algbw_gb, true) == "Avg bus bandwidth:\t40.6901GB/s\n");
  row.type = "float";
  row.count = 4194304;  // a rank's share in nccl-tests' count: nccom-test counts the whole size
  CHECK_THAT(nccom_row(row, true), Catch::StartsWith("    33554432         8388608        fp32"));
  CHECK(nccom_type_name("bfloat16") == "bf16");
  CHECK(nccom_type_name("int8") == "int8");
}

#ifdef TRNCCL_NCCOM_TEST_PATH
#include "tests/command_run.h"

namespace {

// A reader of nccom-test's output as a script written for it would be: the
// header names the columns, each row is six numbers and a type, and the last
// line is the average bus bandwidth.
struct NccomRow {
  size_t size, count;
  std::string type;
  double time_us, algbw, busbw;
};

std::vector<NccomRow> readNccomOutput(const std::string& text, double& average) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const std::regex header(R"(^\s*size\(B\)\s+count\(elems\)\s+type\s+time\(us\)\s+algbw\(GB/s\)\s+busbw\(GB/s\)\s*$)");
  REQUIRE(std::regex_match(line, header));
  const std::regex data(R"(^\s*(\d+)\s+(\d+)\s+(\w+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$)");
  const std::regex footer(R"(^Avg bus bandwidth:\s+([\d.]+)GB/s$)");
  std::vector<NccomRow> rows;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, data)) {
      rows.push_back({std::stoul(m[1]), std::stoul(m[2]), m[3], std::stod(m[4]), std::stod(m[5]), std::stod(m[6])});
    } else {
      REQUIRE(std::regex_match(line, m, footer));
      average = std::stod(m[1]);
    }
  }
  return rows;
}

}  // namespace

TEST_CASE("trnccl-nccom-test -r 2 --minbytes 1kb --stepfactor 4 --datatype fp32 allr reads as nccom-test's output",
          "[perf][nccom]") {
  const std::string json_path = "/tmp/trnccl-nccom-test-" + std::to_string(::getpid()) + ".json";
  const auto run = trnccl::test::runCommand(std::string(TRNCCL_NCCOM_TEST_PATH) +
                                            " -r 2 --minbytes 1kb --maxbytes 1mb --stepfactor 4 --datatype fp32"
                                            " -n 5 -w 1 -c --report-to-json-file " +
                                            json_path + " allr");
  INFO(run.output);
  REQUIRE(run.status == 0);
  double average = -1;
  const std::vector<NccomRow> rows = readNccomOutput(run.output, average);
  REQUIRE(rows.size() == 6);  // 1 KiB, 4 KiB, ..., 1 MiB
  double sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i].size == (size_t{1024} << (2 * i)));
    CHECK(rows[i].count == rows[i].size / 4);
    CHECK(rows[i].type == "fp32");
    CHECK(rows[i].time_us > 0);
    // Decimal GB per second from the printed time (rounded to 1 us); busbw = algbw x 2(n-1)/n = algbw on 2 ranks.
    const double algbw = rows[i].size / (rows[i].time_us * 1e-6) / 1e9;
    CHECK(std::abs(rows[i].algbw - algbw) <= 0.01 + algbw * (1.0 / rows[i].time_us));
    CHECK(rows[i].busbw == Approx(rows[i].algbw).margin(0.011));
    sum += rows[i].busbw;
  }
  CHECK(average == Approx(sum / rows.size()).margin(0.01));
  // The JSON report's average is the table's, over the out-of-place runs measured (GB/s there).
  std::ifstream json_file(json_path);
  const auto report = nlohmann::json::parse(json_file);
  std::remove(json_path.c_str());
  CHECK(report["tool"] == "trnccl-nccom-test");
  CHECK(report["summary"]["avg_busbw_gbps"].get<double>() == Approx(average).margin(1e-3));
}

TEST_CASE("trnccl-nccom-test -N 2 spreads the ranks over two emulated instances", "[perf][nccom]") {
  // hierarchical runs only on ranks of several instances: forcing it fails on one.
  const auto run = trnccl::test::runCommand("env TRNCCL_ALGO=hierarchical " + std::string(TRNCCL_NCCOM_TEST_PATH) +
                                            " -r 4 -N 2 -b 64kb -e 64kb -n 3 -w 1 -c --show-algorithm allr");
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, Catch::Contains("hierarchical") && Catch::Contains("Avg bus bandwidth:"));
}
#endif
