#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "logic/buffer_check.h"
#include "logic/value_codec.h"
#include "nccl_tests/datatypes.h"

using namespace trnccl::perf;

namespace {

using Bytes = std::vector<std::byte>;

// Each rank's input as fill_input writes it.
std::vector<Bytes> inputs(const PatternSpec& spec, size_t count) {
  std::vector<Bytes> all;
  for (int rank = 0; rank < spec.nranks; ++rank) {
    Bytes input(count * type_size(spec.type));
    fill_input(spec, rank, input.data(), count);
    all.push_back(input);
  }
  return all;
}

// What a correct library outputs, built here from the inputs directly.
Bytes elementwise_sum(const std::vector<Bytes>& in, trncclDataType_t type, size_t first, size_t count) {
  const size_t size = type_size(type);
  Bytes out(count * size);
  for (size_t i = 0; i < count; ++i) {
    double sum = 0;
    for (const Bytes& rank_input : in) sum += decode_value(type, rank_input.data() + (first + i) * size);
    encode_value(type, sum, out.data() + i * size);
  }
  return out;
}

size_t wrong(Collective c, const PatternSpec& spec, const Layout& layout, int rank, const Bytes& output, int root = 0) {
  return count_wrong(ExpectedOutput(c, spec, layout, rank, root), spec.type, output.data());
}

}  // namespace

TEST_CASE("fill_input repeats one period of the pattern", "[perf][check]") {
  const PatternSpec spec{trncclFloat16, trncclSum, 2};
  const Bytes input = inputs(spec, 300)[1];
  for (size_t i : {size_t{0}, size_t{96}, size_t{97}, size_t{250}}) {
    INFO("element " << i);
    CHECK(decode_value(trncclFloat16, input.data() + 2 * i) == input_value(spec, 1, i));
  }
}

TEST_CASE("all_reduce: a correct sum passes, any changed element is counted", "[perf][check]") {
  for (trncclDataType_t type : {trncclFloat32, trncclBfloat16, trncclFloat8e5m2, trncclInt8}) {
    INFO(type_name(type));
    const PatternSpec spec{type, trncclSum, 3};
    const Layout layout = layout_for(Collective::AllReduce, 1000 * type_size(type), type_size(type), 3);
    const std::vector<Bytes> in = inputs(spec, layout.send_count);
    Bytes output = elementwise_sum(in, type, 0, layout.recv_count);
    CHECK(wrong(Collective::AllReduce, spec, layout, 1, output) == 0);
    encode_value(type, decode_value(type, output.data() + 5 * type_size(type)) + 1,
                 output.data() + 5 * type_size(type));
    CHECK(wrong(Collective::AllReduce, spec, layout, 1, output) == 1);
  }
}

TEST_CASE("reduce_scatter: each rank checks its own slice of the sum", "[perf][check]") {
  const PatternSpec spec{trncclInt32, trncclSum, 4};
  const Layout layout = layout_for(Collective::ReduceScatter, 4 * 400, 4, 4);
  const std::vector<Bytes> in = inputs(spec, layout.send_count);
  const Bytes slice2 = elementwise_sum(in, trncclInt32, 2 * layout.count, layout.count);
  CHECK(wrong(Collective::ReduceScatter, spec, layout, 2, slice2) == 0);
  CHECK(wrong(Collective::ReduceScatter, spec, layout, 1, slice2) > 0);
}

TEST_CASE("all_gather: rank segments in order pass, swapped segments fail", "[perf][check]") {
  const PatternSpec spec{trncclUint8, std::nullopt, 3};
  const Layout layout = layout_for(Collective::AllGather, 300, 1, 3);
  const std::vector<Bytes> in = inputs(spec, layout.send_count);
  Bytes output;
  for (const Bytes& rank_input : in) output.insert(output.end(), rank_input.begin(), rank_input.end());
  CHECK(wrong(Collective::AllGather, spec, layout, 0, output) == 0);
  std::swap_ranges(output.begin(), output.begin() + 100, output.begin() + 100);
  CHECK(wrong(Collective::AllGather, spec, layout, 0, output) == 200);
}

TEST_CASE("alltoall: rank r receives block r of every rank", "[perf][check]") {
  const PatternSpec spec{trncclFloat64, std::nullopt, 2};
  const Layout layout = layout_for(Collective::AllToAll, 8 * 200, 8, 2);
  const std::vector<Bytes> in = inputs(spec, layout.send_count);
  const size_t block = layout.count * 8;
  Bytes output(in[0].begin() + block, in[0].end());                 // rank 0's block 1
  output.insert(output.end(), in[1].begin() + block, in[1].end());  // rank 1's block 1
  CHECK(wrong(Collective::AllToAll, spec, layout, 1, output) == 0);
  CHECK(wrong(Collective::AllToAll, spec, layout, 0, output) > 0);
}

TEST_CASE("broadcast, sendrecv and reduce check the right source", "[perf][check]") {
  const PatternSpec spec{trncclFloat8e4m3, std::nullopt, 3};
  const Layout layout = layout_for(Collective::Broadcast, 500, 1, 3);
  const std::vector<Bytes> in = inputs(spec, layout.send_count);
  CHECK(wrong(Collective::Broadcast, spec, layout, 0, in[2], 2) == 0);
  CHECK(wrong(Collective::Broadcast, spec, layout, 0, in[1], 2) > 0);
  CHECK(wrong(Collective::SendRecv, spec, layout, 0, in[2]) == 0);  // from rank 2, the one before 0
  CHECK(wrong(Collective::SendRecv, spec, layout, 1, in[0]) == 0);
  CHECK(wrong(Collective::SendRecv, spec, layout, 1, in[2]) > 0);

  const PatternSpec sum{trncclFloat32, trncclSum, 3};
  const Bytes garbage(500 * 4, std::byte{0xFF});
  CHECK(wrong(Collective::Reduce, sum, layout_for(Collective::Reduce, 2000, 4, 3), 1, garbage, 0) == 0);  // not root
  CHECK(wrong(Collective::Reduce, sum, layout_for(Collective::Reduce, 2000, 4, 3), 0, garbage, 0) == 500);
}

TEST_CASE("avg in a float type accepts one ulp and no more, and NaN is always wrong", "[perf][check]") {
  const PatternSpec spec{trncclFloat32, trncclAvg, 2};
  const Layout layout = layout_for(Collective::AllReduce, 4, 4, 2);  // one element: (0 + 3) / 2
  Bytes output(4);
  const auto put = [&](float value) { std::memcpy(output.data(), &value, 4); };
  put(1.5f);
  CHECK(wrong(Collective::AllReduce, spec, layout, 0, output) == 0);
  put(std::nextafter(1.5f, 2.0f));
  CHECK(wrong(Collective::AllReduce, spec, layout, 0, output) == 0);
  put(std::nextafter(std::nextafter(1.5f, 2.0f), 2.0f));
  CHECK(wrong(Collective::AllReduce, spec, layout, 0, output) == 1);
  put(std::numeric_limits<float>::quiet_NaN());
  CHECK(wrong(Collective::AllReduce, spec, layout, 0, output) == 1);
}

TEST_CASE("gather, scatter and permute check the right source; gather only on the root", "[perf][check]") {
  const PatternSpec spec{trncclInt32, std::nullopt, 3};
  const Layout gl = layout_for(Collective::Gather, 4 * 300, 4, 3);
  const std::vector<Bytes> in = inputs(spec, gl.send_count);
  Bytes gathered;
  for (const Bytes& rank_input : in) gathered.insert(gathered.end(), rank_input.begin(), rank_input.end());
  CHECK(wrong(Collective::Gather, spec, gl, 1, gathered, 1) == 0);
  // Each rank's block is 100 elements; 50 of rank 0's swapped with 50 of rank 1's are wrong
  // wherever the two ranks' inputs differ.
  REQUIRE(gl.count == 100);
  size_t differing = 0;
  for (size_t i = 0; i < 50; ++i)
    differing += !std::equal(in[0].begin() + 4 * i, in[0].begin() + 4 * i + 4, in[1].begin() + 4 * i);
  REQUIRE(differing > 0);
  std::swap_ranges(gathered.begin(), gathered.begin() + 200, gathered.begin() + 400);
  CHECK(wrong(Collective::Gather, spec, gl, 1, gathered, 1) == 2 * differing);
  CHECK(wrong(Collective::Gather, spec, gl, 0, gathered, 1) == 0);  // not the root: nothing defined

  const Layout sl = layout_for(Collective::Scatter, 4 * 300, 4, 3);
  const std::vector<Bytes> whole = inputs(spec, sl.send_count);
  const size_t block = sl.count * 4;
  const Bytes block1(whole[2].begin() + block, whole[2].begin() + 2 * block);  // root 2's block 1
  CHECK(wrong(Collective::Scatter, spec, sl, 1, block1, 2) == 0);
  CHECK(wrong(Collective::Scatter, spec, sl, 0, block1, 2) > 0);

  const Layout pl = layout_for(Collective::Permute, 400, 4, 3);
  const std::vector<Bytes> pin = inputs(spec, pl.send_count);
  CHECK(wrong(Collective::Permute, spec, pl, 0, pin[2]) == 0);  // from rank 2, the one before 0
  CHECK(wrong(Collective::Permute, spec, pl, 0, pin[1]) > 0);
}
