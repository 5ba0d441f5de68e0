#include <catch2/catch.hpp>

#include "logic/usage_error.h"
#include "nccl_tests/collective.h"

using namespace trnccl::perf;

TEST_CASE("collective names round-trip and unknown names are refused", "[perf][collective]") {
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
                       Collective::Reduce, Collective::AllToAll, Collective::SendRecv}) {
    CHECK(parse_collective(collective_name(c)) == c);
  }
  CHECK(collective_name(Collective::AllToAll) == "alltoall");
  CHECK_THROWS_AS(parse_collective("all-reduce"), UsageError);
}

TEST_CASE("layout_for follows nccl-tests' getCollByteCount", "[perf][collective]") {
  // 1000 bytes of 4-byte elements on 4 ranks: 250 elements, 62 per rank.
  const Layout ar = layout_for(Collective::AllReduce, 1000, 4, 4);
  CHECK((ar.count == 250 && ar.send_count == 250 && ar.recv_count == 250));
  CHECK((ar.send_inplace_offset == 0 && ar.recv_inplace_offset == 0));

  const Layout ag = layout_for(Collective::AllGather, 1000, 4, 4);
  CHECK((ag.count == 62 && ag.send_count == 62 && ag.recv_count == 248));
  CHECK((ag.send_inplace_offset == 62 && ag.recv_inplace_offset == 0));
  CHECK(row_bytes(ag, 4) == 992);

  const Layout rs = layout_for(Collective::ReduceScatter, 1000, 4, 4);
  CHECK((rs.count == 62 && rs.send_count == 248 && rs.recv_count == 62));
  CHECK((rs.send_inplace_offset == 0 && rs.recv_inplace_offset == 62));
  CHECK(row_bytes(rs, 4) == 992);

  const Layout a2a = layout_for(Collective::AllToAll, 1000, 4, 4);
  CHECK((a2a.count == 62 && a2a.send_count == 248 && a2a.recv_count == 248));

  for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::SendRecv}) {
    const Layout l = layout_for(c, 1001, 2, 3);
    CHECK((l.count == 500 && l.send_count == 500 && l.recv_count == 500));
    CHECK(row_bytes(l, 2) == 1000);
  }
}

TEST_CASE("bus_factor is nccl-tests' per collective", "[perf][collective]") {
  CHECK(bus_factor(Collective::AllReduce, 8) == Approx(1.75));
  CHECK(bus_factor(Collective::AllReduce, 2) == Approx(1.0));
  CHECK(bus_factor(Collective::AllReduce, 1) == Approx(0.0));
  CHECK(bus_factor(Collective::AllGather, 4) == Approx(0.75));
  CHECK(bus_factor(Collective::ReduceScatter, 8) == Approx(0.875));
  CHECK(bus_factor(Collective::AllToAll, 2) == Approx(0.5));
  CHECK(bus_factor(Collective::Broadcast, 8) == Approx(1.0));
  CHECK(bus_factor(Collective::Reduce, 8) == Approx(1.0));
  CHECK(bus_factor(Collective::SendRecv, 8) == Approx(1.0));
}

TEST_CASE("bandwidth divides the collective's data size by the time", "[perf][collective]") {
  // all_reduce: 1e9 bytes in 0.5 s on 4 ranks.
  const Bandwidth ar = bandwidth(Collective::AllReduce, layout_for(Collective::AllReduce, 1000000000, 4, 4), 4, 4, 0.5);
  CHECK(ar.algbw == Approx(2.0));
  CHECK(ar.busbw == Approx(3.0));
  // all_gather: size is every rank's share: 4 x 2.5e8 bytes in 1 s.
  const Bandwidth ag = bandwidth(Collective::AllGather, layout_for(Collective::AllGather, 1000000000, 4, 4), 4, 4, 1.0);
  CHECK(ag.algbw == Approx(1.0));
  CHECK(ag.busbw == Approx(0.75));
  const Bandwidth sr = bandwidth(Collective::SendRecv, layout_for(Collective::SendRecv, 2000000000, 8, 2), 8, 2, 1.0);
  CHECK(sr.algbw == Approx(2.0));
  CHECK(sr.busbw == Approx(2.0));
}

TEST_CASE("reduces and has_root classify the collectives", "[perf][collective]") {
  CHECK(reduces(Collective::AllReduce));
  CHECK(reduces(Collective::ReduceScatter));
  CHECK(reduces(Collective::Reduce));
  CHECK_FALSE(reduces(Collective::AllGather));
  CHECK_FALSE(reduces(Collective::SendRecv));
  CHECK(has_root(Collective::Broadcast));
  CHECK(has_root(Collective::Reduce));
  CHECK_FALSE(has_root(Collective::AllReduce));
}

TEST_CASE("the new collectives: names, layouts, factors and classes", "[perf][collective]") {
  for (Collective c : {Collective::Gather, Collective::Scatter, Collective::AllToAllV, Collective::AllGatherV,
                       Collective::ReduceScatterV, Collective::Permute})
    CHECK(parse_collective(collective_name(c)) == c);
  CHECK(collective_name(Collective::ReduceScatterV) == "reducescatterv");
  // 1000 bytes of 4-byte elements on 4 ranks: 62 per rank, as all_gather / reduce_scatter / alltoall.
  const Layout g = layout_for(Collective::Gather, 1000, 4, 4);
  CHECK((g.count == 62 && g.send_count == 62 && g.recv_count == 248 && g.send_inplace_offset == 62));
  const Layout s = layout_for(Collective::Scatter, 1000, 4, 4);
  CHECK((s.count == 62 && s.send_count == 248 && s.recv_count == 62 && s.recv_inplace_offset == 62));
  const Layout v = layout_for(Collective::AllToAllV, 1000, 4, 4);
  CHECK((v.count == 62 && v.send_count == 248 && v.recv_count == 248));
  const Layout p = layout_for(Collective::Permute, 1001, 2, 3);
  CHECK((p.count == 500 && p.send_count == 500 && p.recv_count == 500));
  for (Collective c : {Collective::Gather, Collective::Scatter, Collective::AllToAllV, Collective::AllGatherV,
                       Collective::ReduceScatterV})
    CHECK(bus_factor(c, 8) == Approx(0.875));
  CHECK(bus_factor(Collective::Permute, 8) == Approx(1.0));
  // gather: the size is every rank's share: 4 x 2.5e8 bytes in 1 s.
  const Bandwidth gb = bandwidth(Collective::Gather, layout_for(Collective::Gather, 1000000000, 4, 4), 4, 4, 1.0);
  CHECK(gb.algbw == Approx(1.0));
  CHECK(gb.busbw == Approx(0.75));
  CHECK(reduces(Collective::ReduceScatterV));
  CHECK_FALSE(reduces(Collective::AllGatherV));
  CHECK((has_root(Collective::Gather) && has_root(Collective::Scatter)));
  CHECK_FALSE(has_root(Collective::Permute));
  CHECK_FALSE(has_in_place(Collective::AllToAllV));
  CHECK(has_in_place(Collective::Gather));
}
