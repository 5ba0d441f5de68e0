// Bad input to gather, scatter, the v-collectives and permute: every new
// argument refused with the right code and named by trncclGetLastError, the
// communicator still usable after. As in test_bad_input.cc, multi-rank
// communicators are called on rank 0 only, so a call that passed validation
// by mistake times out instead of passing.
#include <catch2/catch.hpp>
#include <cstdint>

#include "bad_input.h"

using namespace trnccl::test;

namespace {

const auto f = trncclFloat32;

}  // namespace

TEST_CASE("bad input: NULL buffers and arrays of the new collectives", "[bad-input]") {
  trncclComm_t c = oneRank();
  float b[8] = {};
  const size_t four[1] = {4}, zero[1] = {0};
  expectInvalid(trncclGather(nullptr, b, 4, f, 0, c, nullptr), c, "sendbuff");
  expectInvalid(trncclGather(b, nullptr, 4, f, 0, c, nullptr), c, "recvbuff");   // the root's is written
  expectInvalid(trncclScatter(nullptr, b, 4, f, 0, c, nullptr), c, "sendbuff");  // the root's is read
  expectInvalid(trncclScatter(b, nullptr, 4, f, 0, c, nullptr), c, "recvbuff");
  expectInvalid(trncclAlltoAllv(b, nullptr, zero, b + 4, four, zero, f, c, nullptr), c, "sendcounts");
  expectInvalid(trncclAlltoAllv(b, four, nullptr, b + 4, four, zero, f, c, nullptr), c, "sdispls");
  expectInvalid(trncclAlltoAllv(b, four, zero, b + 4, nullptr, zero, f, c, nullptr), c, "recvcounts");
  expectInvalid(trncclAlltoAllv(b, four, zero, b + 4, four, nullptr, f, c, nullptr), c, "rdispls");
  expectInvalid(trncclAlltoAllv(nullptr, four, zero, b + 4, four, zero, f, c, nullptr), c, "sendbuff");
  expectInvalid(trncclAlltoAllv(b, four, zero, nullptr, four, zero, f, c, nullptr), c, "recvbuff");
  expectInvalid(trncclAllGatherV(b, 4, b + 4, nullptr, zero, f, c, nullptr), c, "recvcounts");
  expectInvalid(trncclAllGatherV(b, 4, b + 4, four, nullptr, f, c, nullptr), c, "displs");
  expectInvalid(trncclAllGatherV(nullptr, 4, b + 4, four, zero, f, c, nullptr), c, "sendbuff");
  expectInvalid(trncclAllGatherV(b, 4, nullptr, four, zero, f, c, nullptr), c, "recvbuff");
  expectInvalid(trncclReduceScatterV(b, nullptr, zero, b + 4, 4, f, trncclSum, c, nullptr), c, "sendcounts");
  expectInvalid(trncclReduceScatterV(b, four, nullptr, b + 4, 4, f, trncclSum, c, nullptr), c, "displs");
  expectInvalid(trncclReduceScatterV(nullptr, four, zero, b + 4, 4, f, trncclSum, c, nullptr), c, "sendbuff");
  expectInvalid(trncclReduceScatterV(b, four, zero, nullptr, 4, f, trncclSum, c, nullptr), c, "recvbuff");
  expectInvalid(trncclPermute(nullptr, b, 4, f, 0, 0, c, nullptr), c, "sendbuff");
  expectInvalid(trncclPermute(b, nullptr, 4, f, 0, 0, c, nullptr), c, "recvbuff");
  requireUsable(c);
  CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("bad input: root, peers, op and type of the new collectives", "[bad-input]") {
  Comms comms;
  const trncclComm_t c = comms[0];
  float b[16] = {};
  const size_t counts[2] = {2, 2}, displs[2] = {0, 2};
  expectInvalid(trncclGather(b, b + 8, 2, f, 2, c, nullptr), c, "root");
  expectInvalid(trncclGather(b, b + 8, 2, f, -1, c, nullptr), c, "root");
  expectInvalid(trncclScatter(b, b + 8, 2, f, 2, c, nullptr), c, "root");
  expectInvalid(trncclScatter(b, b + 8, 2, f, -5, c, nullptr), c, "root");
  expectInvalid(trncclPermute(b, b + 8, 2, f, 2, 1, c, nullptr), c, "sendPeer");
  expectInvalid(trncclPermute(b, b + 8, 2, f, -2, 1, c, nullptr), c, "sendPeer");
  expectInvalid(trncclPermute(b, b + 8, 2, f, 1, 7, c, nullptr), c, "recvPeer");
  expectInvalid(trncclPermute(b, b + 8, 2, f, 1, -3, c, nullptr), c, "recvPeer");
  // A rank that sends to itself must receive from itself, and the reverse.
  expectInvalid(trncclPermute(b, b + 8, 2, f, 0, 1, c, nullptr), c, "recvPeer");
  expectInvalid(trncclPermute(b, b + 8, 2, f, 1, 0, c, nullptr), c, "sendPeer");
  const auto badType = static_cast<trncclDataType_t>(99);
  expectInvalid(trncclGather(b, b + 8, 2, badType, 0, c, nullptr), c, "datatype");
  expectInvalid(trncclScatter(b, b + 8, 2, badType, 0, c, nullptr), c, "datatype");
  expectInvalid(trncclAlltoAllv(b, counts, displs, b + 8, counts, displs, badType, c, nullptr), c, "datatype");
  expectInvalid(trncclAllGatherV(b, 2, b + 8, counts, displs, badType, c, nullptr), c, "datatype");
  expectInvalid(trncclReduceScatterV(b, counts, displs, b + 8, 2, badType, trncclSum, c, nullptr), c, "datatype");
  expectInvalid(trncclPermute(b, b + 8, 2, badType, 1, 1, c, nullptr), c, "datatype");
  expectInvalid(trncclReduceScatterV(b, counts, displs, b + 8, 2, f, static_cast<trncclRedOp_t>(9), c, nullptr), c,
                "op");
}

TEST_CASE("bad input: counts and displacements of the v-collectives", "[bad-input]") {
  Comms comms;
  const trncclComm_t c = comms[0];
  float b[64] = {};
  const size_t even[2] = {4, 4}, packed[2] = {0, 4}, overlapping[2] = {0, 3};
  // Rank 0's own count must match its entry in the array.
  expectInvalid(trncclAllGatherV(b, 3, b + 8, even, packed, f, c, nullptr), c, "sendcount");
  expectInvalid(trncclReduceScatterV(b, even, packed, b + 8, 3, f, trncclSum, c, nullptr), c, "recvcount");
  const size_t sendOwn[2] = {4, 1}, recvOwn[2] = {3, 1};
  expectInvalid(trncclAlltoAllv(b, sendOwn, packed, b + 16, recvOwn, packed, f, c, nullptr), c, "recvcounts");
  // Blocks that are written must not overlap.
  expectInvalid(trncclAllGatherV(b, 4, b + 8, even, overlapping, f, c, nullptr), c, "displs");
  expectInvalid(trncclReduceScatterV(b, even, overlapping, b + 16, 4, f, trncclSum, c, nullptr), c, "displs");
  expectInvalid(trncclAlltoAllv(b, even, packed, b + 16, even, overlapping, f, c, nullptr), c, "rdispls");
  // Blocks that end past the largest byte address.
  const size_t far[2] = {0, SIZE_MAX / 2};
  expectInvalid(trncclAlltoAllv(b, even, far, b + 16, even, packed, f, c, nullptr), c, "sdispls");
  expectInvalid(trncclAlltoAllv(b, even, packed, b + 16, even, far, f, c, nullptr), c, "rdispls");
  expectInvalid(trncclAllGatherV(b, 4, b + 8, even, far, f, c, nullptr), c, "displs");
  expectInvalid(trncclReduceScatterV(b, even, far, b + 16, 4, f, trncclSum, c, nullptr), c, "displs");
  const size_t huge[2] = {4, SIZE_MAX / 2};
  expectInvalid(trncclAlltoAllv(b, huge, packed, b + 16, even, packed, f, c, nullptr), c, "sendcounts");
  expectInvalid(trncclAllGatherV(b, 4, b + 8, huge, packed, f, c, nullptr), c, "recvcounts");
  // Overflowing counts of the fixed-size ones.
  expectInvalid(trncclGather(b, b + 8, SIZE_MAX / 2 + 1, trncclInt8, 0, c, nullptr), c, "count");
  expectInvalid(trncclScatter(b, b + 8, SIZE_MAX / 2 + 1, trncclInt8, 0, c, nullptr), c, "count");
  expectInvalid(trncclPermute(b, b + 8, SIZE_MAX, f, 1, 1, c, nullptr), c, "count");
  // Overlapping buffers without the in-place layout.
  expectInvalid(trncclAlltoAllv(b, even, packed, b + 4, even, packed, f, c, nullptr), c, "recvbuff");
  expectInvalid(trncclAllGatherV(b + 2, 4, b, even, packed, f, c, nullptr), c, "recvbuff");
  expectInvalid(trncclReduceScatterV(b, even, packed, b + 2, 4, f, trncclSum, c, nullptr), c, "recvbuff");
  expectInvalid(trncclGather(b + 1, b, 4, f, 0, c, nullptr), c, "recvbuff");
  expectInvalid(trncclScatter(b, b + 1, 4, f, 0, c, nullptr), c, "recvbuff");
  expectInvalid(trncclPermute(b, b + 1, 4, f, 1, 1, c, nullptr), c, "recvbuff");
}

TEST_CASE("bad input: empty gathers, scatters and v-collectives are no-ops, even with NULL buffers", "[bad-input]") {
  Comms comms;  // only rank 0 calls: a call that communicated would time out
  const trncclComm_t c = comms[0];
  const size_t zeros[2] = {0, 0};
  CHECK(trncclGather(nullptr, nullptr, 0, f, 1, c, nullptr) == trncclSuccess);
  CHECK(trncclScatter(nullptr, nullptr, 0, f, 0, c, nullptr) == trncclSuccess);
  CHECK(trncclAllGatherV(nullptr, 0, nullptr, zeros, zeros, f, c, nullptr) == trncclSuccess);
  CHECK(trncclReduceScatterV(nullptr, zeros, zeros, nullptr, 0, f, trncclAvg, c, nullptr) == trncclSuccess);
}

TEST_CASE("bad input: all-to-all-v and permute with nothing to move take part, with NULL buffers", "[bad-input]") {
  // Their counts are each rank's own, so a rank with nothing to move still
  // takes part (its peers' calls count in the same sequence): on one rank
  // such a call completes alone.
  trncclComm_t c = oneRank();
  const size_t zero[1] = {0};
  CHECK(trncclAlltoAllv(nullptr, zero, zero, nullptr, zero, zero, f, c, nullptr) == trncclSuccess);
  CHECK(trncclPermute(nullptr, nullptr, 0, f, 0, 0, c, nullptr) == trncclSuccess);
  CHECK(trncclPermute(nullptr, nullptr, 4, f, -1, -1, c, nullptr) == trncclSuccess);
  requireUsable(c);
  CHECK(trncclCommDestroy(c) == trncclSuccess);
}
