// PreMulSum through the public API (trncclRedOpCreatePreMulSum): all-reduce,
// reduce, reduce-scatter and reduce-scatter-v on every algorithm that runs
// them, every data type, in and out of place, each rank with its own scalar,
// checked element by element against sum_r scalar_r * x_r computed here in
// double precision (or wrapping 64-bit integers).
//
// The inputs keep every partial result exact, so a result must equal the
// reference: x in {-2..2} and scalars in {1, 1/2, 2, 1/4} (sums of up to 8
// ranks are multiples of 1/4 below 32: 8 bits, as bf16 has); for fp8, whose
// 3 or 4 bits cannot hold such sums, one rank contributes to each element
// (x_r nonzero only on rank i % nranks). A missed or repeated scaling of any
// rank's input changes the result.
//
// Every case checks both residences: a trncclScalarHostImmediate scalar is
// overwritten after the operator is created (the copy must be used), a
// trncclScalarDevice one (in trncclMemAlloc'd memory) holds a wrong value at
// creation and the right one only when the collective runs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/registry.h"
#include "checks.h"
#include "encoding.h"
#include "tests/support/scoped_env.h"

using namespace trnccl::test;
namespace algo = trnccl::algo;

namespace {

// The collectives that reduce, and so take a PreMulSum.
using Reduction = algo::Collective;
constexpr Reduction kReductions[] = {Reduction::AllReduce, Reduction::Reduce, Reduction::ReduceScatter,
                                     Reduction::ReduceScatterV};

bool isFp8(trncclDataType_t type) { return type == trncclFloat8e4m3 || type == trncclFloat8e5m2; }

// Rank r's scalar: a float, or for integers a factor that wraps (-1).
double scalarOf(trncclDataType_t type, int rank) {
  static const double floats[] = {1, 0.5, 2, 0.25}, integers[] = {1, 3, -1, 2};
  return (typeInfo(type).isFloat ? floats : integers)[rank % 4];
}

// Element j of rank r's input.
double inputOf(trncclDataType_t type, int rank, int nranks, size_t j) {
  if (isFp8(type))
    return static_cast<int>(j % static_cast<size_t>(nranks)) == rank ? double(int((j / nranks) % 5) - 2) : 0;
  return double(int((j * 7 + static_cast<size_t>(rank) * 3) % 5) - 2);
}

uint64_t bitsOf(trncclDataType_t type, double value) {
  if (typeInfo(type).isFloat) return encodeExactOrDie(type, value);
  return static_cast<uint64_t>(static_cast<int64_t>(value)) & widthMask(type);
}

// The reference of element j: floats exactly, integers wrapped to the type.
uint64_t expectedBits(trncclDataType_t type, int nranks, size_t j) {
  if (!typeInfo(type).isFloat) {
    uint64_t sum = 0;
    for (int r = 0; r < nranks; ++r)
      sum += static_cast<uint64_t>(static_cast<int64_t>(scalarOf(type, r))) *
             static_cast<uint64_t>(static_cast<int64_t>(inputOf(type, r, nranks, j)));
    return sum & widthMask(type);
  }
  double sum = 0;
  for (int r = 0; r < nranks; ++r) sum += scalarOf(type, r) * inputOf(type, r, nranks, j);
  return encodeExactOrDie(type, sum);
}

struct Case {
  Reduction reduction;
  trncclDataType_t type;
  size_t count;  // the collective's count (reduce-scatter-v: the smallest block)
  bool inPlace;
  bool device;  // trncclScalarDevice, else trncclScalarHostImmediate
  int root;
};

std::string describeCase(const Case& c, int rank) {
  return "rank " + std::to_string(rank) + ": " + algo::collectiveName(c.reduction) + " " + dataTypeName(c.type) +
         " count " + std::to_string(c.count) + (c.inPlace ? " in place" : " out of place") +
         (c.device ? ", device scalar" : ", host-immediate scalar") + ", root " + std::to_string(c.root);
}

// Runs one case on this rank; false (noted in log) if anything differs.
bool runCase(trncclComm_t comm, int rank, int nranks, const Case& c, FailureLog& log) {
  const trncclDataType_t type = c.type;
  const size_t bytes = typeInfo(type).bytes;
  const std::string what = describeCase(c, rank);
  // Blocks of the scattering collectives: block q has counts[q] elements at displs[q].
  std::vector<size_t> counts(static_cast<size_t>(nranks), c.count), displs(static_cast<size_t>(nranks), 0);
  if (c.reduction == Reduction::ReduceScatterV)
    for (int q = 0; q < nranks; ++q) counts[q] = c.count + static_cast<size_t>(q % 3) * 5;
  for (int q = 1; q < nranks; ++q) displs[q] = displs[q - 1] + counts[q - 1];
  const bool scatters = c.reduction == Reduction::ReduceScatter || c.reduction == Reduction::ReduceScatterV;
  const size_t inputCount = scatters ? displs.back() + counts.back() : c.count;
  const size_t resultOffset = scatters ? displs[rank] : 0;  // where this rank's result lies in the input's indexing
  const size_t resultCount = scatters ? counts[rank] : c.count;

  std::vector<std::byte> input(inputCount * bytes), output(inputCount * bytes, std::byte{0x5A});
  for (size_t j = 0; j < inputCount; ++j)
    storeBits(type, input.data(), j, bitsOf(type, inputOf(type, rank, nranks, j)));
  void* send = input.data();
  void* recv = c.inPlace ? static_cast<void*>(input.data() + resultOffset * bytes) : output.data();

  // The scalar: right at the call, wrong wherever it must not be read.
  const uint64_t right = bitsOf(type, scalarOf(type, rank)), wrong = bitsOf(type, 0);
  uint64_t host = right;
  void* device = nullptr;
  if (c.device) {
    if (!log.expect(rank, "trncclMemAlloc", trncclMemAlloc(&device, 8), trncclSuccess, nullptr)) return false;
    std::memcpy(device, &wrong, 8);
  }
  trncclRedOp_t op;
  const trncclResult_t created = trncclRedOpCreatePreMulSum(
      &op, c.device ? device : &host, type, c.device ? trncclScalarDevice : trncclScalarHostImmediate, comm);
  if (!log.expect(rank, "trncclRedOpCreatePreMulSum", created, trncclSuccess, comm)) return false;
  if (c.device)
    std::memcpy(device, &right, 8);
  else
    host = wrong;

  trncclResult_t rc = trncclSuccess;
  switch (c.reduction) {
    case Reduction::AllReduce:
      rc = trncclAllReduce(send, recv, c.count, type, op, comm, nullptr);
      break;
    case Reduction::Reduce:
      rc = trncclReduce(send, recv, c.count, type, op, c.root, comm, nullptr);
      break;
    case Reduction::ReduceScatter:
      rc = trncclReduceScatter(send, recv, c.count, type, op, comm, nullptr);
      break;
    case Reduction::ReduceScatterV:
      rc = trncclReduceScatterV(send, counts.data(), displs.data(), recv, counts[rank], type, op, comm, nullptr);
      break;
    default:  // not a reduction: kReductions holds only the four above
      rc = trncclInternalError;
      break;
  }
  bool ok = log.expect(rank, what.c_str(), rc, trncclSuccess, comm);
  ok = log.expect(rank, "trncclRedOpDestroy", trncclRedOpDestroy(op, comm), trncclSuccess, comm) && ok;
  if (device) trncclMemFree(device);
  if (!ok) return false;
  if (c.reduction == Reduction::Reduce && rank != c.root) return true;
  for (size_t i = 0; i < resultCount; ++i) {
    const uint64_t got = loadBits(type, recv, i), want = expectedBits(type, nranks, resultOffset + i);
    if (got != want)
      return log.fail(rank, what + ": element " + std::to_string(i) + " is " + describe(type, got) + ", expected " +
                                describe(type, want));
  }
  return true;
}

std::vector<Case> casesFor(const std::vector<Reduction>& reductions, int nranks) {
  std::vector<Case> cases;
  int n = 0;
  for (Reduction reduction : reductions)
    for (trncclDataType_t type : allTypes())
      for (size_t count : {size_t{1}, size_t{37}, kLargeCount}) {
        const bool large = count == kLargeCount;
        if (large && type != trncclFloat32 && type != trncclBfloat16 && type != trncclFloat8e4m3) continue;
        for (bool inPlace : {false, true}) {
          cases.push_back(Case{reduction, type, count, inPlace, n % 2 == 1, n % nranks});
          ++n;
        }
      }
  return cases;
}

// The reductions `algorithm` runs on `nranks` ranks (placed on two instances
// for one that needs them).
std::vector<Reduction> reductionsOf(const algo::RegisteredAlgorithm& algorithm, int nranks) {
  algo::RankLayout twoInstances;
  for (int r = 0; r < nranks; ++r) twoInstances.instanceOf.push_back(2 * r / nranks);
  algo::RankLayout twoCoresPerChip;  // a row of chips
  twoCoresPerChip.gridWidth = nranks, twoCoresPerChip.gridHeight = 1, twoCoresPerChip.ranksPerChip = 2;
  for (int r = 0; r < nranks; ++r) twoCoresPerChip.grid.push_back(r);
  const auto implementation = algorithm.make();
  std::vector<Reduction> result;
  for (Reduction reduction : kReductions) {
    algo::CollectiveArgs args{reduction, 0, nranks, 37};
    if (algorithm.reach == algo::Reach::Instances) args.layout = &twoInstances;
    if (algorithm.reach == algo::Reach::Chips) args.layout = &twoCoresPerChip;
    if (implementation->whyUnsupported(args).empty()) result.push_back(reduction);
  }
  return result;
}

void checkAlgorithms(algo::Reach reach, const char* topology, int nranks) {
  ScopedEnv topo("TRNCCL_TOPO", topology), window("TRNCCL_WINDOW", "1");
  setMatrixEnvironment();
  for (const algo::RegisteredAlgorithm& algorithm : algo::registeredAlgorithms()) {
    if (algorithm.reach != reach) continue;
    const std::vector<Reduction> reductions = reductionsOf(algorithm, nranks);
    if (reductions.empty()) continue;
    SECTION(algorithm.name + " on " + std::to_string(nranks) + " ranks") {
      ScopedEnv forced("TRNCCL_ALGO", algorithm.name.c_str());
      const std::vector<Case> cases = casesFor(reductions, nranks);
      checkOnThreads(nranks, [&](trncclComm_t comm, int rank, FailureLog& log) {
        for (const Case& c : cases)
          if (!runCase(comm, rank, nranks, c, log)) return false;
        return true;
      });
    }
  }
}

}  // namespace

TEST_CASE("premulsum: every algorithm, reduction and type on 1, 3 and 4 ranks", "[premulsum]") {
  for (int nranks : {1, 3, 4}) checkAlgorithms(algo::Reach::AnyRanks, nullptr, nranks);
}

TEST_CASE("premulsum: the hierarchical algorithms across 4 instances of 2 ranks", "[premulsum][hierarchical]") {
  checkAlgorithms(algo::Reach::Instances, "trn1.2xlarge:4", 8);
}

TEST_CASE("premulsum: the chip algorithms on a row of 4 chips of trn1.32xlarge", "[premulsum][hierarchical]") {
  checkAlgorithms(algo::Reach::Chips, "trn1.32xlarge", 8);
}

TEST_CASE("premulsum: an operator destroyed right after a queued call still scales it; numbers are per communicator",
          "[premulsum][streams]") {
  setMatrixEnvironment();
  checkOnThreads(3, [](trncclComm_t comm, int rank, FailureLog& log) {
    trncclStream_t stream = nullptr;
    if (!log.expect(rank, "trncclStreamCreate", trncclStreamCreate(&stream), trncclSuccess, nullptr)) return false;
    constexpr size_t kCount = 1000;
    std::vector<float> in(kCount, static_cast<float>(rank + 1)), out(kCount, 0);
    float scalar = 0.5f * static_cast<float>(rank + 1);
    trncclRedOp_t first, second;
    bool ok = log.expect(rank, "create",
                         trncclRedOpCreatePreMulSum(&first, &scalar, trncclFloat32, trncclScalarHostImmediate, comm),
                         trncclSuccess, comm);
    ok = ok && log.expect(rank, "create",
                          trncclRedOpCreatePreMulSum(&second, &scalar, trncclFloat32, trncclScalarHostImmediate, comm),
                          trncclSuccess, comm);
    if (!ok) return false;
    if (first != trncclNumOps || second != trncclNumOps + 1)
      return log.fail(rank, "the operators are numbered " + std::to_string(first) + " and " + std::to_string(second) +
                                ", not trncclNumOps and the next");
    ok = log.expect(rank, "trncclAllReduce",
                    trncclAllReduce(in.data(), out.data(), kCount, trncclFloat32, second, comm, stream), trncclSuccess,
                    comm);
    scalar = 100;  // copied at creation: not read
    ok = ok && log.expect(rank, "destroy", trncclRedOpDestroy(second, comm), trncclSuccess, comm);
    ok = ok && log.expect(rank, "destroy", trncclRedOpDestroy(first, comm), trncclSuccess, comm);
    ok = ok && log.expect(rank, "trncclStreamSynchronize", trncclStreamSynchronize(stream), trncclSuccess, comm);
    trncclStreamDestroy(stream);
    if (!ok) return false;
    // sum over ranks q of 0.5 (q + 1) * (q + 1) = 0.5 (1 + 4 + 9)
    for (size_t i = 0; i < kCount; ++i)
      if (out[i] != 7.0f) return log.fail(rank, "element " + std::to_string(i) + " is " + std::to_string(out[i]));
    // Destroyed numbers are free again, lowest first.
    trncclRedOp_t again;
    ok = log.expect(rank, "create",
                    trncclRedOpCreatePreMulSum(&again, &scalar, trncclFloat32, trncclScalarHostImmediate, comm),
                    trncclSuccess, comm);
    if (ok && again != trncclNumOps) return log.fail(rank, "a freed number was not reused: " + std::to_string(again));
    return ok && log.expect(rank, "destroy", trncclRedOpDestroy(again, comm), trncclSuccess, comm);
  });
}
