#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace trnccl::perf {

// One timed placement (out-of-place or in-place) of one message size.
struct Measurement {
  double time_us;               // the slowest rank's mean time per call
  double algbw;                 // GB/s
  double busbw;                 // GB/s
  std::optional<size_t> wrong;  // wrong elements over all ranks; none when not checked
};

// The same size timed with the MPI's equivalent call (Open MPI's or MPICH's).
struct PeerMeasurement {
  double time_us;  // the slowest rank's median time per call
  double busbw;    // GB/s
  double ratio;    // trnccl out-of-place busbw / MPI busbw
};

// One line of the table.
struct Row {
  size_t size_bytes;
  size_t count;
  std::string type;
  std::string redop;        // "none" for collectives without one
  std::optional<int> root;  // none for collectives without one
  Measurement out_of_place;
  Measurement in_place;
  std::optional<PeerMeasurement> mpi;  // none: not measured, or no MPI type ("n/a")
  std::string algorithm = "-";         // what trnccl's tuner ran ("-": not a collective)
  std::optional<double> predicted_us;  // the tuner's cost model for that algorithm
};

}  // namespace trnccl::perf
