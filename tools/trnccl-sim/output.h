// trnccl-sim's results as a table (nccl-tests' columns), CSV or JSON.
#pragma once

#include <string>
#include <vector>

#include "options.h"
#include "sweep.h"

namespace trnccl::simtool {

std::string formatRows(const Options& options, const std::vector<Row>& rows);

}  // namespace trnccl::simtool
