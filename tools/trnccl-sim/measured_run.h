// A published measurement of real hardware, in ../shared/calibration's format:
// '#' comment lines, then one row per size: size in bytes, the time of one
// collective in microseconds, and (ignored here) nccom-test's busbw,
// separated by tabs, spaces or commas. What was
// measured may be in the file's name, as '_'-separated words in any order: a
// collective (allreduce, allgather, reducescatter, or nccom-test's allr, allg,
// redsct), Nrank(s), Minst / Mnode(s) (instances of the topology) and a type
// (fp32, bf16, ...), e.g. allreduce_2rank_fp32.tsv or
// allgather_64rank_2inst_bf16.tsv. Other words are ignored; what the name
// leaves out, the command line gives (--coll, --ranks, --dtype, --topo's :N).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "nccl_tests/collective.h"
#include "trnccl/trnccl.h"

namespace trnccl::simtool {

struct Measurement {
  size_t bytes = 0;  // nccom-test's size: the larger of input and output
  double us = 0;
  double busbw = 0;  // the file's busbw column in its unit (0: none), in GB/s (1e9 bytes)
};

// How a file prints busbw: nccom-test printed GiB/s until about mid-2025 and
// decimal GB/s since.
enum class BusbwUnit { Unknown, GiB, GB };

// What the name says; unset (0) where it says nothing.
struct MeasuredRun {
  std::string file;
  std::optional<perf::Collective> collective;
  int ranks = 0;
  int instances = 0;
  std::optional<trncclDataType_t> type;
  std::vector<Measurement> points;
  // What the file's '#' header (and its folder's name) says of the machine
  // and the software, each unset where it says nothing:
  //  - topology: a shipped topology named in it ("trn1.32xlarge"), else its
  //    generation's usual instance ("trn1" -> trn1.32xlarge, "trn2" -> trn2.48xlarge);
  //  - instances: "two trn1.32xlarge" (where the name has no Minst);
  //  - onePerInstance: "one rank on each" instance (ranks spread over them);
  //  - unit: busbw_gibps or "GiB/s" / busbw_gbps or "decimal GB/s";
  //  - era: the runtime era of the latest year the header names (a year
  //    goes to the latest era not after it), else by the unit: GiB/s files
  //    come from runtimes before 2025, the 2023 era.
  std::string topology;
  bool onePerInstance = false;
  BusbwUnit unit = BusbwUnit::Unknown;
  std::string era;
};

// Throws Error(InvalidArgument) naming the file and line of what it cannot
// read, or a name that says two different things (two collectives).
MeasuredRun readMeasuredRun(const std::string& path);

// Every *.tsv file under `dir` and its folders, sorted by path (Error(InvalidArgument): none,
// or one whose name does not give its collective and rank count).
std::vector<MeasuredRun> readMeasuredRuns(const std::string& dir);

}  // namespace trnccl::simtool
