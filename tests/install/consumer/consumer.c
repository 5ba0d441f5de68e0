/* A downstream program of the installed trnccl, in C: two ranks as threads of
 * this process, an all-reduce queued on a stream for each, checked. Built by
 * the CMake project (find_package) and by the Makefile (pkg-config) here. */
#include <stdio.h>
#include <trnccl/trnccl.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    trncclResult_t r_ = (call);                                                        \
    if (r_ != trncclSuccess) {                                                         \
      fprintf(stderr, "%s failed: %s (%s)\n", #call, trncclGetErrorString(r_),         \
              trncclGetLastError(NULL));                                               \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

enum { kRanks = 2, kCount = 1000 };

int main(void) {
  int version = 0;
  CHECK(trncclGetVersion(&version));
  if (version != TRNCCL_VERSION) {
    fprintf(stderr, "library version %d, header %d\n", version, TRNCCL_VERSION);
    return 1;
  }
  trncclComm_t comms[kRanks];
  trncclStream_t streams[kRanks];
  static float data[kRanks][kCount];
  CHECK(trncclCommInitAll(comms, kRanks, NULL));
  for (int r = 0; r < kRanks; ++r) {
    for (int i = 0; i < kCount; ++i) data[r][i] = (float)(r + 1) * (float)i;
    CHECK(trncclStreamCreate(&streams[r]));
    CHECK(trncclAllReduce(data[r], data[r], kCount, trncclFloat32, trncclSum, comms[r], streams[r]));
  }
  for (int r = 0; r < kRanks; ++r) CHECK(trncclStreamSynchronize(streams[r]));
  for (int r = 0; r < kRanks; ++r)
    for (int i = 0; i < kCount; ++i)
      if (data[r][i] != 3.0f * (float)i) {
        fprintf(stderr, "rank %d element %d: %g, expected %g\n", r, i, data[r][i], 3.0 * i);
        return 1;
      }
  for (int r = 0; r < kRanks; ++r) {
    CHECK(trncclStreamDestroy(streams[r]));
    CHECK(trncclCommDestroy(comms[r]));
  }
  printf("trnccl %d: all-reduce over %d ranks correct\n", version, kRanks);
  return 0;
}
