// The host census: hosts numbered from given host identities, and the ranks
// and cores of this rank's host.
#include <catch2/catch.hpp>

#include <cstring>

#include "core/host_census.h"

using namespace trnccl::core;

namespace {

HostIdentity host(const char* name, const char* boot = "boot-1", const char* network = "net:[1]") {
  HostIdentity id;
  std::strncpy(id.name, name, sizeof(id.name) - 1);
  std::strncpy(id.boot, boot, sizeof(id.boot) - 1);
  std::strncpy(id.network, network, sizeof(id.network) - 1);
  return id;
}

RankPlacement on(const HostIdentity& id, std::initializer_list<int> cores) {
  RankPlacement p{id, {}};
  CPU_ZERO(&p.cores);
  for (int c : cores) CPU_SET(c, &p.cores);
  return p;
}

}  // namespace

TEST_CASE("host census: hosts are numbered in order of their first rank", "[host-census]") {
  const HostIdentity a = host("a"), b = host("b"), c = host("c");
  const HostCensus census({on(b, {0}), on(a, {0}), on(b, {1}), on(c, {0}), on(a, {1})}, 0);
  CHECK(census.hostOf() == std::vector<int>{0, 1, 0, 2, 1});
  CHECK(census.hostCount() == 3);
}

TEST_CASE("host census: one machine seen from another boot or network namespace is another host", "[host-census]") {
  const HostCensus census(
      {on(host("a"), {0}), on(host("a", "boot-2"), {0}), on(host("a", "boot-1", "net:[2]"), {0}), on(host("a"), {1})},
      0);
  CHECK(census.hostOf() == std::vector<int>{0, 1, 2, 0});
  CHECK(census.hostCount() == 3);
}

TEST_CASE("host census: the ranks of this host share the union of their cores", "[host-census]") {
  const HostIdentity a = host("a"), b = host("b");
  const std::vector<RankPlacement> byRank = {on(a, {0, 1}), on(b, {0, 1, 2, 3}), on(a, {1, 2}), on(a, {2})};
  const HostCensus fromA(byRank, 2);
  CHECK(fromA.ranksHere() == 3);
  CHECK(fromA.coresHere() == 3);
  CHECK_FALSE(fromA.oversubscribed());
  const HostCensus fromB(byRank, 1);
  CHECK(fromB.ranksHere() == 1);
  CHECK(fromB.coresHere() == 4);
}

TEST_CASE("host census: more ranks than cores on a host is oversubscribed", "[host-census]") {
  const HostIdentity a = host("a");
  const HostCensus census({on(a, {0}), on(a, {0}), on(a, {1})}, 1);
  CHECK(census.ranksHere() == 3);
  CHECK(census.coresHere() == 2);
  CHECK(census.oversubscribed());
}

TEST_CASE("host census: this process has an identity and usable cores", "[host-census]") {
  const RankPlacement mine = RankPlacement::ofThisProcess();
  CHECK(mine.host.name[0] != 0);
  CHECK(mine.host.boot[0] != 0);
  CHECK(CPU_COUNT(&mine.cores) > 0);
  CHECK(HostIdentity::ofThisProcess() == mine.host);
}

TEST_CASE("host census: every rank sees the smallest share of a core on any host", "[host-census]") {
  const HostIdentity a = host("a"), b = host("b");
  // Host a: 3 ranks on cores {0, 1} (2/3 of a core each); host b: 1 rank on 4 cores (1: never more than a core).
  const std::vector<RankPlacement> byRank = {on(a, {0}), on(b, {0, 1, 2, 3}), on(a, {1}), on(a, {0, 1})};
  for (int rank = 0; rank < 4; ++rank) CHECK(HostCensus(byRank, rank).coreShare() == Approx(2.0 / 3));
  CHECK(HostCensus({on(a, {0}), on(b, {0, 1})}, 0).coreShare() == 1);
}
