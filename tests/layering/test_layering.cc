#include <unistd.h>
#include <catch2/catch.hpp>

#include <fstream>

#include "include_rules.h"

namespace fs = std::filesystem;
using trnccl::test::layeringViolations;
using trnccl::test::readLayerRules;

TEST_CASE("No file of src or transports includes a layer its layer does not name", "[layering]") {
  const auto layers = readLayerRules(TRNCCL_LAYER_RULES);
  REQUIRE(layers.size() >= 10);
  const auto violations = layeringViolations(layers, TRNCCL_SOURCE_DIR);
  for (const std::string& violation : violations) UNSCOPED_INFO(violation);
  CHECK(violations.empty());
}

TEST_CASE("An upward, a sideways and an unlayered file are each named with file and line", "[layering]") {
  const fs::path root = fs::temp_directory_path() / ("trnccl-layering-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto write = [&](const std::string& file, const std::string& text) {
    fs::create_directories((root / file).parent_path());
    std::ofstream(root / file) << text;
  };
  write("src/algorithms/ring.cc",
        "#include \"algorithms/ring.h\"\n#include <vector>\n#include \"core/communicator.h\"\n");
  write("transports/shm/fifo.cc", "#include \"transports/transport.h\"\n#include \"transports/tcp/frame.h\"\n");
  write("src/orphan/x.h", "#pragma once\n");
  const std::vector<trnccl::test::Layer> layers = {
      {"src/core", "trnccl_core", {"core/", "algorithms/"}},
      {"src/algorithms", "trnccl_algorithms", {"algorithms/"}},
      {"transports/shm", "trnccl_transport_shm", {"transports/shm/", "transports/transport.h"}},
      {"transports/tcp", "trnccl_transport_tcp", {"transports/tcp/", "transports/transport.h"}}};

  const auto violations = layeringViolations(layers, root);
  fs::remove_all(root);
  REQUIRE(violations.size() == 3);
  CHECK(violations[0].starts_with("src/algorithms/ring.cc:3: trnccl_algorithms includes core/communicator.h"));
  CHECK(violations[1].starts_with("src/orphan/x.h:1: belongs to no layer"));
  CHECK(violations[2].starts_with("transports/shm/fifo.cc:2: trnccl_transport_shm includes transports/tcp/frame.h"));
}

TEST_CASE("An include through .. is named, even one that starts at a root the layer may use", "[layering]") {
  const fs::path root = fs::temp_directory_path() / ("trnccl-layering-dots-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "src/algorithms");
  fs::create_directories(root / "transports");
  std::ofstream(root / "src/algorithms/ring.cc")
      << "#include \"algorithms/ring.h\"\n#include \"../core/communicator.h\"\n"
         "#include \"algorithms/../core/communicator.h\"\n#include \"ring..h\"\n";
  const std::vector<trnccl::test::Layer> layers = {{"src/core", "trnccl_core", {"core/", "algorithms/"}},
                                                   {"src/algorithms", "trnccl_algorithms", {"algorithms/"}}};

  const auto violations = layeringViolations(layers, root);
  fs::remove_all(root);
  REQUIRE(violations.size() == 2);
  CHECK(
      violations[0].starts_with("src/algorithms/ring.cc:2: trnccl_algorithms includes ../core/communicator.h, a "
                                "path through '..'"));
  CHECK(
      violations[1].starts_with("src/algorithms/ring.cc:3: trnccl_algorithms includes "
                                "algorithms/../core/communicator.h, a path through '..'"));
}
