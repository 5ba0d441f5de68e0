// A published measurement of real hardware, in ../shared/calibration's format:
// '#' comment lines, then one row per size: size in bytes, the time of one
// collective in microseconds, and (ignored here) nccom-test's busbw. What was
// measured is in the file's name: COLL_Nrank_TYPE.tsv or COLL_Nrank_Minst_TYPE.tsv, e.g.
// allreduce_2rank_fp32.tsv or allgather_64rank_2inst_bf16.tsv (instances of
// the topology, 1 when left out).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "logic/collective.h"
#include "trnccl/trnccl.h"

namespace trnccl::simtool {

struct Measurement {
  size_t bytes = 0;  // nccom-test's size: the larger of input and output
  double us = 0;
};

struct MeasuredRun {
  std::string file;
  perf::Collective collective = perf::Collective::all_reduce;
  int ranks = 0;
  int instances = 1;
  trncclDataType_t type = trncclFloat32;
  std::vector<Measurement> points;
};

// Throws Error(InvalidArgument) naming the file and line of what it cannot
// read, or the part of the name it cannot make out.
MeasuredRun readMeasuredRun(const std::string& path);

// Every *.tsv file of `dir`, sorted by name (Error(InvalidArgument): none).
std::vector<MeasuredRun> readMeasuredRuns(const std::string& dir);

}  // namespace trnccl::simtool
