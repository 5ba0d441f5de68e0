// What two processes of this host can do at all: the floor under a 2-rank
// all-reduce. Each call forks one child for the other side and waits for it.
#pragma once

#include <cstddef>

namespace trnccl::floor_bench {

// Half the round trip of a cache line written by one process and awaited by
// the other, then written back: one crossing between the cores, in
// microseconds; the median of `batches` batches of `round_trips`.
double line_crossing_us(int round_trips, int batches);

// The bytes per second one process copies with memcpy (buffers of `bytes`,
// its own, touched first) while the other copies as much at the same time;
// the slower process's figure, the median of `batches` batches.
double concurrent_memcpy_bytes_per_second(size_t bytes, int batches);

}  // namespace trnccl::floor_bench
