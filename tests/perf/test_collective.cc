#include <catch2/catch.hpp>

#include "logic/collective.h"
#include "logic/usage_error.h"

using namespace trnccl::perf;

TEST_CASE("collective names round-trip and unknown names are refused", "[perf][collective]") {
  for (Collective c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                       Collective::broadcast, Collective::reduce, Collective::alltoall, Collective::sendrecv}) {
    CHECK(parse_collective(collective_name(c)) == c);
  }
  CHECK(collective_name(Collective::alltoall) == "alltoall");
  CHECK_THROWS_AS(parse_collective("all-reduce"), UsageError);
}

TEST_CASE("layout_for follows nccl-tests' getCollByteCount", "[perf][collective]") {
  // 1000 bytes of 4-byte elements on 4 ranks: 250 elements, 62 per rank.
  const Layout ar = layout_for(Collective::all_reduce, 1000, 4, 4);
  CHECK((ar.count == 250 && ar.send_count == 250 && ar.recv_count == 250));
  CHECK((ar.send_inplace_offset == 0 && ar.recv_inplace_offset == 0));

  const Layout ag = layout_for(Collective::all_gather, 1000, 4, 4);
  CHECK((ag.count == 62 && ag.send_count == 62 && ag.recv_count == 248));
  CHECK((ag.send_inplace_offset == 62 && ag.recv_inplace_offset == 0));
  CHECK(row_bytes(ag, 4) == 992);

  const Layout rs = layout_for(Collective::reduce_scatter, 1000, 4, 4);
  CHECK((rs.count == 62 && rs.send_count == 248 && rs.recv_count == 62));
  CHECK((rs.send_inplace_offset == 0 && rs.recv_inplace_offset == 62));
  CHECK(row_bytes(rs, 4) == 992);

  const Layout a2a = layout_for(Collective::alltoall, 1000, 4, 4);
  CHECK((a2a.count == 62 && a2a.send_count == 248 && a2a.recv_count == 248));

  for (Collective c : {Collective::broadcast, Collective::reduce, Collective::sendrecv}) {
    const Layout l = layout_for(c, 1001, 2, 3);
    CHECK((l.count == 500 && l.send_count == 500 && l.recv_count == 500));
    CHECK(row_bytes(l, 2) == 1000);
  }
}

TEST_CASE("bus_factor is nccl-tests' per collective", "[perf][collective]") {
  CHECK(bus_factor(Collective::all_reduce, 8) == Approx(1.75));
  CHECK(bus_factor(Collective::all_reduce, 2) == Approx(1.0));
  CHECK(bus_factor(Collective::all_reduce, 1) == Approx(0.0));
  CHECK(bus_factor(Collective::all_gather, 4) == Approx(0.75));
  CHECK(bus_factor(Collective::reduce_scatter, 8) == Approx(0.875));
  CHECK(bus_factor(Collective::alltoall, 2) == Approx(0.5));
  CHECK(bus_factor(Collective::broadcast, 8) == Approx(1.0));
  CHECK(bus_factor(Collective::reduce, 8) == Approx(1.0));
  CHECK(bus_factor(Collective::sendrecv, 8) == Approx(1.0));
}

TEST_CASE("bandwidth divides the collective's data size by the time", "[perf][collective]") {
  // all_reduce: 1e9 bytes in 0.5 s on 4 ranks.
  const Bandwidth ar =
      bandwidth(Collective::all_reduce, layout_for(Collective::all_reduce, 1000000000, 4, 4), 4, 4, 0.5);
  CHECK(ar.algbw == Approx(2.0));
  CHECK(ar.busbw == Approx(3.0));
  // all_gather: size is every rank's share: 4 x 2.5e8 bytes in 1 s.
  const Bandwidth ag =
      bandwidth(Collective::all_gather, layout_for(Collective::all_gather, 1000000000, 4, 4), 4, 4, 1.0);
  CHECK(ag.algbw == Approx(1.0));
  CHECK(ag.busbw == Approx(0.75));
  const Bandwidth sr = bandwidth(Collective::sendrecv, layout_for(Collective::sendrecv, 2000000000, 8, 2), 8, 2, 1.0);
  CHECK(sr.algbw == Approx(2.0));
  CHECK(sr.busbw == Approx(2.0));
}

TEST_CASE("reduces and has_root classify the collectives", "[perf][collective]") {
  CHECK(reduces(Collective::all_reduce));
  CHECK(reduces(Collective::reduce_scatter));
  CHECK(reduces(Collective::reduce));
  CHECK_FALSE(reduces(Collective::all_gather));
  CHECK_FALSE(reduces(Collective::sendrecv));
  CHECK(has_root(Collective::broadcast));
  CHECK(has_root(Collective::reduce));
  CHECK_FALSE(has_root(Collective::all_reduce));
}

TEST_CASE("the new collectives: names, layouts, factors and classes", "[perf][collective]") {
  for (Collective c : {Collective::gather, Collective::scatter, Collective::alltoallv, Collective::allgatherv,
                       Collective::reducescatterv, Collective::permute})
    CHECK(parse_collective(collective_name(c)) == c);
  CHECK(collective_name(Collective::reducescatterv) == "reducescatterv");
  // 1000 bytes of 4-byte elements on 4 ranks: 62 per rank, as all_gather / reduce_scatter / alltoall.
  const Layout g = layout_for(Collective::gather, 1000, 4, 4);
  CHECK((g.count == 62 && g.send_count == 62 && g.recv_count == 248 && g.send_inplace_offset == 62));
  const Layout s = layout_for(Collective::scatter, 1000, 4, 4);
  CHECK((s.count == 62 && s.send_count == 248 && s.recv_count == 62 && s.recv_inplace_offset == 62));
  const Layout v = layout_for(Collective::alltoallv, 1000, 4, 4);
  CHECK((v.count == 62 && v.send_count == 248 && v.recv_count == 248));
  const Layout p = layout_for(Collective::permute, 1001, 2, 3);
  CHECK((p.count == 500 && p.send_count == 500 && p.recv_count == 500));
  for (Collective c : {Collective::gather, Collective::scatter, Collective::alltoallv, Collective::allgatherv,
                       Collective::reducescatterv})
    CHECK(bus_factor(c, 8) == Approx(0.875));
  CHECK(bus_factor(Collective::permute, 8) == Approx(1.0));
  // gather: the size is every rank's share: 4 x 2.5e8 bytes in 1 s.
  const Bandwidth gb = bandwidth(Collective::gather, layout_for(Collective::gather, 1000000000, 4, 4), 4, 4, 1.0);
  CHECK(gb.algbw == Approx(1.0));
  CHECK(gb.busbw == Approx(0.75));
  CHECK(reduces(Collective::reducescatterv));
  CHECK_FALSE(reduces(Collective::allgatherv));
  CHECK((has_root(Collective::gather) && has_root(Collective::scatter)));
  CHECK_FALSE(has_root(Collective::permute));
  CHECK_FALSE(has_in_place(Collective::alltoallv));
  CHECK(has_in_place(Collective::gather));
}
