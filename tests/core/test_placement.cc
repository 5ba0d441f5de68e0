#include <catch2/catch.hpp>
#include <cstdio>
#include "algorithms/tuner.h"
#include "core/placement.h"
#include "base/error.h"
using namespace trnccl;
static void show(const char* topo, const char* order, int n, size_t bytes) {
  core::Config c; c.topology = topo; c.rankOrder = order; c.emulateLinks = true;
  core::Placement p(c, n, nullptr);
  algo::Tuner t(algo::AlgorithmFilter("auto", "x", algo::Tuner::algorithmNames()), p.network(), &p.layout());
  algo::CollectiveArgs a; a.collective = algo::Collective::AllReduce; a.nranks = n; a.count = bytes / 4; a.layout = &p.layout();
  std::printf("%s %s n=%d bytes=%zu grid %dx%d -> %s\n", topo, order, n, bytes, p.layout().gridX, p.layout().gridY, t.choose(a).name());
  for (const auto& name : algo::Tuner::algorithmNames()) {
    algo::Tuner one(algo::AlgorithmFilter(name, "x", algo::Tuner::algorithmNames()), p.network(), &p.layout());
    try { const auto& al = one.choose(a); auto pr = one.predict(al, a); std::printf("   %-20s %10.2f us  %s\n", name.c_str(), pr.seconds*1e6, pr.bound.c_str()); }
    catch (const Error&) { std::printf("   %-20s n/a\n", name.c_str()); }
  }
}
TEST_CASE("explore") {
  show("trn1.32xlarge", "chip", 16, 64 << 20);
  show("trn1.32xlarge", "chip", 16, 8);
  show("trn1.32xlarge", "", 32, 64 << 20);
  show("trn1.32xlarge", "", 32, 8);
  show("trn1.32xlarge:2", "", 64, 64 << 20);
  show("trn1.32xlarge:2", "", 64, 8);
  show("trn1.32xlarge:2", "chip", 32, 64 << 20);
  show("trn1.2xlarge:4", "", 8, 64 << 20);
  show("trn1.2xlarge:4", "", 8, 8);
  show("trn1.32xlarge", "", 8, 64 << 20);
}
