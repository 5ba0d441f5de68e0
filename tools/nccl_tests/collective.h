#pragma once

#include <cstddef>
#include <string_view>

#include "base/collective_table.h"

namespace trnccl::perf {

using trnccl::Collective;  // base/collective_table.h
// The v-collectives run even blocks (every rank's block `count` elements,
// packed in rank order) and permute shifts by one rank, as sendrecv does.

std::string_view collective_name(Collective collective);  // nccl-tests' "all_reduce"
// Throws UsageError for a name that is not a collective.
Collective parse_collective(std::string_view name);
bool reduces(Collective collective);       // takes a reduction op
bool has_root(Collective collective);      // takes a root rank
bool has_in_place(Collective collective);  // has an in-place form

// How one message size maps onto a call, as nccl-tests' getCollByteCount has
// it. All counts are in elements.
struct Layout {
  size_t count;                // the count argument of the call (the "count" column)
  size_t send_count;           // elements in each rank's input
  size_t recv_count;           // elements in each rank's output
  size_t send_inplace_offset;  // in-place input starts at recv + rank * this
  size_t recv_inplace_offset;  // in-place output starts at recv + rank * this
};

Layout layout_for(Collective collective, size_t bytes, size_t type_size, int nranks);

// The "size" column: the larger of the input and the output, in bytes.
size_t row_bytes(const Layout& layout, size_t type_size);

// nccl-tests' bus bandwidth factor: busbw = algbw * factor, which makes the
// figure comparable with the link bandwidth whatever the collective.
double bus_factor(Collective collective, int nranks);

struct Bandwidth {
  double algbw;  // GB/s
  double busbw;  // GB/s
};

// algbw is the collective's data size (nccl-tests' per-collective definition)
// over the time; busbw scales it by bus_factor.
Bandwidth bandwidth(Collective collective, const Layout& layout, size_t type_size, int nranks, double seconds);

}  // namespace trnccl::perf
