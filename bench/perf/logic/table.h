#pragma once

#include <cstddef>
#include <string>

#include "logic/options.h"
#include "logic/row.h"

namespace trnccl::perf {

// The text of nccl-tests' result table, column for column; with_peer adds
// the MPI peer columns on the right.

// nccl-tests' time column: fewer decimals as the time grows.
std::string format_time_us(double time_us);
// The "# ..." lines before the table that say how the run was set up.
std::string table_preamble(const Options& options, int nranks, const std::string& launch, const std::string& version);
std::string table_header(bool with_peer);
std::string table_row(const Row& row, bool with_peer);
std::string table_footer(size_t wrong_total, double avg_busbw);

}  // namespace trnccl::perf
