// One rank of the Gloo comparison: joins the others through a file store,
// then times Gloo's ring all-reduce for every size of the sweep. Rank 0
// prints the table.
#pragma once

#include <cstddef>
#include <string>

#include "options.h"

namespace trnccl::gloo_bench {

// Returns the number of wrong output elements over all ranks and sizes.
// Throws what Gloo throws (gloo::Exception) when a rank fails.
size_t run_rank(const Options& options, int rank, const std::string& store_dir);

}  // namespace trnccl::gloo_bench
