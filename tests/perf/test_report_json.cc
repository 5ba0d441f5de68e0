#include <catch2/catch.hpp>

#include "logic/report_json.h"

using namespace trnccl::perf;

TEST_CASE("version_string splits trnccl's version code", "[perf][json]") {
  CHECK(version_string(100) == "0.1.0");
  CHECK(version_string(21903) == "2.19.3");
}

TEST_CASE("report_json holds the metadata and both placements of every row", "[perf][json]") {
  Options options = parse_args({"reduce", "-r", "1", "-d", "all", "-m", "1"});
  const RunInfo info{2, "mpirun", 100, "shm + tcp (2 sockets per peer)", {{"TRNCCL_ALGO", "ring"}}};
  std::vector<Row> rows{Row{64,
                            16,
                            "float",
                            "sum",
                            1,
                            {1.5, 0.04, 0.04, 0},
                            {2.5, 0.03, 0.03, 0},
                            PeerMeasurement{3.0, 0.02, 2.0},
                            "ring",
                            1.25},
                        Row{32,
                            16,
                            "half",
                            "sum",
                            1,
                            {1.0, 0.03, 0.03, 2},
                            {1.0, 0.03, 0.03, std::nullopt},
                            std::nullopt,
                            "-",
                            std::nullopt}};
  const nlohmann::json j = report_json(options, info, rows, 2, 0.0325);

  CHECK(j["collective"] == "reduce");
  CHECK(j["nranks"] == 2);
  CHECK(j["launch"] == "mpirun");
  CHECK(j["trnccl_version"] == "0.1.0");
  CHECK(j["transport"] == "shm + tcp (2 sockets per peer)");
  CHECK(j["env"]["TRNCCL_ALGO"] == "ring");
  CHECK(j["options"]["root"] == 1);
  CHECK(j["options"]["datatypes"].size() == 12);
  REQUIRE(j["rows"].size() == 2);
  CHECK(j["rows"][0]["root"] == 1);
  CHECK(j["rows"][0]["out_of_place"]["time_us"] == 1.5);
  CHECK(j["rows"][0]["in_place"]["busbw_gbps"] == 0.03);
  CHECK(j["rows"][0]["mpi"]["ratio"] == 2.0);
  CHECK(j["rows"][0]["algorithm"] == "ring");
  CHECK(j["rows"][0]["predicted_us"] == 1.25);
  CHECK(j["rows"][1]["predicted_us"].is_null());
  CHECK(j["rows"][1]["mpi"].is_null());  // "n/a": no MPI type for half
  CHECK(j["rows"][1]["out_of_place"]["wrong"] == 2);
  CHECK(j["rows"][1]["in_place"]["wrong"].is_null());
  CHECK(j["summary"]["out_of_bounds"] == 2);
  CHECK(j["summary"]["ok"] == false);
}

TEST_CASE("report_json leaves the MPI columns out without peer mode", "[perf][json]") {
  const Options options = parse_args({"all_gather"});
  const Row row{64, 16, "float", "none", std::nullopt, {1, 1, 1, 0}, {1, 1, 1, 0}, std::nullopt, "-", std::nullopt};
  const nlohmann::json j = report_json(options, RunInfo{1, "threads", 100, "none", {}}, {row}, 0, 1.0);
  CHECK_FALSE(j["rows"][0].contains("mpi"));
  CHECK(j["rows"][0]["root"].is_null());
  CHECK(j["summary"]["ok"] == true);
  CHECK(j["tool"] == "trnccl-perf");
}

TEST_CASE("report_json names trnccl-nccom-test as the tool of its runs", "[perf][json][nccom]") {
  Options options = parse_args({"all_reduce"});
  options.style = TableStyle::nccom;
  const Row row{64,           16,  "float",     "sum", std::nullopt, {1, 1, 1, 0}, {0, 0, 0, std::nullopt},
                std::nullopt, "-", std::nullopt};
  CHECK(report_json(options, RunInfo{2, "threads", 100, "shm", {}}, {row}, 0, 1.0)["tool"] == "trnccl-nccom-test");
}
