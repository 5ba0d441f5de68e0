#include "random_reduce.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "encoding.h"
#include "values.h"

namespace trnccl::test {
namespace {

// Random bits of a finite value in [2^-6, 1) with a random sign, any type.
uint64_t randomFloat(trncclDataType_t type, int rank, size_t i, uint64_t salt) {
  const TypeInfo& t = typeInfo(type);
  const uint64_t random = mixBits(salt ^ 0x72616e64ull, static_cast<uint64_t>(type), static_cast<uint64_t>(rank), i);
  const uint64_t sign = random >> 63;
  const uint64_t exponent = static_cast<uint64_t>(t.bias - 6) + (random >> 40) % 6;
  const uint64_t mantissa = random & ((uint64_t{1} << t.manBits) - 1);
  return sign << (t.expBits + t.manBits) | exponent << t.manBits | mantissa;
}

}  // namespace

std::vector<RandomCase> randomCases() {
  std::vector<RandomCase> cases;
  for (trncclDataType_t type : {trncclFloat32, trncclBfloat16, trncclFloat16, trncclFloat8e4m3})
    for (trncclRedOp_t op : {trncclSum, trncclAvg})
      for (size_t count : {size_t{1000}, size_t{30011}, size_t{200003}}) cases.push_back(RandomCase{type, op, count});
  return cases;
}

std::string describeCase(const RandomCase& c) {
  return std::string(dataTypeName(c.type)) + " " + opName(c.op) + " count=" + std::to_string(c.count);
}

std::string randomAllReduce(trncclComm_t comm, const RandomCase& c, uint64_t salt, std::vector<char>* result,
                            const trncclCollConfig_t* config) {
  int rank = 0, nranks = 0;
  trncclCommUserRank(comm, &rank);
  trncclCommCount(comm, &nranks);
  const size_t es = typeInfo(c.type).bytes;
  std::vector<char> send(c.count * es);
  result->assign(c.count * es, 0);
  for (size_t i = 0; i < c.count; ++i) storeBits(c.type, send.data(), i, randomFloat(c.type, rank, i, salt));
  const trncclResult_t rc =
      config ? trncclAllReduceConfig(send.data(), result->data(), c.count, c.type, c.op, comm, nullptr, config)
             : trncclAllReduce(send.data(), result->data(), c.count, c.type, c.op, comm, nullptr);
  if (rc != trncclSuccess)
    return describeCase(c) + ": trncclAllReduce returned " + std::to_string(rc) + ": " + trncclGetLastError(comm);
  for (size_t i = 0; i < c.count; ++i) {
    double exact = 0, magnitude = 0;
    for (int q = 0; q < nranks; ++q) {
      const double x = decodeFloat(c.type, randomFloat(c.type, q, i, salt));
      exact += x, magnitude += std::fabs(x);
    }
    // nranks - 1 roundings of partial sums (each at most half an ulp at the
    // largest magnitude), one more for the division of the average.
    double tolerance = nranks * ulpAt(c.type, magnitude);
    if (c.op == trncclAvg) exact /= nranks, tolerance = tolerance / nranks + ulpAt(c.type, exact);
    const double got = decodeFloat(c.type, loadBits(c.type, result->data(), i));
    if (!(std::fabs(got - exact) <= tolerance)) {
      char text[200];
      std::snprintf(text, sizeof text, "element %zu = %.9g, exact reduction %.9g (tolerance %.3g)", i, got, exact,
                    tolerance);
      return "rank " + std::to_string(rank) + ": " + describeCase(c) + ": " + text;
    }
  }
  return {};
}

std::vector<char> rankOrderSum(const RandomCase& c, int nranks, uint64_t salt) {
  const size_t es = typeInfo(c.type).bytes;
  std::vector<char> out(c.count * es);
  for (size_t i = 0; i < c.count; ++i) {
    float sum = 0;
    for (int q = 0; q < nranks; ++q) {
      const float x = static_cast<float>(decodeFloat(c.type, randomFloat(c.type, q, i, salt)));  // exact in fp32
      sum = q == 0 ? x : sum + x;
    }
    uint32_t f;
    std::memcpy(&f, &sum, sizeof f);
    uint64_t bits = f;
    if (c.type == trncclBfloat16) {
      bits = (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;  // nearest-even (no NaN here)
    } else if (c.type == trncclFloat16) {
      const _Float16 h = static_cast<_Float16>(sum);  // the compiler's conversion rounds to nearest-even
      uint16_t hb;
      std::memcpy(&hb, &h, sizeof hb);
      bits = hb;
    }
    storeBits(c.type, out.data(), i, bits);
  }
  return out;
}

}  // namespace trnccl::test
