// The flight recorder itself: bounded to its last N operations, states and
// waits as the writer reports them, and a dump the analyzer reads back.
#include <catch2/catch.hpp>
#include <thread>

#include "dumps.h"
#include "runtime/flight_recorder.h"
#include "runtime/recorder_dump.h"
#include "trnccl/trnccl.h"

using trnccl::runtime::FlightRecorder;
using trnccl::runtime::OpInfo;
using trnccl::runtime::OpState;

namespace {

OpInfo allReduce(uint64_t seq, uint64_t count) {
  OpInfo info;
  info.sequence = seq;
  info.collective = "allreduce";
  info.count = count;
  info.type = trncclFloat32;
  info.op = trncclSum;
  return info;
}

}  // namespace

TEST_CASE("flight recorder: keeps only the last N operations, oldest first", "[trace][recorder]") {
  FlightRecorder recorder(4);
  for (uint64_t seq = 0; seq < 10; ++seq) {
    recorder.begin(allReduce(seq, 100 + seq));
    recorder.running("ring");
    recorder.finish(true);
  }
  const auto ops = recorder.snapshot();
  REQUIRE(ops.size() == 4);
  for (size_t i = 0; i < ops.size(); ++i) {
    CHECK(ops[i].info.sequence == 6 + i);
    CHECK(ops[i].info.count == 106 + i);
    CHECK(ops[i].state == OpState::Done);
    CHECK(std::string(ops[i].algorithm) == "ring");
    CHECK(ops[i].issuedTicks > 0);
    CHECK(ops[i].issuedTicks <= ops[i].endedTicks);
  }
}

TEST_CASE("flight recorder: a blocked operation shows the peer and step it waits on, kept when it fails",
          "[trace][recorder]") {
  FlightRecorder recorder(8);
  recorder.begin(allReduce(0, 8));
  CHECK(recorder.snapshot().at(0).state == OpState::Issued);
  recorder.running("ring");
  recorder.waiting(3, 5, true);
  auto op = recorder.snapshot().at(0);
  CHECK(op.state == OpState::Waiting);
  CHECK(op.waitPeer == 3);
  CHECK(op.waitStep == 5);
  CHECK(op.waitReceiving);
  recorder.resumed();
  op = recorder.snapshot().at(0);
  CHECK(op.state == OpState::Running);
  CHECK(op.waitPeer == -1);  // a wait that ended is no clue
  recorder.waiting(1, 6, false);
  recorder.finish(false);
  op = recorder.snapshot().at(0);
  CHECK(op.state == OpState::Failed);
  CHECK(op.waitPeer == 1);
  CHECK(op.waitStep == 6);
  CHECK_FALSE(op.waitReceiving);
}

TEST_CASE("flight recorder: snapshots taken while the writer runs are whole operations", "[trace][recorder]") {
  FlightRecorder recorder(16);
  std::atomic<bool> stop{false};
  // Each operation's count is derived from its sequence number, so a torn
  // read (fields of two operations) shows.
  std::thread writer([&] {
    for (uint64_t seq = 0; !stop.load(); ++seq) {
      recorder.begin(allReduce(seq, seq * 3 + 1));
      recorder.running("ring");
      recorder.finish(true);
    }
  });
  size_t torn = 0, seen = 0;
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (seen < 20000 && std::chrono::steady_clock::now() < limit) {
    for (const auto& op : recorder.snapshot()) {
      ++seen;
      if (op.info.count != op.info.sequence * 3 + 1 || op.info.sequence != op.ordinal) ++torn;
    }
  }
  stop = true;
  writer.join();
  CHECK(seen > 0);
  CHECK(torn == 0);
}

TEST_CASE("flight recorder: its JSON dump reads back with every field", "[trace][recorder]") {
  FlightRecorder recorder(4);
  recorder.begin(allReduce(7, 1024));
  recorder.running("torus2d");
  recorder.waiting(2, 9, false);
  OpInfo bcast;
  bcast.sequence = 8;
  bcast.collective = "broadcast";
  bcast.count = 5;
  bcast.type = trncclInt8;
  bcast.root = 3;
  trnccl::runtime::DumpHeader header;
  header.comm = "abc-4";
  header.rank = 1;
  header.nranks = 4;
  header.reason = "signal";
  const auto j = trnccl::runtime::dumpJson(recorder, header);
  const trnccl::trace::RankDump d = trnccl::trace::parseDump(j.dump(), "test");
  CHECK(d.comm == "abc-4");
  CHECK(d.rank == 1);
  CHECK(d.nranks == 4);
  CHECK(d.reason == "signal");
  REQUIRE(d.ops.size() == 1);
  const trnccl::trace::RecordedOp& o = d.ops[0];
  CHECK(o.seq == 7u);
  CHECK(o.collective == "allreduce");
  CHECK(o.count == 1024);
  CHECK(o.type == "float");
  CHECK(o.op == "sum");
  CHECK_FALSE(o.root.has_value());
  CHECK(o.algorithm == "torus2d");
  CHECK(o.state == "waiting");
  CHECK(o.waitPeer == 2);
  CHECK(o.waitStep == 9);
  CHECK_FALSE(o.waitReceiving);
  CHECK(j["ops"][0]["issued_ns"].is_number());
  CHECK(j["ops"][0]["ended_ns"].is_null());
}

TEST_CASE("trnccl-trace: a file that is not a dump is an error naming it", "[trace][recorder]") {
  CHECK_THROWS_WITH(trnccl::trace::parseDump("{\"format\": \"other\"}", "x.json"), Catch::Contains("x.json"));
  CHECK_THROWS_WITH(trnccl::trace::parseDump("not json", "y.json"), Catch::Contains("y.json"));
}

// Found by fuzz_trace_dumps: an integer field holding 3e99 (or any number
// that does not fit) reached nlohmann's get<int>(), whose cast is undefined.
TEST_CASE("trnccl-trace: integer fields that are not whole or do not fit are an error naming them",
          "[trace][recorder]") {
  const std::string head = R"({"format": "trnccl-flight-recorder", "version": 1, "comm": "c", "pid": 1, )";
  CHECK_THROWS_WITH(trnccl::trace::parseDump(head + R"("rank": 0, "nranks": 3e99, "ops": []})", "z.json"),
                    Catch::StartsWith("z.json: ") && Catch::Contains("\"nranks\" is 3e+99, not an integer that fits"));
  CHECK_THROWS_WITH(trnccl::trace::parseDump(head + R"("rank": 0.5, "nranks": 2, "ops": []})", "z.json"),
                    Catch::Contains("\"rank\" is 0.5"));
  CHECK_THROWS_WITH(trnccl::trace::parseDump(head + R"("rank": 0, "nranks": 4294967297, "ops": []})", "z.json"),
                    Catch::Contains("\"nranks\" is 4294967297"));
  const std::string op = R"({"seq": 1, "collective": "allreduce", "count": -1, "root": null, "state": "done"})";
  CHECK_THROWS_WITH(trnccl::trace::parseDump(head + R"("rank": 0, "nranks": 1, "ops": [)" + op + "]}", "z.json"),
                    Catch::Contains("\"count\" is -1"));
  CHECK(trnccl::trace::parseDump(head + R"("rank": 1, "nranks": 2, "ops": []})", "z.json").nranks == 2);
}
