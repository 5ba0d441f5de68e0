// --links FILE.csv: where each row's bytes went. One line per link of the
// machine per row: the bytes that crossed it, how long it was busy carrying
// them at its bandwidth, and that busy time as a share of the predicted time.
#pragma once

#include <string>
#include <vector>

#include "sweep.h"

namespace trnccl::simtool {

// Throws Error(SystemError) naming --links when the file cannot be written.
void writeLinks(const std::vector<Row>& rows, const std::string& file);

}  // namespace trnccl::simtool
