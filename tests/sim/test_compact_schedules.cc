// The engines read compacted steps, or steps generated as they read them
// (ring, bidir_ring): every step must keep what the engines read of the
// Schedule build() gives.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/registry.h"
#include "sim/compact_schedules.h"
#include "sim/machine.h"

using namespace trnccl;

TEST_CASE("compact schedules keep every step's peers, tags, bytes, inputs and reduction", "[sim]") {
  const sim::Machine m("trn1.32xlarge", {});
  for (const algo::RegisteredAlgorithm& registered : algo::registeredAlgorithms()) {
    const auto algorithm = registered.make();
    algo::CollectiveArgs args;
    args.nranks = m.ranks();
    args.count = 1000003;  // uneven blocks
    args.type = trncclBfloat16;
    args.layout = &m.layout();
    args.maxStepElements = 65536;
    if (!algorithm->whyUnsupported(args).empty()) continue;
    std::vector<algo::Schedule> all;
    for (int r = 0; r < args.nranks; ++r) all.push_back(algorithm->build(algo::argsOfRank(args, r)));
    const sim::CompactSchedules compacted = sim::compact(all);
    INFO(algorithm->name());
    REQUIRE(compacted.ranks() == args.nranks);
    size_t steps = 0;
    for (int r = 0; r < args.nranks; ++r) {
      const algo::Schedule& s = all[static_cast<size_t>(r)];
      REQUIRE(compacted.phases(r) == s.phases.size());
      for (size_t p = 0; p < s.phases.size(); ++p) {
        REQUIRE(compacted.channels(r, p) == s.phases[p].channels.size());
        for (size_t c = 0; c < s.phases[p].channels.size(); ++c) {
          const std::vector<algo::Step>& expected = s.phases[p].channels[c].steps;
          REQUIRE(compacted.channelLength(r, p, c) == expected.size());
          for (size_t k = 0; k < expected.size(); ++k) {
            const sim::CompactStep got = compacted.step(r, p, c, k);
            const algo::Step& step = expected[k];
            CHECK(got.recvPeer == step.recvPeer);
            CHECK(got.sendPeer == step.sendPeer);
            CHECK(got.recvTag == step.recvTag);
            CHECK(got.sendTag == step.sendTag);
            CHECK(got.bytes == step.count * 2);  // bf16
            CHECK(got.inputs == step.srcs.size() + (step.recvPeer >= 0 ? 1 : 0));
            CHECK(static_cast<bool>(got.reduce) == step.reduce);
          }
          steps += expected.size();
        }
      }
    }
    CHECK(compacted.stepCount() == steps);
  }
}
