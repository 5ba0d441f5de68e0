#include "matrix.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "encoding.h"
#include "uneven_layouts.h"
#include "values.h"

namespace trnccl::test {
namespace {

constexpr size_t kGuardElems = 3;  // checked past the end of every buffer

// Host memory (std::malloc) or simulated device memory (trncclMemAlloc),
// starting `offset` bytes into the allocation (to test misaligned buffers).
class Buffer {
 public:
  Buffer(size_t bytes, bool device, size_t offset)
      : bytes_(std::max<size_t>(bytes, 1) + offset), device_(device), offset_(offset) {
    if (device_) {
      if (trncclMemAlloc(&data_, bytes_) != trncclSuccess) data_ = nullptr;
    } else {
      data_ = std::malloc(bytes_);
    }
  }
  ~Buffer() {
    if (data_ == nullptr) return;
    if (device_)
      trncclMemFree(data_);
    else
      std::free(data_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  char* data() const { return static_cast<char*>(data_) + offset_; }
  bool ok() const { return data_ != nullptr; }

 private:
  size_t bytes_;
  bool device_;
  size_t offset_;
  void* data_ = nullptr;
};

struct Case {
  Collective coll;
  bool allPairs;  // sendrecv: every pair of ranks exchanges a block (else a ring)
  trncclDataType_t type;
  trncclRedOp_t op;
  size_t count;
  int root;
  bool inPlace;
  bool device;
  size_t misalign;  // bytes past an aligned address the buffers start at
  uint64_t salt;
};

bool isReduction(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce ||
         c == Collective::ReduceScatterV;
}
bool isRooted(Collective c) {
  return c == Collective::Broadcast || c == Collective::Reduce || c == Collective::Gather || c == Collective::Scatter;
}
bool hasInPlace(Collective c) { return c != Collective::SendRecv && c != Collective::AllToAllV; }

// Where a case's send and receive regions lie, what the send region holds
// before the call, and what each element of the receive region must hold
// after it. In place, both regions lie in one buffer at the offsets; out of
// place, each has its own buffer and the offsets are unused.
struct Plan {
  size_t sendElems = 0, recvElems = 0;
  size_t sendOffset = 0, recvOffset = 0;
  std::function<uint64_t(size_t j)> sendInit;
  // `initial`: the element's bits before the call.
  std::function<bool(size_t j, uint64_t got, uint64_t initial, std::string* expected)> check;
};

class Runner {
 public:
  Runner(trncclComm_t comm, int rank, int nranks, trncclStream_t stream, int maxReports, bool registerBuffers)
      : comm_(comm), rank_(rank), n_(nranks), stream_(stream), reportsLeft_(maxReports), register_(registerBuffers) {}

  // 0: passed; 1: wrong result; -1: a call failed.
  int run(const Case& c) {
    const Plan plan = makePlan(c);
    const size_t es = typeInfo(c.type).bytes;
    auto sentinel = [&](size_t buffer, size_t j) {
      return mixBits(c.salt ^ 0x73656e74ull, buffer, static_cast<uint64_t>(rank_), j) & widthMask(c.type);
    };

    // Buffers: one in place, two out of place; each with guard elements.
    size_t elems[2] = {0, 0};
    if (c.inPlace)
      elems[0] = std::max(plan.sendOffset + plan.sendElems, plan.recvOffset + plan.recvElems) + kGuardElems;
    else
      elems[0] = plan.sendElems + kGuardElems, elems[1] = plan.recvElems + kGuardElems;
    const int nbuf = c.inPlace ? 1 : 2;
    Buffer b0(elems[0] * es, c.device, c.misalign), b1(elems[1] * es, c.device, c.misalign);
    Buffer* bufs[2] = {&b0, &b1};
    for (int b = 0; b < nbuf; ++b) {
      if (!bufs[b]->ok()) return report(c, "trncclMemAlloc failed: " + std::string(trncclGetLastError(nullptr))), -1;
      for (size_t j = 0; j < elems[b]; ++j) storeBits(c.type, bufs[b]->data(), j, sentinel(b, j));
    }
    char* sendPtr = c.inPlace ? b0.data() + plan.sendOffset * es : b0.data();
    char* recvPtr = c.inPlace ? b0.data() + plan.recvOffset * es : b1.data();
    for (size_t j = 0; j < plan.sendElems; ++j) storeBits(c.type, sendPtr, j, plan.sendInit(j));
    std::vector<std::vector<uint64_t>> before(nbuf);
    for (int b = 0; b < nbuf; ++b)
      for (size_t j = 0; j < elems[b]; ++j) before[b].push_back(loadBits(c.type, bufs[b]->data(), j));

    std::vector<void*> registrations;
    for (int b = 0; register_ && b < nbuf; ++b) {
      void* handle = nullptr;
      if (!checked(c, "trncclCommRegister", trncclCommRegister(comm_, bufs[b]->data(), elems[b] * es, &handle)))
        return -1;
      registrations.push_back(handle);
    }
    if (!call(c, sendPtr, recvPtr)) return -1;
    for (void* handle : registrations)
      if (!checked(c, "trncclCommDeregister", trncclCommDeregister(comm_, handle))) return -1;

    // Every element of every buffer: the receive region as planned, the rest
    // (the send region out of place, guards) unchanged.
    const size_t recvBegin = c.inPlace ? plan.recvOffset : 0;
    const int recvBuffer = c.inPlace ? 0 : 1;
    size_t mismatches = 0;
    std::string first;
    for (int b = 0; b < nbuf; ++b) {
      for (size_t j = 0; j < elems[b]; ++j) {
        const uint64_t got = loadBits(c.type, bufs[b]->data(), j), initial = before[b][j];
        std::string expected;
        bool ok;
        const bool inRecv = b == recvBuffer && j >= recvBegin && j < recvBegin + plan.recvElems;
        if (inRecv) {
          ok = plan.check(j - recvBegin, got, initial, &expected);
        } else {
          ok = got == initial;
          if (!ok) expected = describe(c.type, initial) + " (unchanged: outside the receive region)";
        }
        if (ok) continue;
        if (mismatches++ == 0) {
          const char* name = c.inPlace ? "buffer" : (b == 0 ? "sendbuff" : "recvbuff");
          first =
              std::string(name) + "[" + std::to_string(j) + "] = " + describe(c.type, got) + ", expected " + expected;
        }
      }
    }
    if (mismatches == 0) return 0;
    report(c, first + " (" + std::to_string(mismatches) + " wrong elements)");
    return 1;
  }

 private:
  Plan makePlan(const Case& c) const {
    const int r = rank_, n = n_;
    const size_t count = c.count;
    const auto type = c.type;
    const auto op = c.op;
    const uint64_t salt = c.salt;
    auto red = [=](int rank, size_t k) { return reductionInput(type, op, rank, k, salt); };
    auto moved = [=](int rank, size_t k) { return movedInput(type, rank, k, salt); };
    auto reduced = [=](size_t k) {
      return [=](uint64_t got, std::string* expected) {
        std::vector<uint64_t> inputs;
        for (int q = 0; q < n; ++q) inputs.push_back(red(q, k));
        return reductionMatches(type, op, inputs, got, expected);
      };
    };
    auto exactly = [=](uint64_t want, uint64_t got, std::string* expected) {
      if (got == want) return true;
      *expected = describe(type, want);
      return false;
    };
    const size_t nc = static_cast<size_t>(n) * count;
    Plan p;
    switch (c.coll) {
      case Collective::AllReduce:
        p.sendElems = p.recvElems = count;
        p.sendInit = [=](size_t j) { return red(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) { return reduced(j)(got, e); };
        break;
      case Collective::AllGather:
        p.sendElems = count, p.recvElems = nc, p.sendOffset = static_cast<size_t>(r) * count;
        p.sendInit = [=](size_t j) { return moved(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) {
          return exactly(moved(static_cast<int>(j / count), j % count), got, e);
        };
        break;
      case Collective::ReduceScatter:
        p.sendElems = nc, p.recvElems = count, p.recvOffset = static_cast<size_t>(r) * count;
        p.sendInit = [=](size_t j) { return red(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) {
          return reduced(static_cast<size_t>(r) * count + j)(got, e);
        };
        break;
      case Collective::Broadcast:
        p.sendElems = p.recvElems = count;
        // Only the root's send buffer is read; the others hold other data.
        p.sendInit = [=](size_t j) { return r == c.root ? moved(r, j) : moved(r, j) ^ 0x5a; };
        p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) { return exactly(moved(c.root, j), got, e); };
        break;
      case Collective::Reduce:
        p.sendElems = p.recvElems = count;
        p.sendInit = [=](size_t j) { return red(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t initial, std::string* e) {
          if (r == c.root) return reduced(j)(got, e);
          return exactly(initial, got, e);  // only the root's receive buffer is written
        };
        break;
      case Collective::AllToAll:
      case Collective::SendRecv:
        if (c.coll == Collective::SendRecv && !c.allPairs) {  // a ring: from rank r - 1, to rank r + 1
          p.sendElems = p.recvElems = count;
          p.sendInit = [=](size_t j) { return moved(r, j); };
          p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) {
            return exactly(moved((r + n - 1) % n, j), got, e);
          };
          break;
        }
        // Block k goes to rank k, block k comes from rank k.
        p.sendElems = p.recvElems = nc;
        p.sendInit = [=](size_t j) { return moved(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) {
          const size_t from = j / count, k = j % count;
          return exactly(moved(static_cast<int>(from), static_cast<size_t>(r) * count + k), got, e);
        };
        break;
      case Collective::Gather:
        // Only the root's receive buffer is written (and exists).
        p.sendElems = count, p.recvElems = r == c.root ? nc : 0;
        if (r == c.root) p.sendOffset = static_cast<size_t>(r) * count;
        p.sendInit = [=](size_t j) { return moved(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) {
          return exactly(moved(static_cast<int>(j / count), j % count), got, e);
        };
        break;
      case Collective::Scatter:
        // Only the root's send buffer is read (and exists).
        p.sendElems = r == c.root ? nc : 0, p.recvElems = count;
        if (r == c.root) p.recvOffset = static_cast<size_t>(r) * count;
        p.sendInit = [=](size_t j) { return moved(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) {
          return exactly(moved(c.root, static_cast<size_t>(r) * count + j), got, e);
        };
        break;
      case Collective::AllToAllV: {
        const Blocks in = recvBlocks(count, n, r);
        p.sendElems = sendBlocks(count, n, r).extent, p.recvElems = in.extent;
        p.sendInit = [=](size_t j) { return moved(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t initial, std::string* e) {
          const int q = in.blockOf(j);
          if (q < 0) return exactly(initial, got, e);
          return exactly(moved(q, sendBlocks(count, n, q).displs[r] + (j - in.displs[q])), got, e);
        };
        break;
      }
      case Collective::AllGatherV: {
        const Blocks all = sharedBlocks(count, n);
        p.sendElems = all.counts[r], p.recvElems = all.extent, p.sendOffset = all.displs[r];
        p.sendInit = [=](size_t j) { return moved(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t initial, std::string* e) {
          const int q = all.blockOf(j);
          return exactly(q < 0 ? initial : moved(q, j - all.displs[q]), got, e);
        };
        break;
      }
      case Collective::ReduceScatterV: {
        const Blocks all = sharedBlocks(count, n);
        p.sendElems = all.extent, p.recvElems = all.counts[r], p.recvOffset = all.displs[r];
        p.sendInit = [=](size_t j) { return red(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t, std::string* e) { return reduced(all.displs[r] + j)(got, e); };
        break;
      }
      case Collective::Permute: {
        const int from = permutePeers(count, n, r).second;
        p.sendElems = p.recvElems = count;
        p.sendInit = [=](size_t j) { return moved(r, j); };
        p.check = [=](size_t j, uint64_t got, uint64_t initial, std::string* e) {
          return exactly(from < 0 ? initial : moved(from, j), got, e);
        };
        break;
      }
    }
    return p;
  }

  bool checked(const Case& c, const char* what, trncclResult_t rc) {
    if (rc == trncclSuccess) return true;
    report(c, std::string(what) + " returned " + std::to_string(rc) + " (" + trncclGetErrorString(rc) +
                  "): " + trncclGetLastError(comm_));
    return false;
  }

  bool call(const Case& c, char* send, char* recv) {
    const size_t count = c.count, es = typeInfo(c.type).bytes;
    trncclResult_t rc = trncclSuccess;
    const char* what = collName(c.coll);
    switch (c.coll) {
      case Collective::AllReduce:
        rc = trncclAllReduce(send, recv, count, c.type, c.op, comm_, stream_);
        break;
      case Collective::AllGather:
        rc = trncclAllGather(send, recv, count, c.type, comm_, stream_);
        break;
      case Collective::ReduceScatter:
        rc = trncclReduceScatter(send, recv, count, c.type, c.op, comm_, stream_);
        break;
      case Collective::Broadcast:
        rc = trncclBroadcast(send, recv, count, c.type, c.root, comm_, stream_);
        break;
      case Collective::Reduce:
        rc = trncclReduce(send, recv, count, c.type, c.op, c.root, comm_, stream_);
        break;
      case Collective::AllToAll:
        rc = trncclAlltoAll(send, recv, count, c.type, comm_, stream_);
        break;
      case Collective::SendRecv: {
        if (!checked(c, "trncclGroupStart", trncclGroupStart())) return false;
        // A ring sends one block to the next rank; all pairs block k to rank k.
        const int peers = c.allPairs ? n_ : 1;
        for (int i = 0; i < peers; ++i) {
          const int to = c.allPairs ? i : (rank_ + 1) % n_, from = c.allPairs ? i : (rank_ + n_ - 1) % n_;
          const size_t at = static_cast<size_t>(i) * count * es;
          const trncclResult_t s = trncclSend(send + at, count, c.type, to, comm_, stream_);
          const trncclResult_t v = trncclRecv(recv + at, count, c.type, from, comm_, stream_);
          if (!checked(c, "trncclSend", s) || !checked(c, "trncclRecv", v)) {
            trncclGroupEnd();
            return false;
          }
        }
        rc = trncclGroupEnd();
        what = "trncclGroupEnd";
        break;
      }
      case Collective::Gather:
        rc = trncclGather(send, recv, count, c.type, c.root, comm_, stream_);
        break;
      case Collective::Scatter:
        rc = trncclScatter(send, recv, count, c.type, c.root, comm_, stream_);
        break;
      case Collective::AllToAllV: {
        const Blocks out = sendBlocks(count, n_, rank_), in = recvBlocks(count, n_, rank_);
        rc = trncclAlltoAllv(send, out.counts.data(), out.displs.data(), recv, in.counts.data(), in.displs.data(),
                             c.type, comm_, stream_);
        break;
      }
      case Collective::AllGatherV: {
        const Blocks all = sharedBlocks(count, n_);
        rc = trncclAllGatherV(send, all.counts[rank_], recv, all.counts.data(), all.displs.data(), c.type, comm_,
                              stream_);
        break;
      }
      case Collective::ReduceScatterV: {
        const Blocks all = sharedBlocks(count, n_);
        rc = trncclReduceScatterV(send, all.counts.data(), all.displs.data(), recv, all.counts[rank_], c.type, c.op,
                                  comm_, stream_);
        break;
      }
      case Collective::Permute: {
        const auto [to, from] = permutePeers(count, n_, rank_);
        rc = trncclPermute(send, recv, count, c.type, to, from, comm_, stream_);
        break;
      }
    }
    if (!checked(c, what, rc)) return false;
    if (stream_ != nullptr) return checked(c, "trncclStreamSynchronize", trncclStreamSynchronize(stream_));
    return true;
  }

  void report(const Case& c, const std::string& what) {
    if (reportsLeft_-- <= 0) return;
    const char* pattern = c.coll != Collective::SendRecv ? "" : c.allPairs ? " (all pairs)" : " (ring)";
    std::fprintf(stderr, "MISMATCH rank %d/%d: %s%s %s %s count=%zu root=%d %s %s memory%s: %s\n", rank_, n_,
                 collName(c.coll), pattern, dataTypeName(c.type), isReduction(c.coll) ? opName(c.op) : "-", c.count,
                 isRooted(c.coll) ? c.root : -1, c.inPlace ? "in-place" : "out-of-place", c.device ? "device" : "host",
                 c.misalign ? (" +" + std::to_string(c.misalign) + " bytes").c_str() : "", what.c_str());
  }

  trncclComm_t comm_;
  int rank_, n_;
  trncclStream_t stream_;
  int reportsLeft_;
  bool register_;
};

// The new collectives that only move data treat a type as its size: their
// large count runs on a type of each size (fewLargeTypes), the small counts
// on every type.
bool movesBytesOnly(Collective c) {
  return c == Collective::Gather || c == Collective::Scatter || c == Collective::AllToAllV ||
         c == Collective::AllGatherV || c == Collective::Permute;
}

bool isFewLargeType(trncclDataType_t type) {
  const std::vector<trncclDataType_t> few = fewLargeTypes();
  return std::find(few.begin(), few.end(), type) != few.end();
}

// Broadcast and reduce run every root; gather and scatter, which the direct
// algorithm treats alike whichever rank is root, the first and the last.
std::vector<int> rootsOf(Collective coll, int nranks) {
  if (coll == Collective::Gather || coll == Collective::Scatter)
    return nranks > 1 ? std::vector<int>{0, nranks - 1} : std::vector<int>{0};
  std::vector<int> roots(isRooted(coll) ? nranks : 1);
  for (int r = 0; r < static_cast<int>(roots.size()); ++r) roots[r] = r;
  return roots;
}

// Every case of the matrix, in the same order on every rank.
std::vector<Case> enumerateCases(int rank, int nranks, const MatrixOptions& options) {
  auto large = [&](trncclDataType_t t) {
    return options.largeTypes.empty() ||
           std::find(options.largeTypes.begin(), options.largeTypes.end(), t) != options.largeTypes.end();
  };
  const std::vector<trncclRedOp_t> noOp = {trncclSum};
  const std::vector<trncclDataType_t>& types = options.types.empty() ? allTypes() : options.types;
  const std::vector<trncclRedOp_t>& ops = options.ops.empty() ? allOps() : options.ops;
  std::vector<Case> cases;
  for (Collective coll : options.collectives)
    for (bool allPairs : coll == Collective::SendRecv ? std::vector<bool>{false, true} : std::vector<bool>{false})
      for (trncclDataType_t type : types)
        for (trncclRedOp_t op : isReduction(coll) ? ops : noOp)
          for (size_t count : options.counts) {
            if (count > 37 && !large(type)) continue;
            if (count > 37 && movesBytesOnly(coll) && !isFewLargeType(type)) continue;
            for (int root : rootsOf(coll, nranks))
              for (bool inPlace : {false, true}) {
                if (inPlace && !hasInPlace(coll)) continue;
                const uint64_t index = cases.size();
                // Host and device memory alternate, differently on neighbouring ranks.
                const bool device = (index + static_cast<uint64_t>(rank)) % 2 == 1;
                // Every third case misaligned: by one byte, or by four (for 8-byte types).
                const size_t misalign = index % 3 != 2 ? 0 : (index / 3) % 2 == 0 ? 1 : 4;
                cases.push_back(Case{coll, allPairs, type, op, count, root, inPlace, device, misalign,
                                     mixBits(options.salt, index, 0, 0)});
              }
          }
  return cases;
}

}  // namespace

const char* collName(Collective coll) { return collectiveFacts(coll).name; }

const std::vector<Collective>& allColls() {
  static const std::vector<Collective> colls = {
      Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
      Collective::Reduce,    Collective::AllToAll,  Collective::SendRecv,      Collective::Gather,
      Collective::Scatter,   Collective::AllToAllV, Collective::AllGatherV,    Collective::ReduceScatterV,
      Collective::Permute};
  return colls;
}

int runMatrix(trncclComm_t comm, const MatrixOptions& options) {
  int rank = -1, nranks = 0;
  if (trncclCommUserRank(comm, &rank) != trncclSuccess || trncclCommCount(comm, &nranks) != trncclSuccess) {
    std::fprintf(stderr, "MISMATCH: trncclCommUserRank/trncclCommCount failed: %s\n", trncclGetLastError(comm));
    return 1;
  }
  trncclStream_t stream = nullptr;
  if (options.useStream && trncclStreamCreate(&stream) != trncclSuccess) {
    std::fprintf(stderr, "MISMATCH rank %d: trncclStreamCreate failed: %s\n", rank, trncclGetLastError(nullptr));
    return 1;
  }
  Runner runner(comm, rank, nranks, stream, options.maxReports, options.registerBuffers);
  int failures = 0;
  for (const Case& c : enumerateCases(rank, nranks, options)) {
    const int result = runner.run(c);
    if (result != 0) ++failures;
    if (result < 0) break;  // the ranks no longer match up
  }
  if (stream != nullptr) trncclStreamDestroy(stream);
  return failures;
}

std::vector<trncclDataType_t> fewLargeTypes() {
  return {trncclUint8, trncclInt64, trncclFloat32, trncclBfloat16, trncclFloat8e4m3};
}

void setMatrixEnvironment(const std::string& sliceBytes) {
  if (sliceBytes.empty())
    unsetenv("TRNCCL_SLICE_BYTES");
  else
    setenv("TRNCCL_SLICE_BYTES", sliceBytes.c_str(), 1);
  setenv("TRNCCL_TIMEOUT_MS", "30000", 1);
}

}  // namespace trnccl::test
