// Directed links of a job and the routes between NeuronCores over them.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "base/error.h"
#include "topology/fabric.h"

using trnccl::topo::CoreLocation;
using trnccl::topo::Fabric;
using trnccl::topo::loadTopology;
using trnccl::topo::Route;

namespace {

std::vector<std::string> names(const Fabric& f, const Route& r) {
  std::vector<std::string> out;
  for (int i : r.links) out.push_back(f.link(i).name);
  return out;
}

// A shipped topology with only its links: the routes' shapes, without the
// collective engine's DMA links in between.
trnccl::topo::Topology linksOnly(const std::string& spec) {
  trnccl::topo::Topology t = loadTopology(spec);
  t.engine = {};
  return t;
}

// Hops between two chips of a 4x4 torus: per dimension the shorter way round.
int torusDistance4x4(int a, int b) {
  const int dx = std::abs(a % 4 - b % 4), dy = std::abs(a / 4 - b / 4);
  return std::min(dx, 4 - dx) + std::min(dy, 4 - dy);
}

}  // namespace

TEST_CASE(
    "a fabric has both directions of each NeuronLink, one on-chip link per chip, two per NIC and a DMA "
    "link per chip, per instance",
    "[topology][fabric]") {
  const auto t = loadTopology("trn1.32xlarge:2");
  const Fabric f(t);
  CHECK(f.linkCount() == 2 * (2 * 32 + 16 + 2 * 8 + 16));
  CHECK(Fabric(linksOnly("trn1.32xlarge:2")).linkCount() == 2 * (2 * 32 + 16 + 2 * 8));
  std::set<std::string> all;
  for (int i = 0; i < f.linkCount(); ++i) all.insert(f.link(i).name);
  CHECK(static_cast<int>(all.size()) == f.linkCount());  // names are unique
  for (const char* name : {"node0 chip0->chip1", "node0 chip1->chip0", "node1 chip12->chip0", "node1 chip15 cores",
                           "node0 efa7 out", "node1 efa0 in", "node0 chip3 dma", "node1 chip15 dma"}) {
    CHECK(all.count(name) == 1);
  }
}

TEST_CASE("routes within a 4x4 torus take the Manhattan torus distance, dimension by dimension", "[topology][fabric]") {
  const auto t = linksOnly("trn1.32xlarge");
  const Fabric f(t);
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      if (a == b) continue;
      const Route r = f.route({0, a, 1}, {0, b, 0});
      INFO(a << " -> " << b);
      REQUIRE(static_cast<int>(r.links.size()) == torusDistance4x4(a, b));
      // The hops chain from a to b.
      int at = a;
      for (const std::string& name : names(f, r)) {
        int node = -1, from = -1, to = -1;
        REQUIRE(std::sscanf(name.c_str(), "node%d chip%d->chip%d", &node, &from, &to) == 3);
        CHECK(node == 0);
        CHECK(from == at);
        at = to;
      }
      CHECK(at == b);
      CHECK(r.latencySec == Approx(1.5e-6 * torusDistance4x4(a, b)));
      CHECK(r.bytesPerSec == 48e9);
    }
  }
  // x before y; a tie (2 hops either way) goes toward +.
  CHECK(names(f, f.route({0, 0, 0}, {0, 5, 0})) ==
        std::vector<std::string>{"node0 chip0->chip1", "node0 chip1->chip5"});
  CHECK(names(f, f.route({0, 0, 0}, {0, 2, 0})) ==
        std::vector<std::string>{"node0 chip0->chip1", "node0 chip1->chip2"});
  CHECK(names(f, f.route({0, 0, 0}, {0, 3, 0})) == std::vector<std::string>{"node0 chip0->chip3"});
}

TEST_CASE("NeuronCores of one chip talk over its on-chip link", "[topology][fabric]") {
  const auto t = linksOnly("trn2.48xlarge");
  const Fabric f(t);
  const Route r = f.route({0, 3, 0}, {0, 3, 2});
  CHECK(names(f, r) == std::vector<std::string>{"node0 chip3 cores"});
  CHECK(r.bytesPerSec == 3.5e12);
  CHECK(r.latencySec == Approx(0.5e-6));
}

TEST_CASE("routes between instances cross the nearest NIC's out and in links", "[topology][fabric]") {
  const auto t = linksOnly("trn1.32xlarge:2");
  const Fabric f(t);
  // Chip 0 has NIC 0 next to it.
  Route r = f.route({0, 0, 0}, {1, 0, 0});
  CHECK(names(f, r) == std::vector<std::string>{"node0 efa0 out", "node1 efa0 in"});
  CHECK(r.latencySec == Approx(15e-6));
  // The NIC's line rate, times the fraction of it a collective gets (the file's efa/efficiency).
  REQUIRE(t.efaEfficiency < 1);
  CHECK(r.bytesPerSec == Approx(100e9 / 8 * t.efaEfficiency));
  // Chip 1 has none: NICs 0 (chip 0) and 1 (chip 2) are one hop away; its
  // NeuronCores spread over them. The far side continues over NeuronLink.
  r = f.route({0, 1, 1}, {1, 6, 0});
  CHECK(names(f, r) ==
        std::vector<std::string>{"node0 chip1->chip2", "node0 efa1 out", "node1 efa1 in", "node1 chip2->chip6"});
  CHECK(r.latencySec == Approx(1.5e-6 + 15e-6 + 1.5e-6));
  CHECK(r.bytesPerSec == Approx(100e9 / 8 * t.efaEfficiency));
  CHECK(names(f, f.route({0, 1, 0}, {1, 0, 0})) ==
        std::vector<std::string>{"node0 chip1->chip0", "node0 efa0 out", "node1 efa0 in"});
}

TEST_CASE(
    "with DMA engines, a message starts at its chip's DMA link, which issues it, and every chip on the "
    "way forwards it through its own",
    "[topology][fabric]") {
  auto t = loadTopology("trn1.32xlarge:2");
  t.engine.dmaBytesPerSec = 20e9;  // below every other link: the bottleneck
  t.engine.dmaMessageSec = 1e-6;
  const Fabric f(t);
  Route r = f.route({0, 3, 0}, {0, 3, 1});
  CHECK(names(f, r) == std::vector<std::string>{"node0 chip3 dma", "node0 chip3 cores"});
  CHECK(r.bytesPerSec == 20e9);
  CHECK(r.latencySec == Approx(0.5e-6));  // issuing is not latency
  CHECK(f.link(r.issueLink).name == "node0 chip3 dma");
  CHECK(r.issueSec == 1e-6);
  // Two hops: chip 1 forwards.
  r = f.route({0, 0, 0}, {0, 5, 0});
  CHECK(names(f, r) ==
        std::vector<std::string>{"node0 chip0 dma", "node0 chip0->chip1", "node0 chip1 dma", "node0 chip1->chip5"});
  CHECK(r.latencySec == Approx(2 * 1.5e-6));
  CHECK(f.link(r.issueLink).name == "node0 chip0 dma");
  // Across instances: the NIC's chip forwards on both sides.
  r = f.route({0, 1, 1}, {1, 6, 0});
  CHECK(names(f, r) == std::vector<std::string>{"node0 chip1 dma", "node0 chip1->chip2", "node0 chip2 dma",
                                                "node0 efa1 out", "node1 efa1 in", "node1 chip2 dma",
                                                "node1 chip2->chip6"});
  CHECK(r.bytesPerSec == Approx(100e9 / 8 * t.efaEfficiency));  // EFA stays the bottleneck
  // Each EFA crossing's latency holds the runtime's proxy too.
  CHECK(r.latencySec == Approx(2 * 1.5e-6 + 15e-6 + t.engine.proxySec));
  CHECK(f.link(r.issueLink).name == "node0 chip1 dma");
}

TEST_CASE("through a NeuronSwitch, chips reach each other by their ports, servers by the second level",
          "[topology][fabric]") {
  const auto t = trnccl::topo::parseTopology(R"({
    "name": "switched", "chips": 8, "coresPerChip": 2,
    "device": {"generation": "trainium3"},
    "onChip": {"bytesPerSec": 4e12, "latencySec": 0},
    "neuronSwitch": {"chipsPerServer": 4, "bytesPerSec": 1e12, "latencySec": 1e-6, "crossServerLatencySec": 2e-6},
    "efa": {"gbpsPerNic": 200, "nicChips": [0, 1, 2, 3, 4, 5, 6, 7], "latencySec": 15e-6}
  })",
                                             "switched.json");
  const Fabric f(t);
  // Per chip: on-chip, port out and in, one NIC's out and in; per server: up and down.
  CHECK(f.linkCount() == 8 * 5 + 2 * 2);
  Route r = f.route({0, 1, 0}, {0, 3, 1});  // the same server: the first-level switch only
  CHECK(names(f, r) == std::vector<std::string>{"node0 chip1 switch out", "node0 chip3 switch in"});
  CHECK(r.latencySec == Approx(1e-6));
  CHECK(r.bytesPerSec == 1e12);
  r = f.route({0, 2, 0}, {0, 5, 0});  // server 0 to server 1: through the second level
  CHECK(names(f, r) == std::vector<std::string>{"node0 chip2 switch out", "node0 server0 up", "node0 server1 down",
                                                "node0 chip5 switch in"});
  CHECK(r.latencySec == Approx(3e-6));
  CHECK(r.bytesPerSec == 1e12);  // a server's link carries all its chips' ports
  CHECK(names(f, f.route({0, 6, 0}, {0, 6, 1})) == std::vector<std::string>{"node0 chip6 cores"});
  // Every chip has a NIC of its own: nothing crosses the switch to reach one.
  auto two = t;
  two.nodes = 2;
  CHECK(names(Fabric(two), Fabric(two).route({0, 5, 0}, {1, 2, 0})) ==
        std::vector<std::string>{"node0 efa5 out", "node1 efa5 in", "node1 chip5 switch out", "node1 server1 up",
                                 "node1 server0 down", "node1 chip2 switch in"});
}

TEST_CASE("a route's bandwidth is its bottleneck's", "[topology][fabric]") {
  const auto t = linksOnly("trn2-ultraserver");
  const Fabric f(t);
  Route r = f.route({0, 0, 0}, {0, 16, 0});  // the z link to the next instance
  CHECK(r.links.size() == 1);
  CHECK(r.bytesPerSec == 64e9);
  r = f.route({0, 0, 0}, {0, 17, 0});  // x (128 GB/s), then z (64 GB/s)
  CHECK(names(f, r) == std::vector<std::string>{"node0 chip0->chip1", "node0 chip1->chip17"});
  CHECK(r.bytesPerSec == 64e9);
  CHECK(r.latencySec == Approx(3e-6));
  CHECK(f.route({0, 0, 0}, {0, 5, 0}).bytesPerSec == 128e9);
}

TEST_CASE("listed links route breadth-first, the lowest chip first", "[topology][fabric]") {
  // A square 0-1-2-3-0: two shortest ways from 0 to 2; the one through chip 1 wins.
  const auto t = trnccl::topo::parseTopology(R"({
    "name": "square", "chips": 4, "coresPerChip": 1,
    "device": {"generation": "trainium2"},
    "onChip": {"bytesPerSec": 1e12, "latencySec": 0},
    "neuronLink": {"bytesPerSec": 10e9, "latencySec": 1e-6},
    "links": [{"a": 3, "b": 0}, {"a": 0, "b": 1}, {"a": 1, "b": 2}, {"a": 2, "b": 3, "bytesPerSec": 5e9}]
  })",
                                             "square.json");
  const Fabric f(t);
  CHECK(names(f, f.route({0, 0, 0}, {0, 2, 0})) ==
        std::vector<std::string>{"node0 chip0->chip1", "node0 chip1->chip2"});
  CHECK(names(f, f.route({0, 2, 0}, {0, 0, 0})) ==
        std::vector<std::string>{"node0 chip2->chip1", "node0 chip1->chip0"});
  const Route r = f.route({0, 3, 0}, {0, 2, 0});
  CHECK(names(f, r) == std::vector<std::string>{"node0 chip3->chip2"});
  CHECK(r.bytesPerSec == 5e9);
}

TEST_CASE("routes refuse NeuronCores that do not exist, or the same one twice", "[topology][fabric]") {
  auto t = loadTopology("trn1.32xlarge");
  const Fabric f(t);
  CHECK_THROWS_WITH(f.route({0, 0, 0}, {0, 0, 0}), Catch::Contains("same NeuronCore"));
  CHECK_THROWS_WITH(f.route({0, 16, 0}, {0, 0, 0}), Catch::Contains("node0 chip16 does not exist in trn1.32xlarge"));
  CHECK_THROWS_WITH(f.route({0, 0, 0}, {1, 0, 0}), Catch::Contains("node1 chip0 does not exist"));
  CHECK_THROWS_WITH(f.route({0, 0, 2}, {0, 1, 0}), Catch::Contains("NeuronCore 2 of node0 chip0 does not exist"));
  auto ring = loadTopology("inf2.48xlarge");
  ring.nodes = 2;  // joined by nothing
  CHECK_THROWS_AS(Fabric(ring), trnccl::Error);
}
