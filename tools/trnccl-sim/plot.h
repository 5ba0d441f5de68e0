// --plot: bus bandwidth against message size, one line per machine and
// algorithm, log-scaled, drawn by gnuplot.
#pragma once

#include <string>
#include <vector>

#include "sweep.h"

namespace trnccl::simtool {

// Throws Error(SystemError) when gnuplot cannot be run or fails.
void plot(const std::vector<Row>& rows, const std::string& file);

}  // namespace trnccl::simtool
